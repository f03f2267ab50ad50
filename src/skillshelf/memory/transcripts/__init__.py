"""Transcripts in: Codex rollouts, Claude Code sessions and skillshelf's own transcripts, read
into one :class:`Session` model. Broken or truncated lines are skipped and counted.

:func:`read_transcript` sniffs the format from the first lines; :func:`find_transcripts`
lists the files under the usual folders or under paths the user gives.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.memory.transcripts.claude import looks_like_claude, read_claude
from skillshelf.memory.transcripts.codex import looks_like_codex, read_codex
from skillshelf.memory.transcripts.model import Item, Session, SessionSource
from skillshelf.memory.transcripts.skillshelf import looks_like_skillshelf, read_skillshelf

__all__ = ["Item", "Session", "SessionSource", "default_transcript_roots", "find_transcripts", "read_transcript"]

MAX_FILES = 20000


def default_transcript_roots(env: Env, state_dir: Path) -> tuple[Path, ...]:
    """Codex sessions, Claude Code projects and skillshelf transcripts, in that order."""
    return (env.codex_home / "sessions", env.home / ".claude" / "projects", state_dir / "transcripts")


def sniff_source(path: Path) -> SessionSource | None:
    """Which agent wrote ``path`` (from its first JSON lines), or None."""
    try:
        with path.open("rb") as handle:
            head = handle.read(256 * 1024)
    except OSError as exc:
        raise FileAccessError(f"cannot read {path}: {exc.strerror or exc}", code="ME101",
                              hint="check the file's permissions") from exc
    import json

    for line in head.split(b"\n")[:20]:
        try:
            first = json.loads(line)
        except ValueError:
            continue
        if not isinstance(first, dict):
            continue
        if looks_like_codex(first):
            return "codex"
        if looks_like_skillshelf(first):
            return "skillshelf"
        if looks_like_claude(first):
            return "claude"
        if first.get("type") == "response_item" or ("id" in first and "instructions" in first):
            return "codex"
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
    """Every ``*.jsonl`` file under ``paths`` (files are taken as given; missing paths ignored)."""
    out: list[Path] = []
    seen: set[tuple[int, int]] = set()
    for path in paths:
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            _walk(path, seen, out)
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

