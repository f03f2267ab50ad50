"""Reset: delete extracted memories and empty memory folders (never through a symlink)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import PathEscapeError
from skillshelf.memory.layout import memories_root, project_scope, scope_dir
from skillshelf.memory.store import open_store

__all__ = ["ResetResult", "clear_folder", "reset_memories"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResetResult:
    rows: int
    folders: tuple[str, ...]
    scope: str

    def to_dict(self) -> dict[str, object]:
        return {"rows": self.rows, "folders": list(self.folders), "scope": self.scope}


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


def reset_memories(env: Env, *, db: str | None = None, all_scopes: bool = False) -> ResetResult:
    """Delete this project's memories (or every scope's): database rows, jobs and folders."""
    data = env.dirs.data
    scope = project_scope(env.project_root)
    with open_store(db, data_dir=data) as store:
        rows = store.reset(scope=None if all_scopes else scope)
    if all_scopes:
        root = memories_root(data)
        folders = [p for p in sorted(root.iterdir()) if p.is_dir()] if root.is_dir() else []
    else:
        folders = [scope_dir(data, scope)]
    cleared = tuple(str(f) for f in folders if clear_folder(f))
    return ResetResult(rows=rows, folders=cleared, scope="all" if all_scopes else scope)
