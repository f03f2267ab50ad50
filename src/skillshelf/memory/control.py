"""Control: forget one session's memory, reset (delete extracted memories, this project's jobs,
and empty memory folders, never through a symlink), recover (free the leases of workers that
are gone) and prune the scopes ``memory.scope`` no longer writes (after a switch between
``project`` and ``global``, the other kind's memories are kept until ``memory prune
--other-scopes`` deletes them). A folder that records another memory database
(:mod:`.origin`) is never emptied by a reset or prune of this one: that database's memories
are not deleted either."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import NotFoundError, PathEscapeError
from skillshelf.memory.layout import (
    GLOBAL_SCOPE,
    is_other_scope,
    memories_root,
    memory_project,
    project_scope,
    scope_dir,
)
from skillshelf.memory.leases import LeaseVerdict, free_leases, judge_leases
from skillshelf.memory.origin import DatabaseIdentity, recorded_database, store_identity
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store

__all__ = [
    "RecoverResult",
    "ResetResult",
    "clear_folder",
    "forget_session",
    "prune_other_scopes",
    "recover_leases",
    "reset_memories",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResetResult:
    rows: int
    folders: tuple[str, ...]
    scope: str
    jobs: int = 0  # extraction jobs of this project's sessions dropped (stuck ones too)
    kept: tuple[str, ...] = ()  # folders left as they were: another memory database consolidated them

    def to_dict(self) -> dict[str, object]:
        return {
            "rows": self.rows,
            "folders": list(self.folders),
            "scope": self.scope,
            "jobs": self.jobs,
            "kept": list(self.kept),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RecoverResult:
    """Leases freed (their holders are gone) and those left to live holders."""

    freed: tuple[LeaseVerdict, ...]
    live: tuple[LeaseVerdict, ...]
    now_ms: int

    def to_dict(self) -> dict[str, object]:
        return {
            "freed": [v.to_dict(self.now_ms) for v in self.freed],
            "live": [v.to_dict(self.now_ms) for v in self.live],
        }


def recover_leases(env: Env, settings: MemorySettings, *, db: str | None, now_ms: int) -> RecoverResult:
    """Free every lease whose holder is gone (stuck, silent or expired; see ``memory.leases``)."""
    with open_store(db, data_dir=env.dirs.data, create=False) as store:
        verdicts = judge_leases(store, settings, now_ms=now_ms)
        freed = free_leases(store, verdicts, now_ms=now_ms)
    return RecoverResult(
        freed=tuple(freed), live=tuple(v for v in verdicts if v.state == "live"), now_ms=now_ms
    )


def forget_session(env: Env, session_id: str, *, db: str | None = None) -> str:
    """Scrub ``session_id``'s memory now and never extract it again; the next consolidation
    drops it from the memory folder. Returns its scope (empty when it had no memory yet).

    Raises:
        NotFoundError: the memory database does not know the session (``ME404``).
    """
    with open_store(db, data_dir=env.dirs.data, create=False) as store:
        scope = store.forget(session_id, now_ms=int(time.time() * 1000))
    if scope is None:
        raise NotFoundError(
            f"no session {session_id!r} in the memory database",
            code="ME404",
            hint="`skillshelf memory status` lists what is known",
        )
    return scope


def clear_folder(folder: Path) -> bool:
    """Empty ``folder`` (kept); refuses a symlinked folder. False when it did not exist."""
    if folder.is_symlink():
        raise PathEscapeError(
            f"memory folder {folder} is a symlink; refusing to empty it",
            path=folder,
            hint="remove the symlink yourself if you want it gone",
        )
    if not folder.is_dir():
        return False
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    return True


def _clear_ours(folders: list[Path], ours: DatabaseIdentity) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Empty the ``folders`` that record ``ours`` or no database; (emptied, kept: another's)."""
    cleared: list[str] = []
    kept: list[str] = []
    for folder in folders:
        recorded = recorded_database(folder)
        if recorded is not None and recorded.id != ours.id:
            kept.append(str(folder))
        elif clear_folder(folder):
            cleared.append(str(folder))
    return tuple(cleared), tuple(kept)


def reset_memories(
    env: Env, *, db: str | None = None, all_scopes: bool = False, setting: str = "project"
) -> ResetResult:
    """Delete the memories of the scope ``memory.scope = setting`` writes here (this project's,
    or the global one), or every scope's: database rows, jobs (those of the project's sessions
    too, stuck ones included, so they start afresh) and folders."""
    data = env.dirs.data
    project = memory_project(env.project_root)
    scope = GLOBAL_SCOPE if setting == "global" else project_scope(project)
    jobs = 0
    with open_store(db, data_dir=data, create=False) as store:
        ours = store_identity(store, now_ms=int(time.time() * 1000))
        rows = store.reset(scope=None if all_scopes else scope)
        if not all_scopes:
            jobs = store.drop_stage1_jobs(store.project_session_ids(str(project)))
    if all_scopes:
        root = memories_root(data)
        folders = [p for p in sorted(root.iterdir()) if p.is_dir()] if root.is_dir() else []
    else:
        folders = [scope_dir(data, scope)]
    cleared, kept = _clear_ours(folders, ours)
    return ResetResult(rows=rows, folders=cleared, scope="all" if all_scopes else scope, jobs=jobs, kept=kept)


def prune_other_scopes(env: Env, setting: str, *, db: str | None = None) -> ResetResult:
    """Delete the memories, consolidation jobs and folder contents of every scope that
    ``memory.scope = setting`` does not write (see :func:`is_other_scope`)."""
    data = env.dirs.data
    with open_store(db, data_dir=data, create=False) as store:
        ours = store_identity(store, now_ms=int(time.time() * 1000))
        scopes = [s for s in store.scopes() if is_other_scope(s, setting)]
        rows = sum(store.reset(scope=s) for s in scopes)
    cleared, kept = _clear_ours([scope_dir(data, s) for s in scopes], ours)
    return ResetResult(rows=rows, folders=cleared, scope=", ".join(scopes), kept=kept)
