"""The memory project a session's folder belongs to, also once that folder is gone.

A session's transcript names its folder (``cwd``) and, at most, its git branch (Claude Code) or
its branch, commit and remote (Codex); neither names the repository's root or a worktree's main
checkout. So for a folder that no longer exists the project is told from what is left on disk:

1. a main checkout whose git records still name the folder, or one of its parents, as a linked
   worktree (a worktree deleted without ``git worktree remove``, which git keeps a record of
   until ``git worktree prune``): one among ``checkouts`` (the projects known already), or the
   main checkout of the repository holding the nearest folder above it that still exists (a
   worktree made inside its main checkout);
2. else, for a folder in ``<checkout>/.claude/worktrees/<name>`` (where Claude Code makes its
   worktrees: a removed one leaves no git record), that checkout's project;
3. else the folder's own path: nothing left tells where it belonged. A gone folder that is no
   worktree is never filed under the repository around it: a deleted sub-folder of it and a
   deleted clone of another repository that sat in it look the same once gone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.env import find_project_root
from skillshelf.fileio import read_regular_text
from skillshelf.gitrepo import git_root
from skillshelf.memory.layout import memory_project

if TYPE_CHECKING:
    from skillshelf.memory.store import Store

__all__ = ["gone_folder_projects", "session_project", "worktree_owner"]

_GIT_LINK_BYTES = 4096  # a worktree's gitdir file: one path
_MAX_WORKTREES = 1000  # records read per main checkout


def session_project(cwd: Path | None, *, checkouts: Iterable[Path] = ()) -> str:
    """The memory project of a session run in ``cwd`` ("" when it has none): its repository's
    main checkout while the folder exists, else what is left of it tells (module docstring)."""
    if cwd is None:
        return ""
    if cwd.is_dir():
        return str(memory_project(find_project_root(cwd)))
    owner = worktree_owner(cwd, checkouts)
    if owner is None:
        above = _nearest_existing(cwd)
        root = git_root(above) if above is not None else None
        owner = worktree_owner(cwd, [memory_project(root)]) if root is not None else None
    if owner is None:
        owner = _claude_worktree_checkout(cwd)
    return str(owner) if owner is not None else str(cwd)


def gone_folder_projects(
    store: Store, *, queued: Mapping[str, str], checkouts: Sequence[Path] = ()
) -> Callable[[str, str, Path], str]:
    """``project(transcript path, session id, gone folder)`` for one registration: the project
    the hook queue recorded for the transcript while the folder existed, else the one the store
    filed the session under before (unless that was the bare path), else :func:`session_project`
    with ``checkouts`` and the projects the store knows as the main checkouts to ask."""
    known: list[Path] = []

    def project(path: str, session_id: str, cwd: Path) -> str:
        if queued.get(path):
            return queued[path]
        earlier = store.session(session_id)
        if earlier is not None and earlier.cwd == str(cwd) and earlier.project not in ("", str(cwd)):
            return earlier.project
        if not known:
            known.extend(dict.fromkeys([*checkouts, *map(Path, store.session_projects())]))
        return session_project(cwd, checkouts=known)

    return project


def worktree_owner(folder: Path, checkouts: Iterable[Path]) -> Path | None:
    """The first of ``checkouts`` whose ``.git/worktrees/*/gitdir`` records name ``folder`` or
    a folder above it as a linked worktree's root, else None."""
    wanted = {os.path.normpath(p / ".git") for p in (folder, *folder.parents)}
    for checkout in dict.fromkeys(checkouts):
        if any(back in wanted for back in _worktree_records(checkout)):
            return checkout
    return None


def _worktree_records(checkout: Path) -> list[str]:
    """The ``<worktree>/.git`` paths the main checkout's git records name (unreadable ones left out)."""
    try:
        names = sorted(os.listdir(checkout / ".git" / "worktrees"))[:_MAX_WORKTREES]
    except (OSError, ValueError):
        return []
    records = []
    for name in names:
        try:
            text = read_regular_text(checkout / ".git" / "worktrees" / name / "gitdir", limit=_GIT_LINK_BYTES)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if text.strip():
            records.append(os.path.normpath(checkout / ".git" / "worktrees" / name / text.strip()))
    return records


_CLAUDE_WORKTREES = (".claude", "worktrees")


def _claude_worktree_checkout(folder: Path) -> Path | None:
    """The project of the checkout whose ``.claude/worktrees/<name>`` holds ``folder`` (the
    innermost such checkout that is still a git repository's root), else None."""
    parts = folder.parts
    for at in range(len(parts) - 3, 0, -1):
        if parts[at : at + 2] != _CLAUDE_WORKTREES:
            continue
        checkout = Path(*parts[:at])
        if git_root(checkout) == checkout:
            return memory_project(checkout)
    return None


def _nearest_existing(folder: Path) -> Path | None:
    """The nearest folder above ``folder`` that exists (None when even the root cannot be read)."""
    for parent in folder.parents:
        try:
            if parent.is_dir():
                return parent
        except (OSError, ValueError):
            continue
    return None
