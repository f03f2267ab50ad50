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

__all__ = [
    "CLAUDE_MANAGED_DIR",
    "Env",
    "current_folder",
    "find_project_root",
    "folders_between",
    "home_folder",
]

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
        home = home_folder(environ)
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


def home_folder(environ: Mapping[str, str]) -> Path:
    """``$HOME``; when it is unset or empty, the user's home in the password database (as
    ``Path.home()`` does for an unset ``HOME``: for an empty one it gives ``/``)."""
    if text := environ.get("HOME", ""):
        return Path(text)
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir or Path.home())
    except (ImportError, KeyError):  # no password database (Windows), or no entry for this user
        return Path.home()


def current_folder() -> Path:
    """The process's current folder (raises ``FileAccessError`` when it is gone, or cannot be
    searched: then no file in it can be read)."""
    try:
        cwd = Path.cwd()
    except OSError as exc:
        shell = os.environ.get("PWD", "")  # the shell's word for it: the process no longer has one
        named = f" ({shell})" if shell else ""
        gone = isinstance(exc, FileNotFoundError)
        message = f"the current folder{named} " + (
            "no longer exists" if gone else f"cannot be read: {reason(exc)}"
        )
        raise FileAccessError(message, hint=_CD_ELSEWHERE, code="SS006") from exc
    try:
        os.stat(os.path.join(cwd, os.curdir))  # a lookup in it: needs search permission
    except OSError as exc:
        raise FileAccessError(
            f"the current folder ({cwd}) cannot be searched: {reason(exc)}", hint=_CD_ELSEWHERE, code="SS006"
        ) from exc
    return cwd


_CD_ELSEWHERE = "cd to another folder and run the command again"


def folders_between(root: Path, cwd: Path) -> list[Path]:
    """``root``, then each folder below it down to ``cwd``; from the filesystem root down when
    ``cwd`` is not inside ``root``."""
    chain = [cwd]
    while chain[-1] != root and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def find_project_root(cwd: Path, markers: tuple[str, ...] = DEFAULT_PROJECT_ROOT_MARKERS) -> Path:
    """The nearest ancestor of ``cwd`` (itself included) holding a marker; ``cwd`` if none.

    Like Codex: a file or folder named ``.git`` counts; an empty marker list means the cwd. A
    folder above ``cwd`` that cannot be searched holds none (Codex's ``Path::exists`` is false
    on any error); ``cwd`` itself raises ``FileAccessError`` (``SS006``): nothing in it can be read.
    """
    start = cwd if cwd.is_dir() else cwd.parent
    if not markers:
        return start
    names = [m for m in markers if "\x00" not in m]  # no file can have that name (and stat would raise)
    for folder in (start, *start.parents):
        if any(_marker_in(folder, marker, start) for marker in names):
            return folder
    return start


def _marker_in(folder: Path, marker: str, start: Path) -> bool:
    """Whether ``folder/marker`` exists (stat follows links, as ``Path.exists``); on every
    Python the same: only a denied search of ``start`` raises."""
    try:
        os.stat(folder / marker)
    except PermissionError as exc:
        if folder != start:
            return False
        raise FileAccessError(
            f"the folder {folder} cannot be searched: {reason(exc)}",
            hint="cd to a folder you may search (or give this one search permission: chmod u+x) "
            "and run the command again",
            code="SS006",
        ) from exc
    except (OSError, ValueError):  # absent, a link loop, a name too long: no marker here
        return False
    return True
