"""The memory database's own id (store/identity.py): made once, kept in the database, the same
whatever path or URL opens it, another for another database."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.memory.store import database_id, open_store

NOW = 1_000_000


def test_a_database_keeps_one_id_whatever_names_it_and_another_database_has_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.sqlite"
    with open_store(str(path)) as store:
        made = database_id(store, now_ms=NOW)
        assert database_id(store, now_ms=NOW + 1) == made
    moved = tmp_path / "moved" / "state.sqlite"
    moved.parent.mkdir()
    os.rename(path, moved)
    monkeypatch.chdir(moved.parent)
    for url in (f"sqlite:///{moved}", "sqlite:///./state.sqlite", "state.sqlite"):
        with open_store(url) as store:
            assert database_id(store, now_ms=NOW) == made
    with open_store(str(tmp_path / "other.sqlite")) as other:
        assert database_id(other, now_ms=NOW) not in ("", made)


def test_a_sqlite_databases_label_names_its_file_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with open_store("./state.sqlite") as store:
        assert store.label == f"the SQLite file {tmp_path / 'state.sqlite'}"
