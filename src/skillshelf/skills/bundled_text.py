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
skipped: the index text is a ranking hint and never fails a build.

What was read comes with a stamp (:func:`bundled_stamp`): the modification times and sizes of
the files read (each taken just before its read), of the skill folder and of every folder
holding a listed file (:attr:`BundledProse.folders`). The index keeps it beside the
``SKILL.md`` stamp and reads the skill again when it changes: a bundled file edited, a file
added to or removed from one of those folders (``scripts/notes.md`` beside ``scripts/run.py``),
or a folder added to the skill. Paths with a control character are not read (the stamp lists
the paths one per line).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from skillshelf.errors import PathEscapeError
from skillshelf.fileio import stat_of
from skillshelf.skills.confined import read_beneath
from skillshelf.skills.load import list_bundled_files

__all__ = ["LONG_TOKEN", "MAX_FILE_BYTES", "MAX_FILES", "BundledProse", "bundled_prose", "bundled_stamp"]

MAX_FILES = 50  # files listed; the markdown among them is read until the room is full
MAX_FILE_BYTES = 64 * 1024
LONG_TOKEN = 20
_HEADING_LINE = re.compile(r"^#.*$", re.MULTILINE)
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True, slots=True)
class BundledProse:
    """The prose read from a skill's bundled markdown, the files it was read from (relative,
    POSIX, in reading order), the other folders that hold a listed file (``scripts/``: relative,
    ending in ``/``, sorted) and the :func:`bundled_stamp` of both."""

    text: str = ""
    files: tuple[str, ...] = ()
    stamp: str = ""
    folders: tuple[str, ...] = ()

    @property
    def watched(self) -> tuple[str, ...]:
        """What :func:`bundled_stamp` takes again: the files read, then the other folders."""
        return self.files + self.folders


def bundled_prose(folder: Path, *, limit: int) -> BundledProse:
    """At most ``limit`` characters of the markdown bundled in ``folder`` (no text for none)."""
    if limit <= 0:
        return BundledProse()
    listed, _ = list_bundled_files(folder, limit=MAX_FILES)
    pieces: list[str] = []
    read: list[str] = []
    stats: list[tuple[int, int] | None] = []
    room = limit
    for relative in (f for f in listed if f.lower().endswith(".md") and f.isprintable()):
        if room <= 0:
            break
        read.append(relative)
        stats.append(stat_of(folder / relative))
        words = _prose(_read(folder, relative))[:room]
        if words:
            pieces.append(words)
            room -= len(words) + 1
    held = {f.rpartition("/")[0] for f in read}
    others = tuple(
        sorted(f"{d}/" for d in {f.rpartition("/")[0] for f in listed if f.isprintable()} - held if d)
    )
    return BundledProse(" ".join(pieces), tuple(read), _stamp(folder, read, stats, others), others)


def bundled_stamp(folder: Path, watched: tuple[str, ...] | list[str]) -> str:
    """What changes when the prose read in ``folder`` may have (``watched``: its
    :attr:`BundledProse.watched`): the ``(mtime, size)`` of each file read, of ``folder``, of
    each folder holding one of them and of each folder named (ending in ``/``), as a digest."""
    files = [w for w in watched if not w.endswith("/")]
    folders = [w for w in watched if w.endswith("/")]
    return _stamp(folder, files, [stat_of(folder / f) for f in files], folders)


def _stamp(
    folder: Path,
    files: tuple[str, ...] | list[str],
    stats: list[tuple[int, int] | None],
    others: tuple[str, ...] | list[str],
) -> str:
    folders = sorted({"", *(f.rpartition("/")[0] for f in files), *(d.rstrip("/") for d in others)})
    seen = [stat_of(folder / d) for d in folders] + stats
    return hashlib.sha1(repr(seen).encode()).hexdigest()[:16]


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
