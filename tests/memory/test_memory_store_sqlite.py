"""The SQLite backend with two processes on one file: a transaction that reads then writes holds
the write lock from its start, and a busy database is never reported as a damaged one."""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from skillshelf.errors import StoreError
from skillshelf.memory.store import STAGE1, SessionRow, Store, open_store
from skillshelf.memory.store import sqlite as backend
from skillshelf.memory.store.base import ClaimLimits

NOW = 10**12


def _store_with_an_output(db: Path) -> Store:
    store = open_store(str(db))
    store.register_sessions(
        [
            SessionRow(
                id="s1",
                source="codex",
                path="/t/s1.jsonl",
                cwd="/p",
                project="/p",
                updated_at_ms=1,
                first_user_message="task",
            )
        ],
        NOW,
    )
    return store


def _prune(store: Store) -> object:
    return store.prune(max_unused_ms=0, now_ms=NOW)


def _fail_a_claimed_job(store: Store) -> object:
    (claim,) = store.claim_stage1(
        worker_id="w",
        now_ms=NOW,
        lease_ms=1000,
        limits=ClaimLimits(min_idle_ms=0, max_age_ms=NOW, running_cap=10),
        limit=1,
    )
    return store.mark_failed(STAGE1, "s1", claim.token, reason="x", now_ms=NOW, retry_base_ms=1)


@pytest.mark.parametrize(
    ("operation", "first_read"),
    [(_prune, "SELECT o.session_id"), (_fail_a_claimed_job, "SELECT retry_remaining")],
)
def test_a_read_then_write_transaction_is_not_broken_by_another_process_writing_meanwhile(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    operation: Callable[[Store], object],
    first_read: str,
) -> None:
    db = tmp_path / "state.sqlite"
    store = _store_with_an_output(db)
    store.execute_for_tests(
        "INSERT INTO stage1_outputs (session_id, scope, source_updated_at_ms, raw_memory, "
        "rollout_summary, generated_at_ms) VALUES ('s1', '/p', 0, 'm', 's', 1)"
    )
    other = backend.SqliteStore(db, timeout_s=0.05)  # a second process on the same file
    seen: list[str] = []
    execute = backend._SqliteTx.execute

    def racing(self: Any, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        rows = execute(self, sql, params)
        if self.conn is not other._conn and sql.lstrip().startswith(first_read):
            try:  # the other process writes between this transaction's read and its write
                other.record_run("r", worker_id="o", started_ms=NOW, finished_ms=NOW, report="{}")
                seen.append("written")
            except StoreError as exc:
                seen.append(f"{exc.code}: {exc.hint}")
        return rows

    monkeypatch.setattr(backend._SqliteTx, "execute", racing)
    try:
        assert operation(store)
        (waited,) = seen
        assert waited.startswith("ME012") and "damaged" not in waited  # it waits its turn; a retry works
        monkeypatch.undo()
        other.record_run("r", worker_id="o", started_ms=NOW, finished_ms=NOW, report="{}")
    finally:
        other.close()
        store.close()


def test_a_locked_database_is_a_retryable_error_never_a_damaged_one(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    store = _store_with_an_output(db)
    other = backend.SqliteStore(db, timeout_s=0.05)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        for write in (
            lambda: other.record_run("r", worker_id="o", started_ms=NOW, finished_ms=NOW, report="{}"),
            lambda: other.forget("s1", now_ms=NOW),
        ):
            with pytest.raises(StoreError) as info:
                write()
            assert info.value.code == "ME012" and "damaged" not in (info.value.hint or "")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        other.close()
        store.close()


@pytest.mark.parametrize("begin", ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"])
def test_opening_a_current_database_reads_it_while_another_process_writes(tmp_path: Path, begin: str) -> None:
    db = tmp_path / "state.sqlite"
    _store_with_an_output(db).close()  # a session, no output yet
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        writer.execute(begin)
        writer.execute("UPDATE sessions SET cwd = '/elsewhere'")
        store = backend.SqliteStore(db, timeout_s=0.2, create=False)
        try:
            assert store.migrate(NOW) == store.schema_version()
            assert store.outputs() == [] and store.scopes() == []
        finally:
            store.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def _refuse_writes(monkeypatch: pytest.MonkeyPatch, errno_code: int) -> None:
    """The first write of an open (the file made private) fails as on a read-only mount."""

    def refuse(path: Path, *, own_folder: bool) -> None:
        raise OSError(errno_code, os.strerror(errno_code), str(path))

    monkeypatch.setattr(backend, "_private_database", refuse)


@pytest.mark.parametrize("errno_code", [errno.EROFS, errno.EACCES])
def test_a_database_that_cannot_be_written_is_still_read_by_the_commands_that_only_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, errno_code: int
) -> None:
    db = tmp_path / "state.sqlite"
    _store_with_an_output(db).close()
    before = db.read_bytes()
    _refuse_writes(monkeypatch, errno_code)
    with open_store(str(db), create=False, read_only=True) as store:
        assert store.session("s1") is not None
    assert db.read_bytes() == before
    with pytest.raises(StoreError) as caught:  # a command that writes says why it cannot
        open_store(str(db), create=False)
    assert caught.value.code == "ME010"


def test_a_read_only_open_does_not_hide_a_database_that_is_damaged(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    db.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError) as caught:
        open_store(str(db), create=False, read_only=True)
    assert caught.value.code == "ME010" and "damaged" in caught.value.hint
