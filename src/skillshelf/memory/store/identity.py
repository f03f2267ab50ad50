"""The memory database's own identity: a random id it keeps in its ``memory_identity`` table.

The id is made on first use (one row, a random UUID) and never changes, whatever URL the
database is reached by: ``localhost`` or ``127.0.0.1``, a SQLite file through a link or after
a move. A copy of a SQLite file keeps it (the copy holds the same memories). It carries no
secret: it says nothing of the server, the user or the password. The memory folders a database
consolidates record it (:mod:`skillshelf.memory.origin`).
"""

from __future__ import annotations

import uuid

from skillshelf.memory.store.base import BaseStore

__all__ = ["database_id"]

_READ = "SELECT database_id FROM memory_identity WHERE one = 1"


def database_id(store: BaseStore, *, now_ms: int) -> str:
    """The id of the database ``store`` opened, made (and kept in it) on first use. Two
    processes that make it at once get the same one: the first row written is kept."""
    with store.transaction() as tx:
        rows = tx.execute(_READ)
    if rows:
        return str(rows[0][0])
    with store.transaction(claim=True) as tx:  # reads after it writes: the write lock up front
        tx.execute(
            "INSERT INTO memory_identity (one, database_id, created_at_ms) VALUES (1, ?, ?) "
            "ON CONFLICT (one) DO NOTHING",
            (uuid.uuid4().hex, now_ms),
        )
        return str(tx.execute(_READ)[0][0])
