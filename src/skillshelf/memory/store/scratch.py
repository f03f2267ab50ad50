"""A dry run's store on PostgreSQL: an in-memory SQLite copy of the database's rows.

A dry run registers the transcripts it reads, so that it shows the prompts a run would send for
sessions it has not seen before. On SQLite it does so in an in-memory copy of the file; a
PostgreSQL database is read here in one read-only snapshot into such a copy, so the server gets
no write, no schema (an empty database stays empty) and no row lock that could hold up the
workers running at the same time.
"""

from __future__ import annotations

import time

from skillshelf.errors import StoreError
from skillshelf.memory.store.base import Tx
from skillshelf.memory.store.schema import SCHEMA_VERSION
from skillshelf.memory.store.sqlite import SqliteStore

__all__ = ["COPIED_TABLES", "postgres_scratch"]

COPIED_TABLES = ("sessions", "stage1_outputs", "jobs", "skipped_copies")
"""What a dry run reads, parents before children (the run log is not needed)."""


def _schema_version(tx: Tx, url: str) -> int:
    """The database's schema version (0 with no schema), refused when newer than known."""
    if tx.execute("SELECT to_regclass('memory_schema')")[0][0] is None:
        return 0
    current = int(tx.execute("SELECT COALESCE(MAX(version), 0) FROM memory_schema")[0][0])
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"the memory database {url} has schema version {current}, newer than {SCHEMA_VERSION}",
            hint="upgrade skillshelf, or point --db at another database",
            code="ME011",
        )
    return current


def _columns(tx: Tx, table: str) -> list[str]:
    rows = tx.execute(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
        (table,),
    )
    return [str(r[0]) for r in rows]


def _copy_rows(source: Tx, target: Tx, table: str, known: list[str]) -> int:
    """Copy ``table``'s rows, in the columns both databases have; returns how many."""
    columns = [c for c in _columns(source, table) if c in known]
    if not columns:  # a table of a later migration than the database's
        return 0
    names = ", ".join(columns)
    marks = ", ".join("?" * len(columns))
    rows = source.execute(f"SELECT {names} FROM {table}")
    for row in rows:
        target.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", row)
    return len(rows)


def postgres_scratch(url: str) -> SqliteStore:
    """An in-memory store holding the rows of the PostgreSQL database at ``url``, at the current
    schema version; the server is only read."""
    from skillshelf.memory.store.postgres import PostgresStore

    scratch = SqliteStore.blank("")
    try:
        scratch.migrate(int(time.time() * 1000))
        with PostgresStore(url) as source:
            scratch.url = source.url
            with source.snapshot() as tx, scratch.transaction() as out:
                if _schema_version(tx, source.url):
                    for table in COPIED_TABLES:
                        _copy_rows(tx, out, table, _columns_of_scratch(out, table))
    except BaseException:
        scratch.close()
        raise
    return scratch


def _columns_of_scratch(tx: Tx, table: str) -> list[str]:
    return [str(r[1]) for r in tx.execute(f"PRAGMA table_info({table})")]
