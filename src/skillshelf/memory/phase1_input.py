"""The items text of Phase 1's prompt: the session's items as compact JSON, redacted, then cut
to the token budget in the middle (Codex's 4 bytes per token, :func:`truncate_middle`).

A session up to ``LARGE_SESSION_BYTES`` of JSON is built whole, as one text, then redacted and
cut. A larger one (a transcript may be 256 MiB) is never held as one text: its head and tail
items, at least a whole budget of bytes each, are redacted as two texts, and its middle,
which the cut drops, is redacted a window of items at a time only to learn its length (for the
``…N tokens truncated…`` count) and its secrets (replaced where the head or the tail repeats
them bare, and scrubbed from the model's answer). The result is the text the whole build gives,
except where a secret's context crosses a window's edge (as in :mod:`.redact.stream`), and
memory stays about a window and twice the budget beside the session itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from skillshelf.memory.redact import Redaction, redact
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.transcripts.model import Item

__all__ = ["LARGE_SESSION_BYTES", "WINDOW_BYTES", "items_text", "truncate_middle"]

LARGE_SESSION_BYTES = 16 << 20  # sessions up to this much JSON are built whole
WINDOW_BYTES = 1 << 20  # the middle of a larger one is redacted this much at a time


def _piece(item: Item) -> str:
    return json.dumps(item.to_dict(), ensure_ascii=False, separators=(",", ":"))


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _array(items: Sequence[Item]) -> str:
    return json.dumps([item.to_dict() for item in items], ensure_ascii=False, separators=(",", ":"))


def _cut(head: bytes, tail: bytes, total: int, budget: int) -> str:
    """The first ``budget // 2`` bytes of ``head`` and the last of ``tail`` around the marker
    (``total``: the bytes of the whole text the two come from)."""
    head_bytes = budget // 2
    tail_bytes = budget - head_bytes
    kept_head = head[:head_bytes].decode("utf-8", errors="ignore")
    tail_start = max(0, len(tail) - tail_bytes)
    while 0 < tail_start < len(tail) and (tail[tail_start] & 0xC0) == 0x80:
        tail_start += 1
    kept_tail = tail[tail_start:].decode("utf-8", errors="ignore") if tail_bytes else ""
    removed = -(-(total - budget) // 4)
    return f"{kept_head}…{removed} tokens truncated…{kept_tail}"


def truncate_middle(text: str, max_tokens: int) -> str:
    """Keep the head and tail of ``text`` within ``max_tokens`` (4 UTF-8 bytes each) with a
    ``…N tokens truncated…`` marker in the middle; unchanged when it fits."""
    data = text.encode("utf-8")
    budget = max(0, max_tokens) * 4
    if len(data) <= budget:
        return text
    return _cut(data, data, len(data), budget)


def _split(sizes: Sequence[int], budget: int) -> tuple[int, int] | None:
    """(end of the head items, start of the tail items), each side at least ``budget`` bytes;
    None when no item is left between them."""
    head_end, taken = 0, 0
    while head_end < len(sizes) and taken < budget:
        taken += sizes[head_end] + 1
        head_end += 1
    tail_start, taken = len(sizes), 0
    while tail_start > head_end and taken < budget:
        tail_start -= 1
        taken += sizes[tail_start] + 1
    return (head_end, tail_start) if head_end < tail_start else None


def _windows(items: Sequence[Item], sizes: Sequence[int], limit: int) -> Iterator[Sequence[Item]]:
    start, taken = 0, 0
    for index, size in enumerate(sizes):
        if taken and taken + size > limit:
            yield items[start:index]
            start, taken = index, 0
        taken += size + 1
    if start < len(items):
        yield items[start:]


def items_text(
    items: Sequence[Item], token_limit: int, *, large: int = LARGE_SESSION_BYTES, window: int = WINDOW_BYTES
) -> Redaction:
    """The prompt's items text (``text``, cut to ``token_limit``) and the secrets redaction took
    out of the items (``removed``); ``findings`` are left empty."""
    budget = max(0, token_limit) * 4
    sizes = [_size(_piece(item)) for item in items]
    bounds = _split(sizes, budget) if sum(sizes) + len(sizes) + 1 > large else None
    if bounds is None:
        whole = redact(_array(items))
        return Redaction(text=truncate_middle(whole.text, token_limit), findings=(), removed=whole.removed)
    head_end, tail_start = bounds
    head, tail = _array(items[:head_end]), _array(items[tail_start:])
    first_head, first_tail = redact(head), redact(tail)
    removed = [*first_head.removed, *first_tail.removed]
    known = KnownSecrets.of(removed) if removed else NO_SECRETS
    middle = -1  # the middle's redacted bytes, the commas between its windows included
    for part in _windows(items[head_end:tail_start], sizes[head_end:tail_start], window):
        seen = redact(_array(part), known=known)
        removed += seen.removed
        known = known | KnownSecrets.of(seen.removed)
        middle += _size(seen.text) - 2 + 1
    head_data = (redact(head, known=known).text[:-1] + ",").encode("utf-8")
    tail_data = ("," + redact(tail, known=known).text[1:]).encode("utf-8")
    total = len(head_data) + middle + len(tail_data)
    return Redaction(text=_cut(head_data, tail_data, total, budget), findings=(), removed=tuple(removed))
