"""Clipping an over-long JSON line while it streams in: each long string keeps its head and tail.

A transcript line can be huge (a tool that printed 100 MB). Phase 1 never shows a model more
of a session than its token budget (150k tokens, about 600 KB, by default), so holding such a
line whole is waste. :class:`LineClipper` is fed the line in chunks and keeps, of every JSON
string longer than ``STRING_KEEP`` bytes, the first and last half around a
``…[clipped N bytes]…`` marker; everything outside strings is kept as it is. The result is
again one line of JSON (parsed as usual), or ``None`` when even the clipped line would be
longer than ``MAX_CLIPPED_LINE`` (a huge array of small values, deep nesting): that line is
skipped like a broken one.

Cuts fall between complete escapes (``\\n``, ``\\uXXXX``) and never inside a UTF-8 character,
so a clipped line decodes exactly as the original would, minus the middle of its long strings.
Clipping runs before redaction, so a cut must not leave part of a secret that redaction could no
longer recognise: each side of a cut is moved back (the head) or on (the tail) to the nearest
word break (whitespace, an escaped line break, tab or quote, or ``,;()[]{}<>'|`` and the
backtick) within ``TRIM_REACH`` bytes, so the token the cut fell in goes whole; where a side
has no break that close, ``TRIM_REACH`` bytes of it go.
``STRING_KEEP`` (1 MiB) is derived, not tuned: at or above the default Phase-1 budget, so a
default prompt shows the same head and tail of a huge output as it would unclipped.
"""

from __future__ import annotations

import re
from collections import deque
from functools import cache

__all__ = ["LINE_LIMIT", "MAX_CLIPPED_LINE", "STRING_KEEP", "TRIM_REACH", "LineClipper"]

LINE_LIMIT = 1 << 20  # lines up to this size are parsed whole; longer ones are clipped as they stream
STRING_KEEP = 1 << 20  # bytes kept of a longer string: half from its start, half from its end
MAX_CLIPPED_LINE = 16 << 20  # a line still longer than this once clipped is given up
TRIM_REACH = 4096  # how far a cut moves to a word break (longer than any token a rule knows)

# complete tokens of a JSON string's body: plain bytes and whole escapes
_STRING_RUN = re.compile(rb'(?:[^"\\]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})+')
_LONGEST_ESCAPE = 6  # \uXXXX
# from a token boundary on: whole escapes, and the word breaks (group "brk") among them
_BREAK = re.compile(rb"\\u[0-9a-fA-F]{4}|(?P<brk>\\[nrtbf\"]|[ ,;()\[\]{}<>'|`])|\\.", re.S)


@cache
def _plain_run(half: int) -> re.Pattern[bytes]:
    """Bytes outside strings together with the complete strings short enough to keep whole (a
    body of at most ``half`` tokens, so ``2 * half`` bytes: head and tail hold it all), which go
    out as they are, in one piece: a line of millions of small values is not taken token by
    token."""
    return re.compile(rb'(?:[^"]++|"(?:[^"\\]|\\.){0,%d}+")++' % half, re.S)


def _boundary(data: bytes, limit: int) -> int:
    """The largest cut ``<= limit`` in ``data`` (a run of whole tokens) that splits neither an
    escape nor a UTF-8 character."""
    match = _STRING_RUN.match(data, 0, limit)
    cut = match.end() if match else 0
    while 0 < cut < len(data) and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut


def _breaks(data: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The word breaks of ``data[start:end]`` (``start`` a token boundary) as (start, end)."""
    return [m.span() for m in _BREAK.finditer(data, start, end) if m.group("brk")]


def trim_head(head: bytes, reach: int) -> bytes:
    """``head`` (whole tokens) ending at its last word break within ``reach`` bytes of its end;
    without one, ``reach`` bytes shorter."""
    floor = _boundary(head, max(0, len(head) - reach))
    breaks = _breaks(head, floor, len(head))
    return head[: breaks[-1][1]] if breaks else head[:floor]


def trim_tail(tail: bytes, reach: int) -> bytes:
    """``tail`` (whole tokens) starting at its first word break within ``reach`` bytes;
    without one, ``reach`` bytes shorter."""
    breaks = _breaks(tail, 0, min(len(tail), reach))
    return tail[breaks[0][0] :] if breaks else tail[_boundary(tail, reach) :]


class LineClipper:
    """Feed one line's bytes in chunks, then take :meth:`result`."""

    def __init__(self, *, keep: int = STRING_KEEP, limit: int = MAX_CLIPPED_LINE) -> None:
        self._half = max(1, keep // 2)
        self._reach = min(TRIM_REACH, self._half // 4)
        self._limit = limit
        self._plain = _plain_run(self._half)
        self._out = bytearray()
        self._carry = b""
        self._in_string = False
        self._head = bytearray()
        self._head_full = False
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self._dropped = 0
        self.overflow = False

    def feed(self, chunk: bytes) -> None:
        if self.overflow:
            return
        data = self._carry + chunk if self._carry else chunk
        self._carry = b""
        pos, end = 0, len(data)
        while pos < end and not self.overflow:
            if not self._in_string:
                match = self._plain.match(data, pos)
                if match:
                    self._emit(match.group())
                    pos = match.end()
                    continue
                self._emit(b'"')
                self._in_string = True
                pos += 1
                continue
            match = _STRING_RUN.match(data, pos)
            if match:
                self._string(match.group())
                pos = match.end()
            elif data[pos] == 0x22:  # the closing quote
                self._close_string()
                pos += 1
            elif end - pos < _LONGEST_ESCAPE:  # an escape cut by the chunk's end
                self._carry = data[pos:]
                return
            else:  # an invalid escape: kept as it is (the line will not parse)
                self._string(data[pos : pos + 1])
                pos += 1

    def result(self) -> bytes | None:
        """The clipped line, or None when it cannot be kept."""
        if self._carry:
            carry, self._carry = self._carry, b""
            self._string(carry) if self._in_string else self._emit(carry)
        if self._in_string:
            self._close_string(closing=b"")
        return None if self.overflow else bytes(self._out)

    def _emit(self, data: bytes) -> None:
        self._out += data
        if len(self._out) > self._limit:
            self.overflow = True
            self._out.clear()

    def _string(self, run: bytes) -> None:
        if not self._head_full:
            room = self._half - len(self._head)
            if len(run) <= room:
                self._head += run
                return
            cut = _boundary(run, room)
            self._head += run[:cut]
            self._head_full = True
            run = run[cut:]
        self._tail.append(run)
        self._tail_len += len(run)
        while len(self._tail) > 1 and self._tail_len - len(self._tail[0]) >= self._half:
            dropped = self._tail.popleft()
            self._tail_len -= len(dropped)
            self._dropped += len(dropped)

    def _close_string(self, closing: bytes = b'"') -> None:
        tail = b"".join(self._tail)
        dropped = self._dropped
        if len(tail) > self._half:
            start = _boundary(tail, len(tail) - self._half)
            dropped += start
            tail = tail[start:]
        head = bytes(self._head)
        if dropped:  # no part of the token a cut fell in is kept
            kept_head, kept_tail = trim_head(head, self._reach), trim_tail(tail, self._reach)
            dropped += len(head) - len(kept_head) + len(tail) - len(kept_tail)
            head, tail = kept_head, kept_tail
        marker = f"\u2026[clipped {dropped} bytes]\u2026".encode() if dropped else b""
        self._emit(head + marker + tail + closing)
        self._in_string = self._head_full = False
        self._head = bytearray()
        self._tail.clear()
        self._tail_len = self._dropped = 0
