"""Which project ``.codex`` folders Codex layers over its own ``config.toml``, and which folders
it trusts: the folders from the cwd up to the config root (:func:`codex_config_folders`), the
trust a ``[projects]`` entry gives (:func:`codex_trust`, :func:`codex_trust_root`) and the
trusted project layers (:func:`codex_project_layers`). Below the readers of Codex's settings
(:mod:`skillshelf.skills.codex_config`), which take a trusted project's settings from here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from skillshelf.env import Env
from skillshelf.fileio import resolve_path
from skillshelf.gitrepo import git_root, main_checkout

__all__ = [
    "TrustEntries",
    "canonical_cwd",
    "codex_config_folders",
    "codex_project_layers",
    "codex_trust",
    "codex_trust_root",
    "resolved",
]


class TrustEntries(Protocol):
    """The ``[projects]`` entries of Codex's ``config.toml``: the folders it trusts and those it
    does not (:class:`~skillshelf.skills.codex_config.CodexSettings` has them)."""

    @property
    def trusted_projects(self) -> tuple[str, ...]: ...

    @property
    def untrusted_projects(self) -> tuple[str, ...]: ...


def canonical_cwd(env: Env) -> Path:
    """The cwd folder as Codex walks it: symlinks resolved (the cwd's folder when it is a file)."""
    cwd = Path(os.path.realpath(env.cwd))
    return cwd if cwd.is_dir() or not cwd.exists() else cwd.parent


def _git_usable(marker: str) -> bool:
    """A ``.git`` entry Codex takes as a repository: a file, or a folder holding ``HEAD``."""
    if os.path.isfile(marker):
        return True
    return os.path.isdir(marker) and os.path.exists(os.path.join(marker, "HEAD"))


def _marks_config_root(folder: str, markers: Sequence[str]) -> bool:
    for marker in markers:
        path = os.path.join(folder, marker)
        if os.path.basename(os.path.normpath(marker)) == ".git":
            if _git_usable(path):
                return True
        elif os.path.exists(path):
            return True
    return False


def codex_config_folders(env: Env) -> list[Path]:
    """Folders whose ``.codex`` Codex reads, nearest first: the cwd up to the config root.

    See the module docstring for what makes a config root; only the cwd when there is none.
    """
    cwd = canonical_cwd(env)
    markers = [m for m in env.project_root_markers if "\x00" not in m]
    chain: list[Path] = []
    for folder in (cwd, *cwd.parents):
        chain.append(folder)
        if markers and _marks_config_root(str(folder), markers):
            return chain
    return [cwd]


def codex_project_layers(env: Env, project_folders: Sequence[Path], user: TrustEntries) -> list[Path]:
    """The project ``.codex`` folders whose ``config.toml`` Codex layers over the user's, the
    root's first (the nearest wins): each of ``project_folders`` (nearest first, the project
    root by ``project_root_markers`` last) that Codex trusts: its own ``[projects]`` entry,
    else the project root's, else the git trust root's (:func:`codex_trust_root` of the cwd).
    A ``.codex`` that is ``$CODEX_HOME`` is the user's own, not a project layer."""
    if not project_folders:
        return []
    own = resolved(env.codex_home)
    roots = (project_folders[-1], codex_trust_root(project_folders[0]))
    return [
        folder / ".codex"
        for folder in reversed(project_folders)
        if codex_trust(user, folder, *roots) is True and resolved(folder / ".codex") != own
    ]


def codex_trust(user: TrustEntries, folder: Path, *roots: Path | None) -> bool | None:
    """Whether Codex trusts ``folder``, as Codex 0.171 decides it (checked with codex-oracle):
    the ``[projects."PATH"]`` entry of the folder itself, else the first of ``roots`` (``None``
    skipped) that has one; ``None`` when none has one. True for ``trust_level = "trusted"``,
    False for ``"untrusted"``. Whether a cwd's project AGENTS.md is read asks the cwd, then its
    :func:`codex_trust_root`; a project ``.codex`` layer also asks the project root between.

    An entry names a folder by its real path, letter for letter: Codex compares the entry's text
    with the folder's path, its links resolved, and normalises neither side further, so an
    entry with a trailing slash, a ``sub/..``, a linked spelling or other letter case matches
    nothing (the folder itself may be reached through links)."""
    for candidate in (folder, *roots):
        if candidate is None:
            continue
        real = str(resolved(candidate))
        if real in user.trusted_projects:
            return True
        if real in user.untrusted_projects:
            return False
    return None


def codex_trust_root(folder: Path) -> Path | None:
    """The folder whose ``[projects]`` entry Codex 0.171 reads for the repository holding
    ``folder``: the repository's root (the nearest ``.git``), the main checkout for a linked
    worktree; ``None`` outside git and for any other ``.git`` file (a submodule's)."""
    root = git_root(folder)
    if root is None:
        return None
    if (root / ".git").is_dir():
        return root
    main = main_checkout(root)
    return main if main != root and (main / ".git").is_dir() else None


def resolved(path: Path) -> Path:
    """``path`` with its links resolved, or as it is when that fails (a loop, no permission)."""
    try:
        return resolve_path(path)
    except OSError:
        return path
