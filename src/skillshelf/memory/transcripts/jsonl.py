"""Reading JSONL files line by line: broken or truncated lines are counted, never fatal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from skillshelf.errors import FileAccessError

__all__ = ["MAX_TRANSCRIPT_BYTES", "JsonlLines", "read_jsonl"]

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024


@dataclass(slots=True)
class JsonlLines:
    """The JSON objects of a file and how many lines had to be skipped."""

    objects: list[dict[str, object]]
    skipped: int


def _objects(raw: bytes) -> Iterator[dict[str, object] | None]:
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            value = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            yield None
            continue
        yield value if isinstance(value, dict) else None


def read_jsonl(path: Path) -> JsonlLines:
    """Every JSON object line of ``path``; other lines (broken, truncated, binary) are counted."""
    try:
        size = path.stat().st_size
        if size > MAX_TRANSCRIPT_BYTES:
            raise FileAccessError(
                f"{path}: transcript is {size} bytes, over the {MAX_TRANSCRIPT_BYTES} byte limit",
                hint="split or remove the file; it is skipped",
                code="ME102",
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise FileAccessError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the file's permissions", code="ME101"
        ) from exc
    objects: list[dict[str, object]] = []
    skipped = 0
    for value in _objects(raw):
        if value is None:
            skipped += 1
        else:
            objects.append(value)
    return JsonlLines(objects=objects, skipped=skipped)
