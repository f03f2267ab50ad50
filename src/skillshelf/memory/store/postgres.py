"""The server backend: PostgreSQL through psycopg, for many workers on many machines.

Claims lock candidate rows with ``FOR UPDATE OF s SKIP LOCKED``, so concurrent workers take
disjoint sessions without waiting on each other; the job upsert's guard is the second line of
defence. Migrations run under a transaction-scoped advisory lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from skillshelf.errors import StoreError
from skillshelf.memory.store.base import Row, Tx, storable
from skillshelf.memory.store.consolidation import Store

__all__ = ["PostgresStore"]

_MIGRATION_LOCK = 0x5C5E1F  # advisory lock id for schema changes


class _PgTx(Tx):
    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        self.cursor.execute(sql.replace("?", "%s"), storable(params))
        if self.cursor.description is None:
            return []
        return [tuple(r) for r in self.cursor.fetchall()]


def _redacted_url(url: str) -> str:
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(url)


class PostgresStore(Store):
    """The memory store in a PostgreSQL database (``postgresql://user@host/db``)."""

    skip_locked = " FOR UPDATE OF s SKIP LOCKED"

    def __init__(self, url: str, *, connect_timeout_s: int = 10) -> None:
        self.url = _redacted_url(url)
        self._lock = threading.RLock()
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(
                "PostgreSQL support needs psycopg", code="ME014", hint="pip install 'skillshelf[postgres]'"
            ) from exc
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout_s)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to {self.url}: {str(exc).strip()}",
                code="ME010",
                hint="check the URL, that the server runs and that the database exists",
            ) from exc

    @contextmanager
    def transaction(self, *, claim: bool = False) -> Iterator[Tx]:
        import psycopg

        with self._lock:
            try:
                with self._conn.transaction(), self._conn.cursor() as cursor:
                    yield _PgTx(cursor)
            except psycopg.Error as exc:
                raise StoreError(
                    f"memory database error: {str(exc).strip()}",
                    code="ME013",
                    hint="check the PostgreSQL server and run `skillshelf memory status`",
                ) from exc

    @contextmanager
    def snapshot(self) -> Iterator[Tx]:
        """A read-only transaction that sees one moment of the database (repeatable read)."""
        with self.transaction() as tx:
            tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield tx

    def _lock_for_migration(self, tx: Tx) -> None:
        tx.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()
