"""The PostgreSQL store when the server ends its connection (as a restart does): opened again
for the next unit, and a lost unit's job given back by the run."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.errors import StoreError
from skillshelf.memory.run_report import RunOptions
from skillshelf.memory.service import run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from skillshelf.memory.store.postgres import PostgresStore


def _terminate(url: str, pid: int) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _backend_pid(store: PostgresStore) -> int:
    with store.transaction() as tx:
        return int(tx.execute("SELECT pg_backend_pid()")[0][0])


def test_a_connection_ended_between_units_is_opened_again(pg_url: str) -> None:
    with PostgresStore(pg_url, reconnect_delay_s=0.01) as store:
        first = _backend_pid(store)
        _terminate(pg_url, first)
        assert _backend_pid(store) != first


def test_a_unit_cut_by_a_lost_connection_fails_and_the_next_unit_works(pg_url: str) -> None:
    with PostgresStore(pg_url, reconnect_delay_s=0.01) as store:
        with pytest.raises(StoreError) as caught, store.transaction() as tx:
            tx.execute("CREATE TABLE t (x int)")
            _terminate(pg_url, int(tx.execute("SELECT pg_backend_pid()")[0][0]))
            tx.execute("INSERT INTO t VALUES (1)")
        assert caught.value.code == "ME013"
        with store.transaction() as tx:  # the lost unit was rolled back whole
            assert tx.execute("SELECT to_regclass('t')") == [(None,)]


def test_a_server_that_stays_away_ends_in_me013(pg_url: str) -> None:
    import psycopg

    with PostgresStore(pg_url, reconnects=2, reconnect_delay_s=0.01) as store:
        _terminate(pg_url, _backend_pid(store))
        store._connect = lambda: psycopg.connect("postgresql://nobody@127.0.0.1:1/none", connect_timeout=2)
        with pytest.raises(StoreError) as caught:
            _backend_pid(store)
        assert caught.value.code == "ME013"


def test_a_job_whose_outcome_could_not_be_saved_is_given_back(
    isolated_home: Any, tmp_path: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = isolated_home.home / "p"
    project.mkdir()
    folder = tmp_path / "t"
    write_skillshelf_transcript(
        folder / "x.jsonl", session_id="x1", cwd=project, task="hello there", mtime=time.time() - 9 * 3600
    )
    db = f"sqlite:///{tmp_path / 'state.sqlite'}"

    def lost(self: Any, *args: Any, **kwargs: Any) -> bool:
        raise StoreError("memory database error: connection lost", code="ME013")

    monkeypatch.setattr("skillshelf.memory.store.base.BaseStore.mark_stage1_succeeded", lost)
    settings = MemorySettings().with_overrides(
        extract_model="openai:m", consolidation_model="openai:m", base_url=scripted_model.url + "/v1"
    )
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    with pytest.raises(StoreError):
        run_memory(env, settings, RunOptions(sessions=(folder,), db=db, phase="1"))
    monkeypatch.undo()
    with open_store(db) as store:
        job = store.job("memory_stage1", "x1")
    assert job is not None and job["ownership_token"] is None and job["status"] != "running"
