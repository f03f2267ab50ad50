"""Which memory database a memory folder holds the consolidation of.

Every memory database (the default SQLite file, another file or a PostgreSQL database named by
``--db``) consolidates a scope into the same folder, ``<data dir>/memories/<scope>/``
(:func:`~.layout.scope_dir`), where the agents read it. A consolidation rewrites the folder from
its own database's rows, so a run against another database would replace what the agents read
with that database's memories: the first database's would vanish from the folder (its rows
stay in it, but nothing would say so).

So a folder records the database that consolidates it, in :data:`MARKER`: the database's id
(:func:`~.store.identity.database_id`, a random id the database keeps) and a label naming it
for people (never its password or URL). A folder that records none (made before skillshelf
recorded it, or new) is adopted by the first database that writes it. A consolidation from
another database is refused (``ME053``, :class:`~skillshelf.errors.OtherDatabaseError`)
before anything of the folder is written, unless the run takes the folder over
(``memory run --force``): the folder is then moved whole to ``<data dir>/memories-set-aside/``
(kept, never deleted) and this database's memories are consolidated in its place.

The record is checked when a consolidation starts and again, under the folder's lock, before
each write (:func:`writing`): a run of another database may have adopted the folder meanwhile.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from skillshelf.dirs import private_dir
from skillshelf.errors import OtherDatabaseError, PathEscapeError
from skillshelf.fileio import folder_lock, read_regular_text, write_atomic
from skillshelf.memory.store import Store, database_id

__all__ = [
    "MARKER",
    "SET_ASIDE_FOLDER",
    "DatabaseIdentity",
    "check_folder",
    "recorded_database",
    "set_aside",
    "store_identity",
    "writing",
]

#: The file in a memory folder that names the database consolidating it.
MARKER = ".skillshelf-database.json"
#: Beside ``memories/`` in the data folder: the folders ``memory run --force`` took over.
SET_ASIDE_FOLDER = "memories-set-aside"
_MAX_MARKER_BYTES = 64 * 1024
_MAX_LABEL = 300


@dataclass(frozen=True, slots=True, kw_only=True)
class DatabaseIdentity:
    """A memory database: its id (``""``: a record that cannot be read) and its label."""

    id: str
    label: str


_UNREADABLE = DatabaseIdentity(id="", label="")


def store_identity(store: Store, *, now_ms: int, default: bool = False) -> DatabaseIdentity:
    """The identity of the database ``store`` opened (its id made on first use); ``default``:
    it is the default database of the user data folder (``--db`` left out)."""
    label = store.label or store.url
    if default:
        label = f"the default memory database ({label})"
    return DatabaseIdentity(id=database_id(store, now_ms=now_ms), label=label)


def recorded_database(folder: Path) -> DatabaseIdentity | None:
    """The database ``folder`` records; None when it records none. A record that cannot be
    read (edited by hand, not a file) stands for a database that is not this one (id ``""``)."""
    path = folder / MARKER
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(read_regular_text(path, limit=_MAX_MARKER_BYTES))
    except (OSError, ValueError, RecursionError):  # a decoding error is a ValueError
        return _UNREADABLE
    if not isinstance(data, dict):
        return _UNREADABLE
    found, label = data.get("database_id"), data.get("database")
    if not isinstance(found, str) or not found or not isinstance(label, str):
        return _UNREADABLE
    return DatabaseIdentity(id=found, label=label[:_MAX_LABEL])


def check_folder(folder: Path, ours: DatabaseIdentity, *, take_over: bool = False) -> Path | None:
    """Refuse to consolidate ``ours`` into ``folder`` when it records another database
    (:class:`OtherDatabaseError`); with ``take_over``, move the folder aside instead and return
    where it went. A folder that records none or ``ours`` passes (None)."""
    recorded = recorded_database(folder)
    if recorded is None or recorded.id == ours.id:
        return None
    if not take_over:
        raise _refusal(folder, recorded, ours)
    return set_aside(folder)


def set_aside(folder: Path) -> Path:
    """Move ``folder`` whole into :data:`SET_ASIDE_FOLDER` beside the memories folder (as
    ``<name>-<UTC time>-<random>``); returns its new path."""
    root = private_dir(folder.parent.with_name(SET_ASIDE_FOLDER))
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = root / f"{folder.name}-{stamp}-{uuid.uuid4().hex[:6]}"
    with folder_lock(folder):  # not while a write of another run is under way
        os.rename(folder, target)
    return target


@contextmanager
def writing(folder: Path, ours: DatabaseIdentity) -> Iterator[None]:
    """Hold ``folder``'s lock while a consolidation of ``ours`` writes it: the record is checked
    again (:class:`OtherDatabaseError` when another database has adopted the folder since), and
    a folder that records no database is adopted first."""
    if folder.is_symlink():
        raise PathEscapeError(
            f"memory folder {folder} is a symlink; refusing to write through it",
            path=folder,
            hint="replace the symlink with a real folder",
        )
    private_dir(folder, tighten=True)
    with folder_lock(folder):
        recorded = recorded_database(folder)
        if recorded is None:
            _record(folder, ours)
        elif recorded.id != ours.id:
            raise _refusal(folder, recorded, ours)
        yield


def _record(folder: Path, ours: DatabaseIdentity) -> None:
    data = {
        "database_id": ours.id,
        "database": ours.label,
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "about": "the memory database skillshelf consolidates into this folder; `skillshelf memory "
        "run` against another one refuses to rewrite it (ME053)",
    }
    write_atomic(folder / MARKER, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _refusal(folder: Path, recorded: DatabaseIdentity, ours: DatabaseIdentity) -> OtherDatabaseError:
    aside = folder.parent.with_name(SET_ASIDE_FOLDER)
    take_over = (
        f"pass --force to move the folder to {aside}/ (kept, never deleted) and consolidate this "
        "database's memories in its place"
    )
    apart = (
        "keep this database's memories in a data folder of their own (SKILLSHELF_DATA_DIR=FOLDER "
        "for its runs and for the agents that should read them)"
    )
    if not recorded.id:
        return OtherDatabaseError(
            f"the memory folder {folder} names the database that consolidates it in {MARKER}, "
            f"which cannot be read; this run's database is {ours.label}",
            hint=f"if the folder is this database's, delete {folder / MARKER}; else {apart}, or {take_over}",
        )
    return OtherDatabaseError(
        f"the memory folder {folder} holds what {recorded.label} consolidated (database id "
        f"{recorded.id[:8]}); this run's database is {ours.label} (id {ours.id[:8]}): consolidating "
        "it here would replace those memories",
        hint=f"run with the database that made the folder (its --db; leave --db out for the default "
        f"one), {apart}, or {take_over}",
    )
