"""Transcripts in: Codex rollouts, Claude Code sessions and skillshelf's own transcripts, read
into one :class:`Session` model. Broken or truncated lines are skipped and counted.

:func:`read_transcript` sniffs the format from the first lines; the formats are
``TRANSCRIPT_FORMATS`` (``formats.py``: one module per format, one line each there).
:func:`find_transcripts` lists the files under the usual folders or under paths the user gives.

Codes (``FileAccessError``, the file is skipped): ``ME101`` cannot be read, ``ME102`` too big,
``ME104`` in no format we know, ``ME105`` not a regular file (a FIFO or device would block).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.fileio import NotRegularFile, open_regular
from skillshelf.memory.transcripts.formats import TRANSCRIPT_FORMATS
from skillshelf.memory.transcripts.jsonl import (
    MAX_TRANSCRIPT_BYTES,
    iter_lines,
    parse_line,
    read_error,
    too_big_error,
)
from skillshelf.memory.transcripts.model import Item, Session, SessionSource, TranscriptFormat

__all__ = [
    "Item",
    "Session",
    "SessionSource",
    "TRANSCRIPT_FORMATS",
    "TranscriptFormat",
    "default_transcript_roots",
    "find_transcripts",
    "read_transcript",
]

MAX_FILES = 20000
SNIFF_LINES = 20


def default_transcript_roots(
    env: Env, state_dir: Path, *, formats: Sequence[TranscriptFormat] = TRANSCRIPT_FORMATS
) -> tuple[Path, ...]:
    """The folders each format keeps its transcripts in (Codex sessions, skillshelf transcripts,
    Claude Code projects...), in the order of ``formats``."""
    return tuple(root for fmt in formats for root in fmt.roots(env, state_dir))


def not_regular_error(path: Path) -> FileAccessError:
    """``ME105``: a FIFO, socket or device named like a transcript (reading it could block forever)."""
    return FileAccessError(
        f"{path}: not a regular file (a FIFO, socket or device); skipped",
        code="ME105",
        hint="move it out of the sessions folder, or pass only regular .jsonl files",
    )


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading, without blocking on a FIFO; raises unless it is a regular file
    of at most ``MAX_TRANSCRIPT_BYTES``."""
    try:
        handle = open_regular(path)
    except NotRegularFile as exc:
        raise not_regular_error(path) from exc
    except OSError as exc:
        raise read_error(path, exc) from exc
    size = os.fstat(handle.fileno()).st_size
    if size > MAX_TRANSCRIPT_BYTES:
        handle.close()
        raise too_big_error(path, size)
    return handle


def _format_of(first: dict[str, object], formats: Sequence[TranscriptFormat]) -> TranscriptFormat | None:
    for fmt in formats:
        if fmt.sniff(first):
            return fmt
    for fmt in formats:
        if fmt.fallback is not None and fmt.fallback(first):
            return fmt
    return None


def sniff_format(
    path: Path, *, formats: Sequence[TranscriptFormat] = TRANSCRIPT_FORMATS
) -> TranscriptFormat | None:
    """Which of ``formats`` ``path`` is in (from its first 20 lines, long ones clipped as they
    stream), or None; raises for a file that cannot be read, is not regular or is too big."""
    with _open_regular(path) as handle:
        try:
            for line in islice(iter_lines(handle), SNIFF_LINES):
                first = parse_line(line) if line else None
                fmt = _format_of(first, formats) if first is not None else None
                if fmt is not None:
                    return fmt
        except OSError as exc:
            raise read_error(path, exc) from exc
    return None


def read_transcript(
    path: Path, *, formats: Sequence[TranscriptFormat] = TRANSCRIPT_FORMATS
) -> Session | None:
    """The session in ``path``, or None when the file is in none of ``formats``."""
    fmt = sniff_format(path, formats=formats)
    return fmt.read(path) if fmt is not None else None


def _walk(root: Path, seen: set[tuple[int, int]], out: list[Path]) -> None:
    for folder, dirs, files in os.walk(root, followlinks=False):
        try:
            stat = os.stat(folder)
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) in seen:
            dirs.clear()
            continue
        seen.add((stat.st_dev, stat.st_ino))
        dirs.sort()
        out.extend(Path(folder) / f for f in sorted(files) if f.endswith(".jsonl"))
        if len(out) >= MAX_FILES:
            return


def find_transcripts(paths: Iterable[Path]) -> tuple[Path, ...]:
    """Every ``*.jsonl`` entry under ``paths`` (files are taken as given; missing paths ignored).

    Entries that are not regular files are listed too, so that the caller can report them;
    :func:`sniff_format` refuses them without opening them for a blocking read."""
    out: list[Path] = []
    seen: set[tuple[int, int]] = set()
    for path in paths:
        if path.is_dir():
            _walk(path, seen, out)
        elif path.exists():  # a file given by name, regular or not (a FIFO is reported, never opened)
            out.append(path)
        if len(out) >= MAX_FILES:
            break
    return tuple(dict.fromkeys(out))[:MAX_FILES]


def read_all(paths: Sequence[Path]) -> tuple[Session, ...]:
    """Read every transcript under ``paths``; unknown formats are left out."""
    sessions = []
    for path in find_transcripts(paths):
        session = read_transcript(path)
        if session is not None:
            sessions.append(session)
    return tuple(sessions)
