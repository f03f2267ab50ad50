"""The line clipper takes a string short enough to keep whole in one piece with the bytes around
it: what comes out is what taking the line token by token gives in the same chunks, and a
string whose body fits in ``keep`` bytes (half for its head, half for its tail) is kept whole."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.memory.transcripts.clip import LineClipper

KEEP = 64
# bodies mixing plain bytes, two-byte escapes, \uXXXX, an escaped quote and UTF-8
PIECES = st.sampled_from(["a", " ", "\\n", "\\\\", '\\"', "\\u00e9", "\u00e9", "\u4e2d", "x", "\\q"])
# around the edges: half of keep in tokens (two-byte escapes alone, or mixed), keep in tokens, beyond
BODY = st.one_of(
    st.lists(PIECES, max_size=8),
    st.lists(PIECES, min_size=KEEP // 2 - 2, max_size=KEEP // 2 + 2),
    st.lists(st.sampled_from(["\\n", '\\"', "\\\\"]), min_size=KEEP // 2 - 2, max_size=KEEP // 2 + 2),
    st.lists(PIECES, min_size=KEEP - 2, max_size=KEEP + 2),
    st.lists(PIECES, max_size=3 * KEEP),
)
BODIES = st.lists(BODY, min_size=1, max_size=12)


class _TokenByToken(LineClipper):
    """The clipper taking every string token by token, whatever its length."""

    def __init__(self, *, keep: int) -> None:
        super().__init__(keep=keep)
        self._plain = re.compile(rb'[^"]+')


def _clipped(clipper: LineClipper, line: bytes, chunk: int) -> bytes | None:
    for start in range(0, len(line), chunk):
        clipper.feed(line[start : start + chunk])
    return clipper.result()


def _line(bodies: list[list[str]]) -> bytes:
    return ('{"out": [' + ", ".join(f'"{"".join(pieces)}"' for pieces in bodies) + '], "n": 1}').encode()


@settings(max_examples=400, deadline=None)
@given(BODIES, st.integers(1, 97))
def test_any_line_comes_out_as_taking_it_token_by_token_gives_it(bodies: list[list[str]], chunk: int) -> None:
    line = _line(bodies)
    assert _clipped(LineClipper(keep=KEEP), line, chunk) == _clipped(_TokenByToken(keep=KEEP), line, chunk)


@settings(max_examples=200, deadline=None)
@given(BODIES, st.integers(1, 97))
def test_strings_that_fit_in_keep_come_back_byte_for_byte(bodies: list[list[str]], chunk: int) -> None:
    fitting = [pieces for pieces in bodies if len("".join(pieces).encode()) <= KEEP]
    line = _line(fitting)
    assert _clipped(LineClipper(keep=KEEP), line, chunk) == line


def test_millions_of_small_values_are_kept_until_the_line_limit() -> None:
    values = json.dumps(["v"] * 300_000).encode()
    assert _clipped(LineClipper(), values, 65_536) == values
    assert _clipped(LineClipper(limit=len(values) - 1), values, 65_536) is None
