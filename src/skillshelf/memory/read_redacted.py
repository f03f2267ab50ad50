"""Memory files as a model may read them: redacted on the way out.

Phase 2 writes the memory folder redacted, but a user may edit ``memory_summary.md`` or
``MEMORY.md`` by hand, and a folder an older redactor wrote holds what that one let through. So
the read path (:mod:`.read`: the summary in ``context`` and SessionStart, the memory lines of
the prompt hook and ``memory search``) hands out a file's text only through
:func:`redacted_file`, with the redactor Phase 2 uses (:func:`~skillshelf.memory.redact.redact`);
its lines stay where they were (redaction keeps the line count).

Redacting costs about 115 ms in a fresh process (importing the redactor and compiling its rules)
and 6 ms a 20 KB text after that; the prompt hooks read memory at every prompt. The redacted text
is therefore kept, keyed by the file's identity (device, inode, size, mtime, ctime): in the
process (the hook server, at most :data:`_KEPT_FILES` files) and in the cache folder (a hook
answered by a fresh process), where the key also holds the redactor's own stamp (the size and
mtime of each of its modules), so an edit of the file or a new redactor redacts again. Only
redacted text is kept; cache entries not written for :data:`_STALE_DAYS` days go when another
is written (one that is still good is then redacted again once).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path

from skillshelf.fileio import FileIdentity, file_identity, open_regular, write_atomic

__all__ = ["CACHE_FOLDER", "MAX_MEMORY_FILE_BYTES", "redacted_file"]

#: Where under the cache folder redacted memory files are kept.
CACHE_FOLDER = "memory-redacted"
#: A memory file larger than this is not read (Phase 2 writes files of 512 KB at most).
MAX_MEMORY_FILE_BYTES = 4 * 1024 * 1024
_REDACTOR = Path(__file__).resolve().parent / "redact"
_KEPT_FILES = 256
_STALE_DAYS = 30

_lock = threading.Lock()
_kept: dict[tuple[str, FileIdentity], str] = {}


def redacted_file(path: Path, *, cache: Path | None) -> str | None:
    """The text of the memory file ``path`` (UTF-8, bad bytes replaced) with its secrets
    redacted; None when it is not a regular file that can be read or is larger than
    :data:`MAX_MEMORY_FILE_BYTES`. ``cache``: the user's cache folder (None: keep nothing on disk)."""
    try:
        with open_regular(path) as handle:
            before = file_identity(os.fstat(handle.fileno()))
            data = handle.read(MAX_MEMORY_FILE_BYTES + 1)
            after = file_identity(os.fstat(handle.fileno()))
    except OSError:
        return None
    if len(data) > MAX_MEMORY_FILE_BYTES:
        return None
    raw = data.decode("utf-8", errors="replace")
    if before != after:  # changed while it was read: redact what was read, keep nothing
        return _redacted(raw)
    key = (str(path), after)
    with _lock:
        text = _kept.get(key)
    if text is not None:
        return text
    entry = (
        cache / CACHE_FOLDER / f"{hashlib.sha256(str(path).encode()).hexdigest()[:32]}.json"
        if cache
        else None
    )
    stamp = _redactor_stamp()
    text = _cached(entry, after, stamp) if entry is not None else None
    if text is None:
        text = _redacted(raw)
        if entry is not None:
            _store(entry, after, stamp, text)
    with _lock:
        if len(_kept) >= _KEPT_FILES:
            _kept.pop(next(iter(_kept)))
        _kept[key] = text
    return text


def _redacted(raw: str) -> str:
    from skillshelf.memory.redact import redact_secrets  # only on a miss: its import is the cost

    return redact_secrets(raw)


def _redactor_stamp() -> list[list[object]]:
    """Name, size and mtime of each module of the redactor: another redactor, another stamp."""
    try:
        with os.scandir(_REDACTOR) as entries:
            found = [e for e in entries if e.name.endswith(".py") and e.is_file()]
            return sorted([e.name, e.stat().st_size, e.stat().st_mtime_ns] for e in found)
    except OSError:
        return []


def _cached(entry: Path, identity: FileIdentity, stamp: list[list[object]]) -> str | None:
    """The text kept in ``entry`` for a file of ``identity`` redacted by a redactor of ``stamp``."""
    try:
        with open_regular(entry) as handle:
            kept = json.loads(handle.read(2 * MAX_MEMORY_FILE_BYTES))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(kept, dict) or not stamp or kept.get("redactor") != stamp:
        return None
    if kept.get("file") != list(identity) or not isinstance(text := kept.get("text"), str):
        return None
    return text


def _store(entry: Path, identity: FileIdentity, stamp: list[list[object]], text: str) -> None:
    """Keep ``text`` in ``entry`` (0600 in a 0700 folder), and drop the folder's stale entries."""
    if not stamp:
        return
    try:
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {"file": list(identity), "redactor": stamp, "text": text}
        write_atomic(entry, json.dumps(data, ensure_ascii=False))
        _drop_stale(entry.parent)
    except OSError:
        return  # a cache: the next read redacts again


def _drop_stale(folder: Path) -> None:
    oldest = time.time() - _STALE_DAYS * 86400
    with os.scandir(folder) as entries:
        for item in entries:
            old = item.is_file(follow_symlinks=False) and item.stat(follow_symlinks=False).st_mtime < oldest
            if old and item.name.endswith(".json"):
                Path(item.path).unlink(missing_ok=True)
