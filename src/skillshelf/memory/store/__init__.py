"""The memory state store: one schema, two backends.

- SQLite (the default): ``<user data dir>/memory/state.sqlite``, WAL, immediate transactions;
  ``--db`` names another file by its path or a URL in SQLAlchemy's form: ``sqlite:///relative/path``
  (three slashes) and ``sqlite:////absolute/path`` (four) (:func:`sqlite_path`).
- PostgreSQL: ``--db postgresql://...`` or libpq's ``host=... dbname=...`` connection string
  (:mod:`.conninfo`; needs the ``postgres`` extra), row locks with ``SKIP LOCKED``.

:func:`open_store` opens either and applies missing migrations.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from skillshelf.errors import UsageError
from skillshelf.memory.store.conninfo import broken_conninfo, is_conninfo, shown_database
from skillshelf.memory.store.consolidation import Store
from skillshelf.memory.store.identity import database_id
from skillshelf.memory.store.records import (
    CONSOLIDATE,
    STAGE1,
    ClaimOutcome,
    LeaseHolder,
    LeaseRow,
    OutputRow,
    Phase2Claim,
    Selection,
    SessionFacts,
    SessionRow,
    Stage1Claim,
)

__all__ = [
    "CONSOLIDATE",
    "STAGE1",
    "ClaimOutcome",
    "LeaseHolder",
    "LeaseRow",
    "OutputRow",
    "Phase2Claim",
    "Selection",
    "SessionFacts",
    "SessionRow",
    "Stage1Claim",
    "Store",
    "check_db_url",
    "check_relative_sqlite_url",
    "database_id",
    "default_db_path",
    "open_store",
    "sqlite_path",
]

_SQLITE = "sqlite:///"
_FORMS_HINT = (
    "write sqlite:////ABSOLUTE/PATH (four slashes), sqlite:///RELATIVE/PATH (three) or the file's path itself"
)


def default_db_path(data_dir: Path) -> Path:
    """The default SQLite file in the user data folder ``data_dir`` (``Env.dirs.data``)."""
    return data_dir / "memory" / "state.sqlite"


def sqlite_path(url: str) -> Path | None:
    """The SQLite file ``url`` names (``~`` expanded), or None for a URL of another scheme or a
    PostgreSQL connection string: a plain path, or SQLAlchemy's ``sqlite:///relative/path`` and
    ``sqlite:////absolute/path``. Another ``sqlite:`` shape (``sqlite://host/x``, ``sqlite:/x``,
    no path) is a UsageError."""
    if not url.lower().startswith("sqlite:"):
        return None if "://" in url else _file_or_conninfo(url)
    if not url.lower().startswith(_SQLITE) or len(url) == len(_SQLITE):
        raise UsageError(
            f"{shown_database(url)} is no SQLite URL skillshelf reads: after sqlite: come three slashes "
            "and a path",
            code="ME045",
            hint=_FORMS_HINT,
        )
    return Path(url[len(_SQLITE) :]).expanduser()


def _file_or_conninfo(url: str) -> Path | None:
    """The file ``url`` names, or None for libpq's connection string: a file that exists is
    that file whatever its name; a name that starts as a connection string but is none is a
    UsageError (a SQLite file would be named after its password)."""
    path = Path(url).expanduser()
    try:
        exists = path.is_file()
    except (OSError, ValueError):
        exists = False
    if exists:
        return path
    if is_conninfo(url):
        return None
    if (reason := broken_conninfo(url)) is not None:
        raise UsageError(
            f"the database {shown_database(url)} starts as libpq's connection string but is none: {reason}",
            code="ME015",
            hint="write host=HOST dbname=DB with each value that holds a space in single quotes "
            "(\\' and \\\\ inside them), or ./NAME for a SQLite file of that name",
        )
    return path


def check_relative_sqlite_url(url: str, cwd: Path) -> None:
    """Refuse ``sqlite:///tmp/x`` when it looks meant as ``/tmp/x``: its path is relative (read
    from ``cwd``, as SQLAlchemy reads it), its first folder is not in ``cwd`` and is at the root.
    A path that opens with ``./`` is relative on purpose."""
    path = sqlite_path(url)
    written = url[len(_SQLITE) :]
    if path is None or not url.lower().startswith(_SQLITE) or path.is_absolute() or len(path.parts) < 2:
        return
    first = path.parts[0]
    if written.startswith(("./", "../")) or (cwd / first).exists() or not (Path("/") / first).is_dir():
        return
    shown, named = shown_database(url), shown_database(str(path))
    raise UsageError(
        f"{shown} names {named} under the current folder (SQLite URLs follow SQLAlchemy: three slashes "
        f"and a relative path, four and an absolute one), but there is no {first} here; /{first} exists",
        code="ME046",
        hint=f"for /{named} write sqlite:////{named} or /{named}; for a path under the current folder "
        f"write sqlite:///./{named}",
    )


def _is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://")) or (is_conninfo(url) and sqlite_path(url) is None)


def _shown_scheme(url: str) -> str:
    """What an ME015 message shows of ``url``: its scheme, when it has one (the rest may hold a
    password that redaction does not know, as in ``mysql://user:pw@host``)."""
    scheme = url.split("://", 1)[0]
    if "://" in url and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return shown_database(scheme) + "://..."
    return "(neither a file path nor a URL or connection string skillshelf reads)"


def check_db_url(url: str | None) -> None:
    """Refuse an empty (or blank) database URL, ``ME048``: it is never the default database
    (a script's unset variable must not reach the user's own memory)."""
    if url is not None and not url.strip():
        raise UsageError(
            f"the memory database URL is empty ({url!r})",
            code="ME048",
            hint="pass a file path or a database URL, or leave --db out for the default database "
            "in the user data folder",
        )


def open_store(
    url: str | None = None,
    *,
    data_dir: Path | None = None,
    migrate: bool = True,
    scratch: bool = False,
    create: bool = True,
    read_only: bool = False,
) -> Store:
    """Open the store at ``url`` (a plain path, ``sqlite:///relative/path``,
    ``sqlite:////absolute/path``, ``postgresql://...`` or libpq's ``host=... dbname=...``: see
    :func:`sqlite_path`);
    ``None`` means the default SQLite file of the user data folder ``data_dir``; an empty
    ``url`` is a UsageError (``ME048``), never the default file (an unset shell variable).

    ``create=False`` (commands that only read): a SQLite file that does not exist is not made;
    a named one is a NotFoundError (``ME043``), the default one reads as an empty store.

    ``read_only=True`` (commands that only read): a SQLite file that cannot be written (a
    read-only mount) is read from an in-memory copy, so a status or a summary still shows.

    ``scratch=True`` (dry runs): the store is an in-memory SQLite copy of the database (of the
    file, or of a PostgreSQL database's rows read in one read-only snapshot), so nothing is
    created or written on disk or on the server."""
    store: Store
    check_db_url(url)
    if url is None:
        from skillshelf.memory.store.sqlite import SqliteStore

        if data_dir is None:
            raise UsageError(
                "no memory database given: neither a URL nor the user data folder",
                code="ME016",
                hint="pass a database URL, or data_dir=env.dirs.data for the default SQLite file",
            )
        path = default_db_path(data_dir)
        store = SqliteStore(
            path, scratch=scratch or not (create or path.exists()), own_folder=True, read_only=read_only
        )
    elif _is_postgres(url) and scratch:
        from skillshelf.memory.store.scratch import postgres_scratch

        return postgres_scratch(url)  # at the current schema already
    elif _is_postgres(url):
        from skillshelf.memory.store.postgres import PostgresStore

        store = PostgresStore(url)
    elif (file := sqlite_path(url)) is not None:
        from skillshelf.memory.store.sqlite import SqliteStore

        store = SqliteStore(file, scratch=scratch, create=create, read_only=read_only)
    else:
        raise UsageError(
            f"unsupported database URL {_shown_scheme(url)}",
            code="ME015",
            hint="use a file path, sqlite:///RELATIVE/PATH, sqlite:////ABSOLUTE/PATH, "
            "postgresql://USER@HOST/DB or host=HOST dbname=DB",
        )
    if migrate:
        try:
            store.migrate(int(time.time() * 1000))
        except BaseException:
            store.close()
            raise
    return store
