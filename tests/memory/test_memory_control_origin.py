"""`memory reset` and `memory prune --other-scopes` against one database never empty a memory
folder another database consolidated (that database's memories are not deleted either); a
folder that records this database, or none, is emptied as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillshelf.env import Env
from skillshelf.memory.control import prune_other_scopes, reset_memories
from skillshelf.memory.layout import GLOBAL_SCOPE, memories_root, scope_dir
from skillshelf.memory.origin import store_identity, writing
from skillshelf.memory.store import open_store

NOW = 1_000_000


def _folder(path: Path, db: str | None, data: Path) -> Path:
    """A memory folder holding MEMORY.md, recorded as consolidated from ``db`` (None: recorded
    as no database's, as before the record existed)."""
    path.mkdir(parents=True, exist_ok=True)
    if db is not None:
        with open_store(db, data_dir=data) as store, writing(path, store_identity(store, now_ms=NOW)):
            pass
    (path / "MEMORY.md").write_text("memory\n", encoding="utf-8")
    return path


def test_reset_of_every_scope_keeps_the_folders_another_database_consolidated(
    isolated_home: Any, tmp_path: Path
) -> None:
    env = Env.from_os()
    data, other = env.dirs.data, str(tmp_path / "other.sqlite")
    root = memories_root(data)
    theirs = _folder(root / "theirs-0123456789", other, data)
    ours = _folder(root / "ours-0123456789", None, data)  # the default database's
    unrecorded = _folder(root / "old-0123456789", None, data)
    with open_store(None, data_dir=data) as store, writing(ours, store_identity(store, now_ms=NOW)):
        pass

    result = reset_memories(env, all_scopes=True)

    assert result.kept == (str(theirs),) and (theirs / "MEMORY.md").is_file()
    assert set(result.folders) == {str(ours), str(unrecorded)}
    assert not (ours / "MEMORY.md").exists() and not (unrecorded / "MEMORY.md").exists()


def test_prune_of_other_scopes_keeps_a_folder_another_database_consolidated(
    isolated_home: Any, tmp_path: Path
) -> None:
    env = Env.from_os()
    data, other = env.dirs.data, str(tmp_path / "other.sqlite")
    with open_store(None, data_dir=data) as store:
        store.enqueue(GLOBAL_SCOPE, NOW)  # the default database knows the global scope
    folder = _folder(scope_dir(data, GLOBAL_SCOPE), other, data)

    result = prune_other_scopes(env, "project")

    assert result.scope == GLOBAL_SCOPE and result.kept == (str(folder),) and result.folders == ()
    assert (folder / "MEMORY.md").is_file()
