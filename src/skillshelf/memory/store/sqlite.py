"""The embedded backend: one SQLite file in WAL mode; claims take the write lock up front
(``BEGIN IMMEDIATE``) so two processes can never book the same job."""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skillshelf.dirs import private_dir, private_file
from skillshelf.errors import NotFoundError, StoreError, reason
from skillshelf.fileio import NotRegularFile, regular_or_missing
from skillshelf.memory.store.base import Row, Tx, storable
from skillshelf.memory.store.conninfo import shown_database
from skillshelf.memory.store.consolidation import Store

__all__ = ["SqliteStore"]


class _SqliteTx(Tx):
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(r) for r in self.conn.execute(sql, storable(params)).fetchall()]


def _scratch_copy(path: Path | None, timeout_s: float) -> sqlite3.Connection:
    """An in-memory database holding a copy of ``path`` (empty when there is no file yet, or no
    path)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    if path is not None and path.exists():
        # no -wal file: every row is in the main file, read it as immutable so not even a -shm file
        # is made; with one, a read-only open is needed to see what the log holds
        wal = path.with_name(path.name + "-wal").exists()
        query = "mode=ro" if wal else "mode=ro&immutable=1"
        source = sqlite3.connect(f"{path.absolute().as_uri()}?{query}", uri=True, timeout=timeout_s)
        try:
            source.backup(conn)
        finally:
            source.close()
    return conn


_DAMAGED_HINT = (
    "the file is damaged or not skillshelf's: move it away (or pass --db with another location) "
    "and run again; a new database is made, the memory folders' files are kept"
)


_BUSY = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED (primary codes)
_NOT_DAMAGE = (3, 8, 10, 13, 14)  # SQLITE_PERM, _READONLY, _IOERR, _FULL, _CANTOPEN


def _store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """``exc`` as a StoreError: another process holding the database is ``ME012`` (try again),
    not a damaged file; a full disk or a read-only folder is said as such."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if code in _BUSY:
        return StoreError(
            f"memory database {shown_database(str(path))} is unavailable: {exc}",
            code="ME012",
            hint="another process may hold it locked; try again",
        )
    return StoreError(
        f"memory database error: {exc}",
        code="ME013",
        hint="check the disk's free space and that the folder is writable"
        if code in _NOT_DAMAGE
        else _DAMAGED_HINT,
    )


def _private_database(path: Path, *, own_folder: bool) -> None:
    """The database file 0600, its folder created 0700 (made 0700 when it is skillshelf's own).
    SQLite gives its -wal and -shm files the database's mode; ones left by an older version
    are made 0600 too."""
    private_dir(path.parent, tighten=own_folder)
    private_file(path)
    for suffix in ("-wal", "-shm", "-journal"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            private_file(extra)


def _missing(path: Path) -> bool:
    """Whether nothing is at ``path`` (a dangling link: nothing); a link loop or an unreadable
    folder is not "missing": opening it says why."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


_CANNOT_WRITE_ERRNOS = (errno.EROFS, errno.EACCES, errno.EPERM)
_CANNOT_WRITE_SQLITE = (3, 8, 14)  # SQLITE_PERM, SQLITE_READONLY, SQLITE_CANTOPEN


def _cannot_write(exc: OSError | sqlite3.Error) -> bool:
    """Whether ``exc`` says the database (or its folder) may be read but not written."""
    if isinstance(exc, OSError):
        return exc.errno in _CANNOT_WRITE_ERRNOS
    return ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in _CANNOT_WRITE_SQLITE


def _file_connection(
    path: Path, timeout_s: float, *, own_folder: bool, read_only: bool
) -> sqlite3.Connection:
    """A connection to the database file ``path`` in WAL mode (made private first); with
    ``read_only``, one the file system will not let write reads an in-memory copy instead."""
    conn: sqlite3.Connection | None = None
    try:
        _private_database(path, own_folder=own_folder)
        conn = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn
    except (OSError, sqlite3.Error) as exc:
        if conn is not None:
            conn.close()
        if not (read_only and _cannot_write(exc)):
            raise
    return _scratch_copy(path, timeout_s)


def _open_hint(exc: OSError | sqlite3.Error) -> str:
    """What to do about a database that would not open."""
    if isinstance(exc, NotRegularFile):
        return (
            "it is no file: pass --db with the path of a database file (a missing one is made), "
            "or move it away if it stands where the database belongs"
        )
    if isinstance(exc, OSError) and exc.errno == errno.ELOOP:
        return "the path is a loop of symbolic links: fix the link, or pass --db with another location"
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return _DAMAGED_HINT  # "file is not a database"; not "unable to open"
    return "check that the folder is writable, or pass --db with another location"


class SqliteStore(Store):
    """The memory store in a SQLite file (created with its folder on first use; with
    ``create=False``, a missing file is a NotFoundError, ``ME043``, and nothing is made).

    ``scratch=True`` (dry runs) works on an in-memory copy of the file instead: the file is
    only read (not at all when it does not exist), and nothing is created or changed on disk.
    The file is private (0600); ``own_folder``: its folder is skillshelf's and is made 0700.
    ``read_only=True`` (commands that only read): a file that cannot be written (a read-only
    mount, a file the user may only read) is read as that same in-memory copy instead of failing.
    :meth:`blank` is an empty in-memory store standing for another database.
    """

    def __init__(
        self,
        path: Path,
        *,
        timeout_s: float = 30.0,
        scratch: bool = False,
        own_folder: bool = False,
        create: bool = True,
        read_only: bool = False,
    ) -> None:
        if not create and not scratch and _missing(path):
            raise NotFoundError(
                f"memory database {shown_database(str(path))} does not exist",
                code="ME043",
                hint="check the --db path (`skillshelf memory run` makes the database); "
                "without --db the default one in the user data folder is read",
            )
        self._open(
            path,
            url=shown_database(f"sqlite:///{path}"),
            timeout_s=timeout_s,
            scratch=scratch,
            own_folder=own_folder,
            read_only=read_only,
        )

    @classmethod
    def blank(cls, url: str, *, timeout_s: float = 30.0) -> SqliteStore:
        """An empty in-memory store whose ``url`` names the database it stands for (a dry run's
        copy of a PostgreSQL database); it touches no file."""
        store = cls.__new__(cls)
        store._open(None, url=url, timeout_s=timeout_s, scratch=True, own_folder=False)
        return store

    def _open(
        self,
        path: Path | None,
        *,
        url: str,
        timeout_s: float,
        scratch: bool,
        own_folder: bool,
        read_only: bool = False,
    ) -> None:
        self.path = path or Path(":memory:")
        self.url = url
        self.label = f"the SQLite file {shown_database(str(path.absolute()))}" if path else url
        self._lock = threading.RLock()
        try:
            if path is not None:
                regular_or_missing(path)  # SQLite would block on a FIFO
            if scratch or path is None:
                self._conn = _scratch_copy(path, timeout_s)
            else:
                self._conn = _file_connection(path, timeout_s, own_folder=own_folder, read_only=read_only)
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(f"PRAGMA busy_timeout={int(timeout_s * 1000)}")
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot open the memory database {shown_database(str(path))}: {reason(exc)}",
                code="ME010",
                hint=_open_hint(exc),
            ) from exc

    @contextmanager
    def transaction(self, *, claim: bool = False) -> Iterator[Tx]:
        """A transaction; ``claim=True`` (claims, and every transaction that reads before it
        writes) takes the write lock at ``BEGIN``, waiting up to the busy timeout. A deferred one
        that read first could not take it later once another process had written in between."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE" if claim else "BEGIN")
            except sqlite3.Error as exc:
                raise _store_error(self.path, exc) from exc
            try:
                yield _SqliteTx(self._conn)
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise _store_error(self.path, exc) from exc
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        if self._conn.in_transaction:  # some errors (a full disk) have rolled it back already
            self._conn.execute("ROLLBACK")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
