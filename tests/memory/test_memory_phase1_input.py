"""Phase 1's input: pinned byte for byte for sessions of every normal size, and the same text
for a session too large to hold whole, which is read with a bounded head and tail."""

from __future__ import annotations

import hashlib
import json
import random
import string
from dataclasses import replace
from pathlib import Path

import pytest

from skillshelf.memory.phase1 import filter_items, stage1_prompt, truncate_middle
from skillshelf.memory.phase1_input import items_text
from skillshelf.memory.redact import redact
from skillshelf.memory.transcripts import read_transcript
from skillshelf.memory.transcripts.model import Item, Session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
_ALNUM = string.ascii_letters + string.digits


def _token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_ALNUM) for _ in range(n - 2)) + "a7"


def _session(items: list[Item]) -> Session:
    return Session(
        id="s1",
        source="skillshelf",
        path=Path("/t/s1.jsonl"),
        cwd=Path("/w"),
        started_at=None,
        ended_at=None,
        items=tuple(items),
    )


def synthetic(count: int, *, seed: int = 7, width: int = 5000) -> Session:
    """``count`` items of prose, tool calls and results, with secrets throughout (assignments, a
    bare repeat of one, a private key split over two results, non-ASCII text)."""
    rng = random.Random(seed)
    words = ["deploy", "staging", "pytest", "réussi", "ünïcode", "構築", "log", "line", "ok", "error"]
    items: list[Item] = []
    secrets = [_token(rng, 40) for _ in range(8)]
    for n in range(count):
        text = " ".join(rng.choice(words) for _ in range(width // 7))
        if n % 97 == 5:
            text += f"\nexport API_TOKEN={secrets[n % 8]}\n"
        if n % 89 == 3:
            text += f" and then {secrets[(n + 1) % 8]} again"
        if n % 151 == 10:
            text += "\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(_token(rng, 70) for _ in range(3))
        if n % 151 == 11:
            text = (
                "\n".join(_token(rng, 70) for _ in range(2)) + "\n-----END OPENSSH PRIVATE KEY-----\n" + text
            )
        kind = ("message", "tool_call", "tool_result")[n % 3]
        role = (
            ("user", "assistant")[n % 2]
            if kind == "message"
            else ("assistant" if kind == "tool_call" else "tool")
        )
        name = "shell" if kind != "message" else None
        items.append(Item(kind=kind, role=role, parts=(text,), name=name, call_id=f"c{n}" if name else None))
    return _session(items)


def _fixture_sessions() -> list[Session]:
    sessions = []
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        session = read_transcript(path)
        assert session is not None
        sessions.append(replace(session, path=Path("/t") / path.name, cwd=Path("/w")))
    return sessions


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


PINNED = {  # sha256 of the user prompt, as Phase 1 built it before sessions were read in bounds
    ("fixtures", 100): "9507ecd944a7aef5",
    ("fixtures", 150_000): "93122c1591d5a544",
    ("synthetic-300", 1000): "24ffa541c439ea55",
    ("synthetic-300", 150_000): "869547b670565e6c",
    ("synthetic-600", 150_000): "f591583e8ed33f87",
}


def _prompts(name: str, limit: int) -> str:
    sessions = _fixture_sessions() if name == "fixtures" else [synthetic(int(name.split("-")[1]))]
    return "\n".join(stage1_prompt(s, token_limit=limit).user for s in sessions)


@pytest.mark.parametrize(("name", "limit"), list(PINNED))
def test_phase1_input_of_a_normal_size_session_is_pinned_byte_for_byte(name: str, limit: int) -> None:
    assert _digest(_prompts(name, limit)) == PINNED[(name, limit)]


def _whole(session: Session, limit: int) -> str:
    """Phase 1's items text as built whole: redacted, then cut in the middle."""
    items = [item.to_dict() for item in filter_items(session.items)]
    text = redact(json.dumps(items, ensure_ascii=False, separators=(",", ":"))).text
    return truncate_middle(text, limit)


@pytest.mark.parametrize("limit", [1000, 20_000])
def test_a_session_too_large_to_hold_whole_gives_the_text_the_whole_build_gives(limit: int) -> None:
    session = synthetic(300)
    items = filter_items(session.items)
    bounded = items_text(items, limit, large=0, window=200_000)
    assert bounded.text == _whole(session, limit)
    whole = redact(json.dumps([item.to_dict() for item in items], ensure_ascii=False, separators=(",", ":")))
    assert set(bounded.removed) == set(whole.removed)


def test_a_secret_revealed_in_the_dropped_middle_is_redacted_where_the_head_repeats_it() -> None:
    rng = random.Random(3)
    secret = "pw" + _token(rng, 10).lower()  # a short password: no rule finds it bare
    items = [Item(kind="message", role="user", parts=(f"I logged in with {secret} fine " + "x " * 900,))]
    items += [Item(kind="message", role="assistant", parts=("ok " * 1500,)) for _ in range(20)]
    items[10] = Item(kind="tool_call", role="assistant", parts=(f"mysql -u root -p{secret} db",), name="sh")
    bounded = items_text(items, 1000, large=0, window=10_000)
    assert secret not in bounded.text and "[REDACTED_SECRET] fine" in bounded.text
    assert secret in bounded.removed
