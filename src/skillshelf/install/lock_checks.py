"""What of a lock file is not used, and why (:mod:`skillshelf.install.lock`): an entry whose key
is not a plain folder name or whose fields are missing or of the wrong type, and keys an object
repeats. A key is named without the secrets of the URLs in it (:mod:`.url_secrets`), as the
lock keeps it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.install.url_secrets import text_without_secrets

__all__ = ["FOLDER_NAME", "entry_problem", "noting_repeats", "repeated_keys"]

#: A folder name ``install`` may create (and so the only lock key that is used).
FOLDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _ignored(path: Path, name: str, code: str, why: str, fix: str) -> Diagnostic:
    shown = text_without_secrets(name)
    return Diagnostic(
        code=code,
        severity=Severity.WARNING,
        message=f"lock entry {shown[:200]!r} ignored: {why}",
        fix=fix,
        path=path,
        field=shown,
    )


def entry_problem(path: Path, name: str, raw: object) -> Diagnostic | None:
    """Why the entry ``name: raw`` of the lock at ``path`` cannot be used, or None."""
    if not FOLDER_NAME.fullmatch(name):
        return _ignored(
            path,
            name,
            "IS402",
            "the key is not a plain folder name inside the skills folder",
            "remove the entry from the lock file (install writes only folder names such as 'pdf-tools')",
        )
    folder = path.parent / name
    if folder.is_symlink():
        return _ignored(
            path,
            name,
            "IS402",
            f"{folder} is a symbolic link, not a folder install wrote",
            "remove the link and the entry, then install the skill again",
        )
    if not isinstance(raw, dict):
        return _ignored(path, name, "IS403", "it is not an object", "remove the entry, or install again")
    required = ("source", "kind", "location", "content_hash", "installed_at")
    missing = [k for k in required if k not in raw]
    if missing:
        why = f"it lacks {', '.join(missing)}"
    else:
        wrong = [f"{k} is {_json_kind(raw[k])}" for k in required if not isinstance(raw[k], str)]
        why = f"{', '.join(wrong)}, not text" if wrong else ""
    if why:
        return _ignored(path, name, "IS403", why, "remove the entry, or install the skill again")
    return None


def _json_kind(value: object) -> str:
    """What a JSON value is, in words (for a field of the wrong type)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def noting_repeats(repeated: dict[str, None]) -> Callable[[list[tuple[str, object]]], dict[str, object]]:
    """A ``json`` object hook that builds each object as ``json`` does (the last of a repeated
    key wins) and notes each key an object repeats in ``repeated`` (in order, once)."""

    def build(pairs: list[tuple[str, object]]) -> dict[str, object]:
        data = dict(pairs)
        if len(data) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    repeated[key] = None
                seen.add(key)
        return data

    return build


def repeated_keys(path: Path, keys: Sequence[str]) -> Diagnostic:
    named = ", ".join(repr(text_without_secrets(key)[:200]) for key in keys[:5]) + (
        f" and {len(keys) - 5} more" if len(keys) > 5 else ""
    )
    return Diagnostic(
        code="IS409",
        severity=Severity.WARNING,
        message=f"keys repeated in the lock file: {named}; where an object repeats a key, the last is used",
        fix="remove the copies you do not mean from the lock file (install writes each key once)",
        path=path,
    )
