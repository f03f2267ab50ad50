"""The prose a skill bundles beside its ``SKILL.md``: its markdown files, read for the search index.

Many skills keep ``SKILL.md`` short and put the detail in ``references/*.md`` (546 of the 935
corpus skills bundle markdown), and the situations a skill is for are often only named there.
The search index reads a skill's body up to a cap (:data:`skillshelf.select.docs.MAX_BODY_CHARS`);
when the ``SKILL.md`` body is shorter, :func:`bundled_prose` fills the rest of the room: the
bundled ``.md`` files in :func:`~skillshelf.skills.load.list_bundled_files` order
(``references/`` before the rest; nested skills, hidden names and VCS folders skipped), heading
lines left out and whitespace collapsed. Words of :data:`LONG_TOKEN` characters or more that mix
letters and digits (keys, tokens, hashes) are left out too: no request names one, and a key
pasted into a bundled file would otherwise be kept in the index cache.

Each file is read beneath the skill folder (:func:`~skillshelf.skills.confined.read_beneath`:
no symlink leads out of it), and read only when it is a regular file with one link (a hard link
may be a file from elsewhere), at most :data:`MAX_FILE_BYTES`. A file that cannot be read is
skipped: the index text is a ranking hint and never fails a build. A change to a bundled file
alone reaches the index when its ``SKILL.md`` changes or the index is built anew.
"""

from __future__ import annotations

import re
from pathlib import Path

from skillshelf.errors import PathEscapeError
from skillshelf.skills.confined import read_beneath
from skillshelf.skills.load import list_bundled_files

__all__ = ["LONG_TOKEN", "MAX_FILE_BYTES", "MAX_FILES", "bundled_prose"]

MAX_FILES = 50  # files listed; the markdown among them is read until the room is full
MAX_FILE_BYTES = 64 * 1024
LONG_TOKEN = 20
_HEADING_LINE = re.compile(r"^#.*$", re.MULTILINE)
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")


def bundled_prose(folder: Path, *, limit: int) -> str:
    """At most ``limit`` characters of the markdown bundled in ``folder`` (``""`` for none)."""
    if limit <= 0:
        return ""
    files, _ = list_bundled_files(folder, limit=MAX_FILES)
    pieces: list[str] = []
    room = limit
    for relative in (f for f in files if f.lower().endswith(".md")):
        if room <= 0:
            break
        words = _prose(_read(folder, relative))[:room]
        if words:
            pieces.append(words)
            room -= len(words) + 1
    return " ".join(pieces)


def _prose(markdown: str) -> str:
    """The words of ``markdown`` without its heading lines and key-like words, one space apart."""
    return " ".join(w for w in _HEADING_LINE.sub("", markdown).split() if _plain(w))


def _plain(word: str) -> bool:
    return len(word) < LONG_TOKEN or not (_DIGIT.search(word) and _LETTER.search(word))


def _read(folder: Path, relative: str) -> str:
    try:
        data = read_beneath(folder, relative.split("/"), relative, max_bytes=MAX_FILE_BYTES, single_link=True)
    except (OSError, PathEscapeError):
        return ""
    return data.decode("utf-8", errors="replace")
