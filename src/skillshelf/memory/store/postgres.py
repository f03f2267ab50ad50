"""The server backend: PostgreSQL through psycopg, for many workers on many machines.

Claims lock candidate rows with ``FOR UPDATE OF s SKIP LOCKED``, so concurrent workers take
disjoint sessions without waiting on each other; the job upsert's guard is the second line of
defence. Migrations run under a transaction-scoped advisory lock.

A connection the server ended (a restart, ``pg_terminate_backend``, a dropped network) is opened
again, a bounded number of times with a growing pause. When it is found gone at a unit's
``BEGIN``, nothing of the unit has run, so the unit goes on over the new connection; when it is
lost inside a unit, the server rolled the unit back whole: the store reconnects for the next
unit and raises ME013 (the caller gives that job up and frees its lease). Once a reconnect has
spent its budget the server is taken as gone: every later unit of the store fails at once with
ME013, never paying the pauses again (a run holds many sessions, each with units of its own:
heartbeats, outcomes, leases given back), so the run stops promptly; the leases it could not give
back are recovered by the next run, as a killed worker's are.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from skillshelf.errors import StoreError
from skillshelf.memory.store.base import Row, Tx, storable
from skillshelf.memory.store.conninfo import is_conninfo, scrubbed_error, shown_database
from skillshelf.memory.store.consolidation import Store

__all__ = ["PostgresStore"]

_MIGRATION_LOCK = 0x5C5E1F  # advisory lock id for schema changes


def _label(conn: Any) -> str:
    """The database ``conn`` is connected to in words: its name, host and port (no user, no
    password, no parameters)."""
    info = conn.info
    return f"the PostgreSQL database {info.dbname} on {info.host}:{info.port}"


class _PgTx(Tx):
    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        self.cursor.execute(sql.replace("?", "%s"), storable(params))
        if self.cursor.description is None:
            return []
        return [tuple(r) for r in self.cursor.fetchall()]


class PostgresStore(Store):
    """The memory store in a PostgreSQL database (``postgresql://user@host/db``, or libpq's
    ``host=... dbname=...`` connection string)."""

    skip_locked = " FOR UPDATE OF s SKIP LOCKED"

    def __init__(
        self,
        url: str,
        *,
        connect_timeout_s: int = 10,
        reconnects: int = 5,
        reconnect_delay_s: float = 0.25,
    ) -> None:
        """``reconnects`` tries to open a lost connection again, the first after
        ``reconnect_delay_s``, each pause twice the one before (5 and 0.25 s: under 8 s in all,
        enough for a server's restart)."""
        self.url = shown_database(url)
        self._scrub: Callable[[str], str] = lambda message: scrubbed_error(message.strip(), url)
        self._lock = threading.RLock()
        self._reconnects = reconnects
        self._reconnect_delay_s = reconnect_delay_s
        self._gone: str | None = None  # why the server is taken as gone, once the budget is spent
        try:
            import psycopg
        except ImportError as exc:
            raise StoreError(
                "PostgreSQL support needs psycopg", code="ME014", hint="pip install 'skillshelf[postgres]'"
            ) from exc

        def connect() -> Any:
            return psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout_s)

        self._connect: Callable[[], Any] = connect
        try:
            self._conn = connect()
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to {self.url}: {self._scrub(str(exc))}",
                code="ME010",
                hint="check the URL, that the server runs and that the database exists"
                + ("; a new SQLite file named like this is written ./NAME" if is_conninfo(url) else ""),
            ) from exc
        self.label = _label(self._conn)

    @contextmanager
    def transaction(self, *, claim: bool = False) -> Iterator[Tx]:
        import psycopg

        with self._lock:
            try:
                with ExitStack() as stack:
                    cursor = self._begin(stack)
                    try:
                        yield _PgTx(cursor)
                    except psycopg.Error:
                        if self._lost():
                            self._reconnect()  # for the next unit; this one was rolled back whole
                        raise
            except psycopg.Error as exc:
                raise StoreError(
                    f"memory database error: {self._scrub(str(exc))}",
                    code="ME013",
                    hint="check the PostgreSQL server and run `skillshelf memory status`",
                ) from exc

    def _begin(self, stack: ExitStack) -> Any:
        """A cursor in a new transaction on ``stack``; a connection found lost at ``BEGIN`` (no
        statement of the unit has run) is opened again first."""
        import psycopg

        if self._gone is not None:
            raise self._gone_error()
        try:
            stack.enter_context(self._conn.transaction())
        except psycopg.OperationalError:
            if not self._lost():
                raise
            self._reconnect()
            stack.enter_context(self._conn.transaction())
        return stack.enter_context(self._conn.cursor())

    def _lost(self) -> bool:
        """Whether the connection is gone (not a statement's own error)."""
        return bool(self._conn.closed or self._conn.broken)

    def _reconnect(self) -> None:
        """Open the connection again, up to ``reconnects`` times with a growing pause. When none
        works the server is taken as gone (ME013, now and for every later unit)."""
        import psycopg

        delay, last = self._reconnect_delay_s, "no try left"
        for _ in range(self._reconnects):
            time.sleep(delay)
            delay *= 2
            try:
                fresh = self._connect()
            except psycopg.OperationalError as exc:
                last = self._scrub(str(exc))
                continue
            self._conn.close()
            self._conn = fresh
            return
        self._gone = last
        raise self._gone_error()

    def _gone_error(self) -> StoreError:
        return StoreError(
            f"memory database error: the connection to {self.url} was lost and {self._reconnects} "
            f"tries to open it again failed: {self._gone}",
            code="ME013",
            hint="check the PostgreSQL server, then run the command again (a run's unfinished "
            "sessions are taken up again by the next run)",
        )

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
