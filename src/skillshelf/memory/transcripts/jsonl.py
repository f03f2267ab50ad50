"""Reading JSONL files line by line as a stream: broken or truncated lines are counted, never fatal.

- Lines longer than ``LINE_LIMIT`` are clipped while they are read (:mod:`.clip`), so a 100 MB
  tool output costs about a megabyte, not a copy of the file.
- A line is kept when it is one JSON object, valid UTF-8, nested at most ``MAX_DEPTH`` deep
  (deeper values would overflow the stack of whoever serialises them again); any other line is
  skipped and counted.
- Lone UTF-16 surrogate escapes (``"\\ud800"``) are read as U+FFFD, so every string read is
  valid Unicode that a database or a model API accepts.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from skillshelf.errors import FileAccessError, reason
from skillshelf.memory.transcripts.clip import LINE_LIMIT, LineClipper

__all__ = ["MAX_DEPTH", "MAX_TRANSCRIPT_BYTES", "JsonlLines", "iter_lines", "parse_line", "read_jsonl"]

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 200  # far deeper than any agent writes; json.dumps of it stays clear of the recursion limit

_HAS_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_ESCAPE = re.compile(  # every escape in order, so an escaped backslash is never misread
    rb"\\(?:(?P<pair>u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?P<lone>u[dD][89a-fA-F][0-9a-fA-F]{2})|.)",
    re.S,
)


class Lines(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def too_big_error(path: Path, size: int) -> FileAccessError:
    return FileAccessError(
        f"{path}: transcript is {size} bytes, over the {MAX_TRANSCRIPT_BYTES} byte limit",
        hint="split or remove the file; it is skipped",
        code="ME102",
    )


def read_error(path: Path, exc: OSError) -> FileAccessError:
    return FileAccessError(
        f"cannot read {path}: {reason(exc)}", hint="check the file's permissions", code="ME101"
    )


def iter_lines(handle: Lines) -> Iterator[bytes | None]:
    """Each line of ``handle``; a long one clipped, or None when not even that can be kept."""
    while line := handle.readline(LINE_LIMIT):
        if len(line) < LINE_LIMIT or line.endswith(b"\n"):
            yield line
            continue
        clipper = LineClipper()
        clipper.feed(line)
        while chunk := handle.readline(LINE_LIMIT):
            clipper.feed(chunk)
            if chunk.endswith(b"\n"):
                break
        yield clipper.result()


def _lone_surrogate(match: re.Match[bytes]) -> bytes:
    return rb"\ufffd" if match.group("lone") else match.group(0)


def _deeper_than(value: object, limit: int) -> bool:
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return False


def parse_line(raw: bytes) -> dict[str, object] | None:
    """One line as a JSON object, or None (not JSON, not an object, not UTF-8, too deep)."""
    if _HAS_SURROGATE.search(raw):
        raw = _ESCAPE.sub(_lone_surrogate, raw)
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _deeper_than(value, MAX_DEPTH):
        return None
    return value


class JsonlLines:
    """The JSON objects of one file, read as they are iterated; ``skipped`` counts the other lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped = 0

    def __iter__(self) -> Iterator[dict[str, object]]:
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise read_error(self.path, exc) from exc
        with handle:
            try:
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_TRANSCRIPT_BYTES:
                    raise too_big_error(self.path, size)
                for line in iter_lines(handle):
                    if line is not None and not line.strip():
                        continue
                    value = None if line is None else parse_line(line)
                    if value is None:
                        self.skipped += 1
                    else:
                        yield value
            except OSError as exc:
                raise read_error(self.path, exc) from exc


def read_jsonl(path: Path) -> JsonlLines:
    """The JSON object lines of ``path``, streamed (iterate once); other lines are counted in ``skipped``."""
    return JsonlLines(path)
