"""Transcripts in: Codex rollouts, Claude Code sessions and skillshelf's own transcripts, read
into one :class:`Session` model. Broken or truncated lines are skipped and counted.

:func:`read_transcript` sniffs the format from the first lines; :func:`find_transcripts`
lists the files under the usual folders or under paths the user gives.

Codes (``FileAccessError``, the file is skipped): ``ME101`` cannot be read, ``ME102`` too big,
``ME104`` in no format we know, ``ME105`` not a regular file (a FIFO or device would block).
"""

from __future__ import annotations

import os
import stat as stat_mode
from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.memory.transcripts.claude import looks_like_claude, read_claude
from skillshelf.memory.transcripts.codex import looks_like_codex, read_codex
from skillshelf.memory.transcripts.jsonl import (
    MAX_TRANSCRIPT_BYTES,
    iter_lines,
    parse_line,
    read_error,
    too_big_error,
)
from skillshelf.memory.transcripts.model import Item, Session, SessionSource
from skillshelf.memory.transcripts.skillshelf import looks_like_skillshelf, read_skillshelf

__all__ = [
    "Item",
    "Session",
    "SessionSource",
    "default_transcript_roots",
    "find_transcripts",
    "read_transcript",
]

MAX_FILES = 20000
SNIFF_LINES = 20


def default_transcript_roots(env: Env, state_dir: Path) -> tuple[Path, ...]:
    """Codex sessions, Claude Code projects and skillshelf transcripts, in that order."""
    return (env.codex_home / "sessions", env.home / ".claude" / "projects", state_dir / "transcripts")


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
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise read_error(path, exc) from exc
    handle = os.fdopen(fd, "rb")
    info = os.fstat(fd)
    if not stat_mode.S_ISREG(info.st_mode):
        handle.close()
        raise not_regular_error(path)
    if info.st_size > MAX_TRANSCRIPT_BYTES:
        handle.close()
        raise too_big_error(path, info.st_size)
    return handle


def _source_of(first: dict[str, object]) -> SessionSource | None:
    if looks_like_codex(first):
        return "codex"
    if looks_like_skillshelf(first):
        return "skillshelf"
    if looks_like_claude(first):
        return "claude"
    if first.get("type") == "response_item" or ("id" in first and "instructions" in first):
        return "codex"
    return None


def sniff_source(path: Path) -> SessionSource | None:
    """Which agent wrote ``path`` (from its first 20 lines, long ones clipped as they stream), or
    None; raises for a file that cannot be read, is not regular or is too big."""
    with _open_regular(path) as handle:
        try:
            for line in islice(iter_lines(handle), SNIFF_LINES):
                first = parse_line(line) if line else None
                source = _source_of(first) if first is not None else None
                if source is not None:
                    return source
        except OSError as exc:
            raise read_error(path, exc) from exc
    return None


def read_transcript(path: Path) -> Session | None:
    """The session in ``path``, or None when the file is in no format we know."""
    source = sniff_source(path)
    if source == "codex":
        return read_codex(path)
    if source == "claude":
        return read_claude(path)
    if source == "skillshelf":
        return read_skillshelf(path)
    return None


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
    :func:`sniff_source` refuses them without opening them for a blocking read."""
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
