"""Where we are: the process environment as one frozen value, passed explicitly.

:meth:`Env.from_os` is the one place that reads the process environment (``os.environ``, the
cwd, the home folder) and resolves skillshelf's user folders (:class:`~skillshelf.dirs.UserDirs`).
Nothing below the CLI reads them directly (``skillshelf lint-arch`` checks it, AR105); it takes an
:class:`Env`. Tests build one in ``tmp_path`` with :meth:`Env.for_test`, every folder isolated.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from skillshelf.dirs import UserDirs
from skillshelf.errors import FileAccessError, reason

__all__ = ["CLAUDE_MANAGED_DIR", "Env", "current_folder", "find_project_root", "folders_between"]

DEFAULT_PROJECT_ROOT_MARKERS: tuple[str, ...] = (".git",)

CLAUDE_MANAGED_DIR = {
    "darwin": Path("/Library/Application Support/ClaudeCode"),
    "win32": Path("C:/Program Files/ClaudeCode"),
}.get(sys.platform, Path("/etc/claude-code"))
"""Where Claude Code reads its managed (policy) settings and skills on this platform."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Env:
    """The parts of the process environment skillshelf depends on."""

    cwd: Path
    home: Path
    codex_home: Path
    dirs: UserDirs
    environ: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    admin_skills_dir: Path = Path("/etc/codex/skills")
    claude_managed_dir: Path = CLAUDE_MANAGED_DIR
    system_config_dir: Path = Path("/etc/skillshelf")
    project_root_markers: tuple[str, ...] = DEFAULT_PROJECT_ROOT_MARKERS

    @classmethod
    def from_os(cls, *, cwd: Path | None = None) -> Env:
        """This process's environment; raises ``FileAccessError`` (``SS006``) when the current
        folder cannot be had (deleted, or no longer reachable)."""
        return cls.from_environ(dict(os.environ), cwd=cwd or current_folder())

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], *, cwd: Path) -> Env:
        """The environment another process described (the hook server answers for its clients
        with their variables and folder, exactly as they would have answered themselves)."""
        environ = dict(environ)
        home = Path(environ.get("HOME") or Path.home())
        codex_home_text = environ.get("CODEX_HOME")
        codex_home = Path(codex_home_text) if codex_home_text else home / ".codex"
        return cls(
            cwd=cwd.absolute(),
            home=home,
            codex_home=codex_home,
            dirs=UserDirs.from_environ(environ, home),
            environ=MappingProxyType(environ),
        )

    @classmethod
    def for_test(
        cls, *, cwd: Path, home: Path, codex_home: Path | None = None, dirs: UserDirs | None = None
    ) -> Env:
        """An isolated environment: no admin root or system config, no background hook server;
        HOME, CODEX_HOME and the user folders (``dirs``, by default :meth:`UserDirs.under`
        ``home``) under ``home``."""
        return cls(
            cwd=cwd.absolute(),
            home=home,
            codex_home=codex_home or home / ".codex",
            dirs=dirs or UserDirs.under(home),
            environ=MappingProxyType({"HOME": str(home), "SKILLSHELF_HOOK_SERVER": "0"}),
            admin_skills_dir=home / ".no-admin-skills",
            claude_managed_dir=home / ".no-claude-managed",
            system_config_dir=home / ".no-system-config",
        )

    @property
    def project_root(self) -> Path:
        return find_project_root(self.cwd, self.project_root_markers)

    def folders_root_to_cwd(self) -> list[Path]:
        """Every folder from the project root down to the cwd, root first."""
        return folders_between(self.project_root, self.cwd if self.cwd.is_dir() else self.cwd.parent)


def current_folder() -> Path:
    """The process's current folder (raises ``FileAccessError`` when it is gone)."""
    try:
        return Path.cwd()
    except OSError as exc:
        shell = os.environ.get("PWD", "")
        named = f" ({shell})" if shell else ""
        if isinstance(exc, FileNotFoundError):
            message = f"the current folder{named} no longer exists"
        else:
            message = f"the current folder{named} cannot be read: {reason(exc)}"
        raise FileAccessError(
            message, hint="cd to another folder and run the command again", code="SS006"
        ) from exc


def folders_between(root: Path, cwd: Path) -> list[Path]:
    """``root``, then each folder below it down to ``cwd``; from the filesystem root down when
    ``cwd`` is not inside ``root``."""
    chain = [cwd]
    while chain[-1] != root and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def find_project_root(cwd: Path, markers: tuple[str, ...] = DEFAULT_PROJECT_ROOT_MARKERS) -> Path:
    """The nearest ancestor of ``cwd`` (itself included) holding a marker; ``cwd`` if none.

    Like Codex: a file or folder named ``.git`` counts; an empty marker list means the cwd.
    """
    start = cwd if cwd.is_dir() else cwd.parent
    if not markers:
        return start
    names = [m for m in markers if "\x00" not in m]  # no file can have that name (and stat would raise)
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in names):
            return folder
    return start
