"""A lock entry or pack record an older version wrote with a secret in its source URL (a
password or token in the user part, a ``?private_token=...``), read without it.

Versions before :mod:`skillshelf.install.url_secrets` recorded the URL as typed. Such an entry
is read with its ``location``, ``source`` and ``pack`` as a new install records them (without
the secret, ``credentials`` naming what was left out), so no message, ``list --json`` or
``remove --json`` shows it and any rewrite of the file leaves it out; the URL as recorded is
kept apart in memory (``secret_location``), used only to fetch (``update`` fetches with it once,
through the same scrubbing of git's errors as an install, then records the entry without it).

Two pack records an older version keyed by URLs that differ only in their secret (a rotated
token, a committed project lock merged from teammates who pasted their own), or one of them and
the record a newer version wrote without it, are one pack once the secret is left out. They are
read as one record (:func:`packs_without_secrets`) that forgets nothing either knew: ``places``
is what a pack held when a record was written, and a place that is not installed is a skill the
user removed (or one ``update`` left out), which ``update`` must not install; so the places are
the union of both, and the commit is kept only when both were read at the same one (else None:
``update`` fetches the pack again rather than trust places read at neither). ``IS410`` says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.install.lock_packs import PackRecord
from skillshelf.install.url_secrets import secret_parts, without_secrets

__all__ = ["KeptApart", "SafePacks", "kept_apart", "pack_without_secret", "packs_without_secrets"]


@dataclass(frozen=True, slots=True, kw_only=True)
class KeptApart:
    """The fields of a lock entry as read: without the secret, and the URL that held it."""

    location: str
    source: str
    pack: str | None
    credentials: tuple[str, ...]
    secret_location: str | None = None  # the location as recorded, when it held a secret


def kept_apart(location: str, source: str, pack: str | None, credentials: tuple[str, ...]) -> KeptApart:
    """An entry's ``location``, ``source`` text and ``pack`` key without the secret ``location``
    holds, and ``credentials`` naming what was left out."""
    safe = without_secrets(location)
    if safe == location:
        return KeptApart(location=location, source=source, pack=pack, credentials=credentials)
    return KeptApart(
        location=safe,
        source=_safe_text(source, location, safe),
        pack=None if pack is None else _safe_text(pack, location, safe),
        credentials=credentials or secret_parts(location),
        secret_location=location,
    )


def pack_without_secret(record: PackRecord) -> PackRecord:
    """``record`` with its key and location without the secret its location holds."""
    safe = without_secrets(record.location)
    if safe == record.location:
        return record
    return dataclasses.replace(record, key=_safe_text(record.key, record.location, safe), location=safe)


@dataclass(frozen=True, slots=True, kw_only=True)
class SafePacks:
    """A lock's pack records read without secrets: ``records`` by key, ``held``: the keys of those
    that were read without one (the file is to be written again), ``merged``: the keys two or more
    records came to share, read as one."""

    records: dict[str, PackRecord]
    held: tuple[str, ...]
    merged: tuple[str, ...]


def packs_without_secrets(packs: Mapping[str, PackRecord]) -> SafePacks:
    """``packs`` (by the key the file holds) without the secrets their URLs hold; records whose
    keys are then the same are merged (:func:`merged_pack`, the one already without a secret
    first)."""
    records: dict[str, PackRecord] = {}
    held: dict[str, None] = {}
    merged: dict[str, None] = {}
    clean_first = sorted(packs.values(), key=lambda record: pack_without_secret(record) != record)
    for record in clean_first:
        safe = pack_without_secret(record)
        if safe != record:
            held[safe.key] = None
        earlier = records.get(safe.key)
        if earlier is not None:
            merged[safe.key] = None
            held[safe.key] = None
        records[safe.key] = safe if earlier is None else merged_pack(earlier, safe)
    return SafePacks(records=records, held=tuple(sorted(held)), merged=tuple(sorted(merged)))


def merged_pack(first: PackRecord, other: PackRecord) -> PackRecord:
    """One record of the pack ``first`` and ``other`` both record: ``first``'s source, every
    place either lists (a place listed and not installed is a skill removed, never installed
    again), their commit when it is the same (else None: fetched again), the later check."""
    return dataclasses.replace(
        first,
        places=tuple(dict.fromkeys((*first.places, *other.places))),
        commit=first.commit if first.commit == other.commit else None,
        checked_at=max(first.checked_at, other.checked_at),
    )


def merged_packs_note(path: Path, keys: Iterable[str]) -> Diagnostic:
    """``IS410``: the pack records of ``keys`` differed only in a secret and were read as one."""
    named = ", ".join(repr(key[:200]) for key in keys)
    return Diagnostic(
        code="IS410",
        severity=Severity.WARNING,
        message=f"the lock file records the pack {named} more than once, with different passwords or "
        "tokens in its URL; read as one record that keeps every skill either listed, so a skill you "
        "removed does not come back",
        fix="nothing to do: `skillshelf update` or an install in this folder writes it once, without the "
        "secret; `skillshelf install SOURCE#FOLDER` installs one of its skills you want back",
        path=path,
    )


def _safe_text(text: str, location: str, safe: str) -> str:
    """``text`` (a source's text: its location, then ``@ref`` and ``#subdir``) with ``location``
    spelled ``safe``; any other text without the secrets a URL in it holds."""
    if text.startswith(location):
        return safe + text[len(location) :]
    return without_secrets(text)
