"""The memory state store: one schema, two backends.

- SQLite (the default): ``<user data dir>/memory/state.sqlite``, WAL, immediate transactions.
- PostgreSQL: ``--db postgresql://...`` (needs the ``postgres`` extra), row locks with
  ``SKIP LOCKED``.

:func:`open_store` opens either and applies missing migrations.
"""

from __future__ import annotations

import time
from pathlib import Path

from skillshelf.errors import UsageError
from skillshelf.memory.store.consolidation import Store
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
    "default_db_path",
    "open_store",
]


def default_db_path(data_dir: Path) -> Path:
    """The default SQLite file in the user data folder ``data_dir`` (``Env.dirs.data``)."""
    return data_dir / "memory" / "state.sqlite"


def open_store(
    url: str | None = None,
    *,
    data_dir: Path | None = None,
    migrate: bool = True,
    scratch: bool = False,
    create: bool = True,
) -> Store:
    """Open the store at ``url`` (``sqlite:///path``, a plain path, ``postgresql://...``);
    ``None`` means the default SQLite file of the user data folder ``data_dir``.

    ``create=False`` (commands that only read): a SQLite file that does not exist is not made;
    a named one is a NotFoundError (``ME043``), the default one reads as an empty store.

    ``scratch=True`` (dry runs): the store is an in-memory SQLite copy of the database (of the
    file, or of a PostgreSQL database's rows read in one read-only snapshot), so nothing is
    created or written on disk or on the server."""
    store: Store
    if url is None or url == "":
        from skillshelf.memory.store.sqlite import SqliteStore

        if data_dir is None:
            raise UsageError(
                "no memory database given: neither a URL nor the user data folder",
                code="ME016",
                hint="pass a database URL, or data_dir=env.dirs.data for the default SQLite file",
            )
        path = default_db_path(data_dir)
        store = SqliteStore(path, scratch=scratch or not (create or path.exists()), own_folder=True)
    elif url.startswith(("postgresql://", "postgres://")) and scratch:
        from skillshelf.memory.store.scratch import postgres_scratch

        return postgres_scratch(url)  # at the current schema already
    elif url.startswith(("postgresql://", "postgres://")):
        from skillshelf.memory.store.postgres import PostgresStore

        store = PostgresStore(url)
    elif url.startswith("sqlite:///") or "://" not in url:
        from skillshelf.memory.store.sqlite import SqliteStore

        path = Path(url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url).expanduser()
        store = SqliteStore(path, scratch=scratch, create=create)
    else:
        raise UsageError(
            f"unsupported database URL {url.split('://')[0]}://...",
            code="ME015",
            hint="use sqlite:///PATH, a file path, or postgresql://USER@HOST/DB",
        )
    if migrate:
        try:
            store.migrate(int(time.time() * 1000))
        except BaseException:
            store.close()
            raise
    return store
