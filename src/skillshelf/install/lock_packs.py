"""The packs of a lock file: sources installed whole with ``install SOURCE --all``.

A pack record remembers where the pack is (``kind``, ``location``, ``subdir``, ``ref``), the skill
folders it held when it was last installed or updated (``places``, relative to the pack's folder)
and, for git, at which commit. ``update`` compares the pack as it is now with ``places``: a folder
that was not there before is a skill the pack gained, and ``update`` installs it; a skill the user
removed is still among ``places``, so it does not come back. Each installed skill names its pack
in its own entry (``LockEntry.pack``); a pack none of whose skills is installed any longer is
dropped from the file.

The records sit in the lock's ``packs`` object, keyed by the pack's canonical source text (what
:attr:`~skillshelf.install.sources.Source.text` gives, never with a secret). Like the skill
entries they come from a file anyone can commit, so a record that is not an object with string
fields is left out with an ``IS403`` warning, named without the secrets of the URLs in its key,
and written back as it was (without those secrets: :mod:`skillshelf.install.lock_secrets`). The
places are only compared with the folders found in the fetched pack, never used as paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.install.url_secrets import text_without_secrets

__all__ = ["PackRecord", "read_packs"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PackRecord:
    """One source installed with ``--all``; ``key`` is its canonical source text."""

    key: str
    kind: str  # "folder" | "git" | "archive"
    location: str
    subdir: str | None = None  # the pack's folder inside the source (None: the whole source)
    ref: str | None = None
    commit: str | None = None  # the commit ``places`` were read at (git only)
    places: tuple[str, ...] = ()  # its skill folders, relative to the pack's folder ("." itself)
    checked_at: str

    def place_of(self, subdir: str | None) -> str | None:
        """Where a skill installed from ``#subdir`` of the same source sits in this pack (None:
        outside it)."""
        inner = subdir or ""
        if not self.subdir:
            return inner or "."
        if inner == self.subdir:
            return "."
        prefix = self.subdir + "/"
        return inner[len(prefix) :] if inner.startswith(prefix) else None

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "location": self.location,
            "subdir": self.subdir,
            "ref": self.ref,
            "commit": self.commit,
            "places": list(self.places),
            "checked_at": self.checked_at,
        }


def read_packs(
    path: Path, raw: Mapping[str, object]
) -> tuple[dict[str, PackRecord], dict[str, object], list[Diagnostic]]:
    """The usable records of the lock's ``packs`` object, the others as they were, and why each
    of those was left out."""
    records: dict[str, PackRecord] = {}
    ignored: dict[str, object] = {}
    problems: list[Diagnostic] = []
    for key, value in raw.items():
        record = _record_from(key, value)
        if record is None:
            ignored[key] = value
            shown = text_without_secrets(key)
            problems.append(_left_out(path, shown, f"pack {shown[:200]!r} ignored: not a pack record"))
        else:
            records[record.key] = record
    return records, ignored, problems


def _record_from(key: str, raw: object) -> PackRecord | None:
    if not isinstance(raw, Mapping):
        return None
    texts = [raw.get(k) for k in ("kind", "location", "checked_at")]
    if not all(isinstance(t, str) for t in texts) or not isinstance(raw.get("places"), list):
        return None
    return PackRecord(
        key=key,
        kind=str(raw["kind"]),
        location=str(raw["location"]),
        subdir=_text(raw.get("subdir")),
        ref=_text(raw.get("ref")),
        commit=_text(raw.get("commit")),
        places=tuple(p for p in raw["places"] if isinstance(p, str)),
        checked_at=str(raw["checked_at"]),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _left_out(path: Path, field: str, message: str) -> Diagnostic:
    return Diagnostic(
        code="IS403",
        severity=Severity.WARNING,
        message=message,
        fix="remove it from the lock file; `skillshelf install SOURCE --all` records the pack again",
        path=path,
        field=field,
    )
