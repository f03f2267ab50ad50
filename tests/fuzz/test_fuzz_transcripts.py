"""Fuzzing transcripts: records of the real Codex and Claude Code fixtures and of skillshelf's own
format, with values swapped for other JSON (wrong types, NULs, odd text), records dropped or
repeated, and broken lines. Reading never raises anything but a coded ``FileAccessError``; the
Phase-1 prompt built from what was read never raises and holds no planted secret."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import fuzz
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.errors import FileAccessError
from skillshelf.memory.phase1 import build_stage1_prompt
from skillshelf.memory.transcripts import read_transcript

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
SKILLSHELF = [
    {
        "type": "session_meta",
        "ts": "2026-11-29T18:55:40.000Z",
        "cwd": "/tmp/p",
        "id": "s-1",
        "agent": "skillshelf",
        "origin": "run",
    },
    {
        "type": "message",
        "ts": "2026-11-29T18:55:41.000Z",
        "cwd": "/tmp/p",
        "role": "user",
        "text": "run the tests",
    },
    {
        "type": "tool_call",
        "ts": "2026-11-29T18:55:42.000Z",
        "cwd": "/tmp/p",
        "id": "c1",
        "name": "bash",
        "arguments": {"command": "make check"},
    },
    {
        "type": "tool_result",
        "ts": "2026-11-29T18:55:43.000Z",
        "cwd": "/tmp/p",
        "id": "c1",
        "output": "ok",
        "is_error": False,
    },
]
SOURCES = {
    "codex": [
        json.loads(line)
        for line in next((FIXTURES / "codex").glob("*.jsonl")).read_text(encoding="utf-8").splitlines()
    ],
    "claude": [
        json.loads(line)
        for line in next((FIXTURES / "claude").glob("*.jsonl")).read_text(encoding="utf-8").splitlines()
    ],
    "skillshelf": SKILLSHELF,
}
SECRET = "ghp_" + "Zq8" * 12  # a token shape the redactor knows (no real secret)
SWAPS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.just("x\x00y")
    | st.just(SECRET),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a record a value can be swapped."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _swap(record: Any, path: tuple[Any, ...], new: Any) -> Any:
    record = json.loads(json.dumps(record))
    target = record
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return record


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[str, list[str]]:
    source = draw(st.sampled_from(sorted(SOURCES)))
    records = list(SOURCES[source])
    for _ in range(draw(st.integers(0, 4))):
        index = draw(st.integers(0, len(records) - 1))
        paths = _paths(records[index])
        if not paths:
            continue
        path = draw(st.sampled_from(paths))
        records[index] = _swap(records[index], path, draw(SWAPS))
    if draw(st.booleans()):
        records = draw(st.permutations(records))[: draw(st.integers(1, len(records)))]
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in records]
    if draw(st.booleans()):
        lines.insert(
            draw(st.integers(0, len(lines))),
            draw(st.sampled_from(["", "{", "not json", "[1, 2", '{"type": "x"}', "\x00"])),
        )
    if draw(st.booleans()) and lines:
        lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]  # the last line cut by a crash
    return source, lines


@fuzz(weight=0.5)
@given(transcripts())
def test_transcripts_never_break_reading_or_the_prompt(case: tuple[str, list[str]]) -> None:
    source, lines = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("rollout-2026-11-29T18-55-40-x.jsonl" if source == "codex" else "s.jsonl")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
        try:
            session = read_transcript(path)
        except FileAccessError as exc:
            assert exc.code.startswith("ME")
            return
        if session is None:
            return
        system, user = build_stage1_prompt(session, token_limit=20_000)
        assert SECRET not in user and system


POISON = {
    "type-is-a-list": '{"type": ["x"]}\n',
    "nested-100000": "[" * 100_000 + "]" * 100_000 + "\n",
}


@pytest.mark.parametrize("text", POISON.values(), ids=POISON.keys())
def test_a_poison_transcript_is_skipped_with_a_reason(tmp_path: Path, text: str) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(text, encoding="utf-8")
    try:
        assert read_transcript(path) is None
    except FileAccessError as exc:
        assert exc.code.startswith("ME")
