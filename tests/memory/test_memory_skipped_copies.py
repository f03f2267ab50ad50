"""Skipped transcript copies (``ME107``) are reported once per copy, on SQLite and PostgreSQL:
the store remembers each copy it named (``skipped_copies``, migration 4), names it again only
when another file is kept in its place, and forgets a copy that is used again. A database made
before that migration is brought up to it with its sessions kept, and a dry run reads one."""

from __future__ import annotations

from pathlib import Path

from skillshelf.memory.store import SessionRow, Store, open_store
from skillshelf.memory.store.schema import MIGRATIONS, SCHEMA_VERSION
from skillshelf.memory.store.scratch import postgres_scratch


def _row(path: str, *, mtime_ns: int, session_id: str = "same") -> SessionRow:
    return SessionRow(
        id=session_id,
        source="skillshelf",
        path=path,
        cwd="/p",
        project="/p",
        updated_at_ms=mtime_ns // 1_000_000,
        first_user_message="task",
        file_size=100,
        file_mtime_ns=mtime_ns,
    )


def _clashes(store: Store, rows: list[SessionRow], now_ms: int) -> list[tuple[str, str]]:
    store.register_sessions(rows, now_ms)
    return [(row.path, kept) for row, kept in store.new_id_clashes(rows, now_ms)]


def test_a_skipped_copy_is_named_once_while_both_copies_stay(store_url: str) -> None:
    older, newer = _row("/t/a.jsonl", mtime_ns=1_000), _row("/t/b.jsonl", mtime_ns=2_000)
    with open_store(store_url) as store:
        assert _clashes(store, [older, newer], 1) == [("/t/a.jsonl", "/t/b.jsonl")]
        assert _clashes(store, [older], 2) == []  # read again in a later run: said already
        assert _clashes(store, [older], 3) == []


def test_a_skipped_copy_is_named_again_when_another_file_is_kept(store_url: str) -> None:
    older, newer, newest = (_row(f"/t/{n}.jsonl", mtime_ns=t) for n, t in (("a", 1), ("b", 2), ("c", 3)))
    with open_store(store_url) as store:
        assert _clashes(store, [older, newer], 1) == [("/t/a.jsonl", "/t/b.jsonl")]
        assert _clashes(store, [older, newest], 2) == [("/t/a.jsonl", "/t/c.jsonl")]


def test_a_copy_used_again_and_skipped_later_is_named_again(store_url: str) -> None:
    first, second = _row("/t/a.jsonl", mtime_ns=1), _row("/t/b.jsonl", mtime_ns=2)
    with open_store(store_url) as store:
        assert _clashes(store, [first, second], 1) == [("/t/a.jsonl", "/t/b.jsonl")]
        grown = _row("/t/a.jsonl", mtime_ns=3)  # the skipped copy grew: it is the newer one now
        assert _clashes(store, [grown], 2) == []
        assert _clashes(store, [_row("/t/b.jsonl", mtime_ns=2)], 3) == [("/t/b.jsonl", "/t/a.jsonl")]
        assert _clashes(store, [_row("/t/a.jsonl", mtime_ns=1)], 4) == []  # its own file: no clash
        assert _clashes(store, [_row("/t/b.jsonl", mtime_ns=2)], 5) == []


def _schema_3(url: str) -> None:
    """A database as the version before ``skipped_copies`` left it, with one session."""
    with open_store(url, migrate=False) as store, store.transaction() as tx:
        tx.execute(
            "CREATE TABLE memory_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at_ms BIGINT NOT NULL)"
        )
        for migration in MIGRATIONS[:3]:
            for statement in migration.statements:
                tx.execute(statement)
            tx.execute(
                "INSERT INTO memory_schema (version, name, applied_at_ms) VALUES (?, ?, 1)",
                (migration.version, migration.name),
            )
    with open_store(url, migrate=False) as store:
        store.register_sessions([_row("/t/b.jsonl", mtime_ns=2)], 1)


def test_a_database_of_schema_3_is_migrated_with_its_sessions_kept(store_url: str) -> None:
    _schema_3(store_url)
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
        kept = store.session("same")
        assert kept is not None and kept.path == "/t/b.jsonl"
        assert _clashes(store, [_row("/t/a.jsonl", mtime_ns=1)], 2) == [("/t/a.jsonl", "/t/b.jsonl")]
        assert _clashes(store, [_row("/t/a.jsonl", mtime_ns=1)], 3) == []


def test_a_dry_run_copy_of_a_postgres_database_of_schema_3_reads_its_sessions(pg_url: str) -> None:
    _schema_3(pg_url)
    with postgres_scratch(pg_url) as scratch:
        kept = scratch.session("same")
        assert kept is not None and kept.path == "/t/b.jsonl"


def test_a_dry_run_copy_of_a_postgres_database_keeps_the_copies_already_named(pg_url: str) -> None:
    with open_store(pg_url) as store:
        assert _clashes(store, [_row("/t/a.jsonl", mtime_ns=1), _row("/t/b.jsonl", mtime_ns=2)], 1)
    with postgres_scratch(pg_url) as scratch:
        assert _clashes(scratch, [_row("/t/a.jsonl", mtime_ns=1)], 2) == []


def test_a_dry_run_copy_of_a_sqlite_file_keeps_the_copies_already_named(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    with open_store(url) as store:
        assert _clashes(store, [_row("/t/a.jsonl", mtime_ns=1), _row("/t/b.jsonl", mtime_ns=2)], 1)
    with open_store(url, scratch=True) as scratch:
        assert _clashes(scratch, [_row("/t/a.jsonl", mtime_ns=1)], 2) == []
