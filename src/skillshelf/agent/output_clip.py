"""A command's output cut to its first and last part, redacted before the cut and cut between lines.

:class:`~skillshelf.agent.tool_io.run_clipped` keeps the first and the last ``limit // 2 +
MARGIN`` bytes of what a command prints. :func:`clipped_text` turns them into the text the model
reads:

* The kept bytes are cleaned (redacted) with their margins, so a secret that straddles the cut,
  or whose context (``password: X``, a key's ``BEGIN`` line) lies just beyond it, is seen whole
  by the redaction; the cut then drops the margins.
* The cut falls after a line break within :data:`LINE_WINDOW` bytes of the limit, else at a
  space or tab within :data:`WORD_WINDOW` bytes (either window at most a quarter of the room,
  so a part keeps most of it), else between two characters: never inside a
  UTF-8 sequence, and where it can be helped, never inside a word or a line. With a line cut
  the kept lines are taken from the cleaned text line for line (cleaning keeps the count of
  lines); otherwise the cleaned text itself is cut the same way, never inside a marker, so a
  secret on a line longer than the window goes whole.

``clean`` takes the head and the tail in order and returns them cleaned; what it learns of the
head (the secrets it found) it may use on the tail: :func:`skillshelf.agent.shell_env.redacted_parts`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skillshelf.memory.redact import REDACTED

__all__ = ["LINE_WINDOW", "MARGIN", "WORD_WINDOW", "Cleaner", "clipped_text"]

#: Bytes kept beyond each half, so the redaction sees what straddles the cut.
MARGIN = 4096
#: How far before the limit a line break may end the head (after the limit for the tail).
LINE_WINDOW = 4096
#: How far a space or tab may be from the limit when no line break is near.
WORD_WINDOW = 256

Cleaner = Callable[[Sequence[str]], list[str]]


def _identity(texts: Sequence[str]) -> list[str]:
    return list(texts)


def _continuation(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


def _head_cut(data: bytes, at: int) -> tuple[int, bool]:
    """Where the head ends (at most ``at``): after a line break, at a blank or between chars;
    and whether it is after a line break. A break counts within a window of a quarter of ``at``
    at most, so the head keeps most of its room."""
    if len(data) <= at:
        return len(data), False
    newline = data.rfind(b"\n", at - min(LINE_WINDOW, at // 4), at)
    if newline >= 0:
        return newline + 1, True
    low = at - min(WORD_WINDOW, at // 4)
    blank = max(data.rfind(b" ", low, at), data.rfind(b"\t", low, at))
    if blank > 0:
        return blank, False
    while at > 0 and _continuation(data[at]):
        at -= 1
    return at, False


def _tail_cut(data: bytes, at: int) -> tuple[int, bool]:
    """Where the tail starts (at least ``at``): after a line break, after a blank or on a char,
    within a quarter of the tail's room, and never at its very end."""
    if at <= 0:
        return 0, False
    room = len(data) - at
    high = min(len(data) - 1, at + min(LINE_WINDOW, room // 4))
    newline = data.find(b"\n", at - 1, high)
    if newline >= 0:
        return newline + 1, True
    high = min(len(data) - 1, at + min(WORD_WINDOW, room // 4))
    blank = max(data.find(b" ", at, high), data.find(b"\t", at, high))
    if blank >= 0:
        return blank + 1, False
    while at < len(data) and _continuation(data[at]):
        at += 1
    return at, False


def _lines_before(text: str, count: int) -> str:
    """``text`` up to and with its ``count``-th line break."""
    at = -1
    for _ in range(count):
        at = text.index("\n", at + 1)
    return text[: at + 1]


def _marker_spans(text: str) -> list[tuple[int, int]]:
    spans, at = [], text.find(REDACTED)
    while at >= 0:
        spans.append((at, at + len(REDACTED)))
        at = text.find(REDACTED, at + 1)
    return spans


def _cleaned_head(text: str, limit: int) -> str:
    """The start of cleaned ``text`` in ``limit`` UTF-8 bytes at most, cut as a raw head is
    and never inside a marker."""
    data = text.encode("utf-8")
    end, _ = _head_cut(data, limit)
    kept = data[:end].decode("utf-8", errors="replace")
    for start, stop in _marker_spans(text):
        if start < len(kept) < stop:
            return kept[:start]
    return kept


def _cleaned_tail(text: str, limit: int) -> str:
    """The end of cleaned ``text`` in ``limit`` UTF-8 bytes at most, cut as a raw tail is and
    never inside a marker."""
    data = text.encode("utf-8")
    begin, _ = _tail_cut(data, max(0, len(data) - limit))
    kept = data[begin:].decode("utf-8", errors="replace")
    at = len(text) - len(kept)
    for start, stop in _marker_spans(text):
        if start < at < stop:
            return text[stop:]
    return kept


def clipped_text(head: bytes, tail: bytes, total: int, limit: int, clean: Cleaner = _identity) -> str:
    """The text of an output of ``total`` bytes whose first bytes are ``head`` and last bytes
    ``tail`` (``head + tail`` is the whole output when ``total`` is their length): whole when
    ``total <= limit``, else its first and last ``limit // 2`` bytes or less, cut as the module
    says, with the count of the bytes left out between them (counted on the cleaned text where
    the cut is not between lines). Every kept text went through ``clean``."""
    if total <= len(head) + len(tail):  # nothing lies between: the whole output is here
        whole = head + tail
        if total <= limit:
            return clean([whole.decode("utf-8", errors="replace")])[0]
        keep = limit // 2 + MARGIN
        head, tail = whole[:keep], whole[max(0, len(whole) - keep) :]
    while tail and _continuation(tail[0]):  # the tail opened inside a character
        tail = tail[1:]
    half = max(1, limit // 2)
    raw_head, raw_tail = head.decode("utf-8", errors="replace"), tail.decode("utf-8", errors="replace")
    clean_head, clean_tail = clean([raw_head, raw_tail])
    head_end, head_lines = _head_cut(head, half)
    tail_start, tail_lines = _tail_cut(tail, max(0, len(tail) - half))
    if head_lines and clean_head.count("\n") == raw_head.count("\n"):
        kept_head = _lines_before(clean_head, head[:head_end].count(b"\n"))
    else:
        kept_head = _cleaned_head(clean_head, half)
        head_end = len(kept_head.encode("utf-8"))
    if tail_lines and clean_tail.count("\n") == raw_tail.count("\n"):
        kept_tail = clean_tail[len(_lines_before(clean_tail, tail[:tail_start].count(b"\n"))) :]
    else:
        kept_tail = _cleaned_tail(clean_tail, half)
        tail_start = len(tail) - len(kept_tail.encode("utf-8"))
    cut = max(1, total - head_end - (len(tail) - tail_start))
    return f"{kept_head}\n... [{cut} bytes of output cut] ...\n{kept_tail}"
