"""A long string clipped while it streams in keeps no part of a secret the cut fell in, so
redaction, which runs on the clipped text, never sees (and passes on) half a token."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from redact_cases import openssh_keys, r, windows, words

from skillshelf.memory.phase1 import serialize_items
from skillshelf.memory.transcripts.clip import TRIM_REACH, LineClipper, trim_head, trim_tail
from skillshelf.memory.transcripts.model import Item

KEEP = 40_000  # 20,000 bytes of head and of tail
HALF = KEEP // 2


def _clip(text: str, keep: int = KEEP) -> str:
    line = json.dumps({"type": "tool_result", "output": text}).encode()
    clipper = LineClipper(keep=keep)
    for start in range(0, len(line), 4096):
        clipper.feed(line[start : start + 4096])
    clipped = clipper.result()
    assert clipped is not None
    output = json.loads(clipped)["output"]
    assert isinstance(output, str)
    return output


def _prompt(text: str) -> str:
    """What Phase 1 shows the model of a tool output: the clipped text, redacted."""
    return serialize_items([Item(kind="tool_result", role="tool", parts=(_clip(text),))])


def _output_with(secret: str, at: int, size: int) -> str:
    """``size`` characters of prose with ``secret`` starting at ``at`` (``at`` on a space)."""
    prose = words(size // 5)
    while len(prose) < size:
        prose += " " + words(1000)
    return prose[:at] + " " + secret + " " + prose[at + len(secret) + 2 : size]


@pytest.mark.parametrize("into", [1, 4, 15, 30, 39])
@pytest.mark.parametrize("side", ["head", "tail"])
def test_a_token_cut_by_the_clip_leaves_no_fragment_for_the_model(side: str, into: int) -> None:
    token = "ghp_" + r(36)
    size = 3 * KEEP
    if side == "head":
        at = HALF - into - 1  # the cut falls `into` characters into the token
    else:
        at = size - HALF - into - 1  # the tail starts `into` characters into it
    prompt = _prompt(_output_with(token, at, size))
    assert "[clipped " in prompt
    assert [w for w in windows(token[4:], 6) if w in prompt] == []


@pytest.mark.parametrize("into", [8, 19, 28])
def test_a_private_key_cut_by_the_clip_leaves_no_key_line_for_the_model(tmp_path: Path, into: int) -> None:
    [key, *_] = openssh_keys(tmp_path / "keys", 1)
    lines = key.strip().splitlines()
    prose = words(KEEP // 5)
    fourth_line = 2 + sum(len(line) + 2 for line in lines[:4])  # after `\n` and 4 lines, escaped
    text = prose[: HALF - fourth_line - into] + "\n" + key + prose * 2  # cut `into` bytes into it
    prompt = _prompt(text)
    assert "[clipped " in prompt
    body = "".join(lines[1:-1])
    assert [w for w in windows(body, 6) if w in prompt] == []


def test_the_clip_moves_to_the_nearest_word_break_and_counts_what_it_dropped() -> None:
    text = words(3 * KEEP // 5)
    clipped = _clip(text)
    head, _, rest = clipped.partition("\u2026[clipped ")
    count, _, tail = rest.partition(" bytes]\u2026")
    assert text.startswith(head) and text.endswith(tail)
    assert head.endswith(" ") and tail.startswith(" ")
    assert len(head) > HALF - 60 and len(tail) > HALF - 20  # a word's length, not TRIM_REACH
    assert int(count) == len(text) - len(head) - len(tail)


def test_a_side_without_a_word_break_loses_trim_reach_bytes_and_stays_valid_json() -> None:
    escaped = json.dumps("\u00e9" * 5000)[1:-1].encode()  # \u00e9 escapes: no break anywhere
    head = trim_head(escaped, TRIM_REACH)
    tail = trim_tail(escaped, TRIM_REACH)
    assert len(escaped) - TRIM_REACH - 6 < len(head) <= len(escaped) - TRIM_REACH
    assert len(escaped) - TRIM_REACH <= len(tail) < len(escaped) - TRIM_REACH + 6
    assert re.fullmatch(rb"(?:\\u00e9)*", head) and re.fullmatch(rb"(?:\\u00e9)*", tail)


def test_an_escaped_line_break_or_quote_is_a_word_break_but_an_escaped_backslash_is_not() -> None:
    assert trim_head(b"keep\\nsecretpart", 64) == b"keep\\n"
    assert trim_tail(b'partial\\"rest', 64) == b'\\"rest'
    assert trim_head(b"a b\\\\nsecret", 64) == b"a "
