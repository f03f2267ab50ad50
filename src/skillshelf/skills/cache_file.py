"""The parsed-skill cache file as this process last read (or wrote) it, kept while unchanged.

A long-lived process (the hook server, the agent) opens the parsed-skill cache at every prompt;
reading and unmarshalling thousands of entries is then most of a warm discovery. So the
content is kept together with the file's identity (device, inode, size, mtime and ctime) and
the parsing rules it was read under, and the next open that finds the same identity uses it
instead of reading the file again. Any replacement of the file (every writer renames a new
file into place) or edit of it changes that identity, and the file is read again.

Its ``decoded`` table holds the skills already built from its rows (keyed by the row object
and the root), so an unchanged entry gives the same :class:`~skillshelf.skills.model.Skill`
turn after turn, and the search index can tell unchanged skills by identity.

Content is kept from a process's second open of a cache on: a command that opens it once (a
hook answered without the server, ``skillshelf context``) keeps nothing, so it pays nothing for
it (the garbage collector would walk the kept rows: 0.06 s of ``context`` at 10,000 skills).
One file is kept per process (the last one read or written), so memory stays bounded whatever
the number of cache folders. The kept dictionaries are never changed in place: a cache that
is about to change them works on copies (:class:`~skillshelf.skills.cache.SkillCache`), so
threads share them safely. A stale copy could only cost time, never change a result: every
entry is checked against its ``SKILL.md`` signature, every walk against its folders' change
times, when used.
"""

from __future__ import annotations

import gc
import marshal
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillshelf.fileio import FileIdentity, file_identity
from skillshelf.lastkept import LastKept

__all__ = ["CacheContent", "keep_content", "read_content"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheContent:
    """What a cache file holds (``entries``, ``walks``: never changed in place) and the
    skills built from its rows so far (``decoded``: key -> (row, root key, result))."""

    entries: dict[str, list[Any]]
    walks: dict[str, Any]
    decoded: dict[str, tuple[list[Any], object, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Kept:
    path: str
    identity: FileIdentity
    rules: str
    content: CacheContent


_KEPT: LastKept[_Kept] = LastKept()  # the file this process read or wrote last


def _kept(kept: _Kept | None, path: str, rules: str) -> _Kept | None:
    return kept if kept is not None and kept.path == path and kept.rules == rules else None


def read_content(path: Path, version: int, rules: str) -> CacheContent | None:
    """The content of the cache file ``path`` (``None`` when there is none), from memory while
    the file is the one last read or written.

    Raises:
        ValueError: the file is not a cache of this ``version`` and ``rules`` (or not a cache).
        OSError: it cannot be read.
    """
    text = str(path)
    kept = _kept(_KEPT.use(), text, rules)
    try:
        with open(text, "rb") as handle:
            identity = file_identity(os.fstat(handle.fileno()))
            if kept is not None and kept.identity == identity:
                return kept.content
            blob = handle.read()
    except FileNotFoundError:
        return None
    content = _parse(blob, version, rules)
    _KEPT.keep(_Kept(path=text, identity=identity, rules=rules, content=content))
    return content


def _parse(blob: bytes, version: int, rules: str) -> CacheContent:
    gc_was_on = gc.isenabled()
    gc.disable()  # many small containers: the cyclic GC would run dozens of times here
    try:
        data = marshal.loads(blob)
    except (EOFError, TypeError, RecursionError) as exc:
        raise ValueError("not a marshal file") from exc
    finally:
        if gc_was_on:
            gc.enable()
    if (
        not isinstance(data, dict)
        or data.get("version") != version
        or not isinstance(data.get("entries"), dict)
    ):
        raise ValueError("unknown cache layout")
    if data.get("rules") != rules:
        raise ValueError("written by another version of the parser")
    walks = data.get("walks")
    return CacheContent(entries=data["entries"], walks=walks if isinstance(walks, dict) else {})


def keep_content(path: Path, rules: str, content: CacheContent) -> None:
    """Remember ``content`` as what the file ``path`` now holds (just written), with the skills
    already decoded from rows it still has; nothing is kept if the file cannot be seen."""
    if not _KEPT.keeping:
        return  # the first open of this process: nothing is kept yet
    text = str(path)
    try:
        identity = file_identity(os.stat(text))
    except OSError:
        _KEPT.keep(None)  # read again next time
        return
    old = _kept(_KEPT.peek(), text, rules)
    if old is not None:
        entries = content.entries
        known = old.content.decoded.copy()  # one step: other threads may be adding to it
        decoded = {k: v for k, v in known.items() if entries.get(k) is v[0]}
        content = CacheContent(entries=entries, walks=content.walks, decoded=decoded)
    _KEPT.keep(_Kept(path=text, identity=identity, rules=rules, content=content))
