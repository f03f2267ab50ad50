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

An entry or pack record the lock leaves out (``IS402``, ``IS403``) is kept so a rewrite loses
nothing, but not its secrets: it is read with every text in it, its key and the keys and texts
nested in it included, without the secrets of the URLs in them
(:func:`ignored_without_secrets`), and is otherwise written back as it was. A key that comes
to equal another is given a ``(2)``, ``(3)``... after it, so no entry takes another's place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.install.lock_packs import PackRecord
from skillshelf.install.url_secrets import secret_parts, text_without_secrets, without_secrets

__all__ = [
    "KeptApart",
    "SafePacks",
    "ignored_without_secrets",
    "kept_apart",
    "pack_without_secret",
    "packs_without_secrets",
    "raw_without_secrets",
]


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
    holds, and ``credentials`` naming what was left out (a ``source`` or ``pack`` that holds a
    secret ``location`` does not is read without it too)."""
    safe = without_secrets(location)
    if safe == location:
        return KeptApart(
            location=location,
            source=text_without_secrets(source),
            pack=None if pack is None else text_without_secrets(pack),
            credentials=credentials,
        )
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


def ignored_without_secrets(
    ignored: Mapping[str, object], taken: Iterable[str] = (), *, entries: bool = False
) -> tuple[dict[str, object], tuple[str, ...]]:
    """``ignored`` (entries or pack records left out, by key) without the secrets of the URLs in
    them (:func:`raw_without_secrets`), no key one of ``taken`` (the keys of those used), and the
    keys, as now, of those that held one. An ``entries`` object whose ``location`` held a secret
    and that names no ``credentials`` is given them, as a used entry is (:func:`kept_apart`)."""
    safe: dict[str, object] = {}
    held: list[str] = []
    for (key, value), safe_key in zip(ignored.items(), _safe_keys(ignored, taken), strict=True):
        safe[safe_key] = made = raw_without_secrets(value)
        if entries and isinstance(value, dict) and isinstance(made, dict) and "credentials" not in value:
            location = value.get("location")
            if isinstance(location, str) and (parts := secret_parts(location)):
                made["credentials"] = list(parts)
        if safe_key != key or made != value:
            held.append(safe_key)
    return safe, tuple(held)


def raw_without_secrets(value: object) -> object:
    """``value`` (a JSON value as read) with every text in it, object keys included, without the
    secrets of the URLs it holds (:func:`text_without_secrets`); everything else as it was. Walked
    with a stack, so no nesting ``json`` reads reaches the recursion limit."""
    top: list[object] = [None]
    # each value still to copy, the list or object it goes in, and its index or key there
    stack: list[tuple[object, list[object] | dict[str, object], Any]] = [(value, top, 0)]
    while stack:
        item, parent, slot = stack.pop()
        made: object = item
        if isinstance(item, str):
            made = text_without_secrets(item)
        elif isinstance(item, list):
            inner_list: list[object] = [None] * len(item)
            made = inner_list
            stack.extend((inner, inner_list, at) for at, inner in enumerate(item))
        elif isinstance(item, dict):
            inner_dict: dict[str, object] = dict.fromkeys(_safe_keys(item))
            made = inner_dict
            stack.extend(
                (inner, inner_dict, key) for key, inner in zip(inner_dict, item.values(), strict=True)
            )
        parent[slot] = made
    return top[0]


def _safe_keys(item: Mapping[str, object], taken: Iterable[str] = ()) -> list[str]:
    """The keys of ``item`` in order, without secrets: one that comes to equal another key, or one
    of ``taken``, gets the first free ``(2)``, ``(3)``... after it."""
    keys: list[str] = []
    kept = set(taken)
    used = {*item, *kept}
    for key in item:
        safe = text_without_secrets(key)
        if safe != key:
            if key not in kept:
                used.discard(key)
            number, free = 1, safe
            while free in used:
                number += 1
                free = f"{safe} ({number})"
            used.add(safe := free)
        keys.append(safe)
    return keys
