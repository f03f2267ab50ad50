"""A lock entry or pack record an older version wrote with a secret in its source URL (a
password or token in the user part, a ``?private_token=...``), read without it.

Versions before :mod:`skillshelf.install.url_secrets` recorded the URL as typed. Such an entry
is read with its ``location``, ``source`` and ``pack`` as a new install records them (without
the secret, ``credentials`` naming what was left out), so no message, ``list --json`` or
``remove --json`` shows it and any rewrite of the file leaves it out; the URL as recorded is
kept apart in memory (``secret_location``), used only to fetch (``update`` fetches with it once,
through the same scrubbing of git's errors as an install, then records the entry without it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from skillshelf.install.lock_packs import PackRecord
from skillshelf.install.url_secrets import secret_parts, without_secrets

__all__ = ["KeptApart", "kept_apart", "pack_without_secret"]


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


def _safe_text(text: str, location: str, safe: str) -> str:
    """``text`` (a source's text: its location, then ``@ref`` and ``#subdir``) with ``location``
    spelled ``safe``; any other text without the secrets a URL in it holds."""
    if text.startswith(location):
        return safe + text[len(location) :]
    return without_secrets(text)
