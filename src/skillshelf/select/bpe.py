"""Byte-pair encoding as SentencePiece-style tokenizers do it, in plain Python.

WordLlama's table (:mod:`skillshelf.select.wordllama`), the base install's embedding, is keyed
by the tokens of a Llama-2-style BPE vocabulary (32,000 pieces, merges ranked, byte fallback). This module
turns text into those token ids without the ``tokenizers`` package: the text is normalised as
the original tokenizer does (``"▁"`` prepended, every space replaced by ``"▁"``), cut into
segments where no merge can join two characters (before a run of ``"▁"``, since no piece of
the vocabulary holds ``"▁"`` after another character, and around a character that only
single-character pieces hold, such as a newline), so the result is that of the whole string; each segment is
merged pair by pair, lowest rank first, the leftmost first among equals. A character the
vocabulary lacks becomes its UTF-8 bytes (``<0xNN>`` pieces). Segments are cached, so a
text's cost is a dictionary lookup per word once its words have been seen.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Mapping

from skillshelf.select.tokenize import WordCache

__all__ = ["SPACE", "BytePairEncoder"]

SPACE = "\u2581"
MAX_SEGMENT_CHARS = 16 * 1024
"""A longer segment (a base64 blob, a minified file) is encoded in slices of this many
characters, which bounds the work per cached segment; such runs carry no meaning."""


class BytePairEncoder:
    """``encoder.ids(text) -> [token id, ...]`` for a vocabulary and its ranked merges, each
    merge written as its two pieces with one space between (``"▁ t"``), as ``tokenizers``
    files hold them."""

    def __init__(self, vocab: Mapping[str, int], merges: Iterable[str]) -> None:
        self.vocab = dict(vocab)
        merges = list(merges)
        self.ranks = dict(zip(merges, range(len(merges)), strict=True))
        self._bytes = [self.vocab.get(f"<0x{b:02X}>", -1) for b in range(256)]
        self._cache: WordCache[tuple[int, ...]] = WordCache(self._segment_ids, limit=1 << 18)
        joinable = set("".join(piece for piece in self.vocab if len(piece) > 1)) - {SPACE}
        chars = re.escape("".join(sorted(joinable)))
        # a character no merge touches stands alone; otherwise a run of spaces and what follows
        self._segments = re.compile(f"[^{SPACE}{chars}]|{SPACE}*[{chars}]*")

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text`` (no special tokens)."""
        if not text:
            return []
        normal = SPACE + text.replace(" ", SPACE)
        out: list[int] = []
        for match in self._segments.finditer(normal):
            segment = match.group()
            if not segment:
                continue
            for start in range(0, len(segment), MAX_SEGMENT_CHARS):
                out.extend(self._cache[segment[start : start + MAX_SEGMENT_CHARS]])
        return out

    def _segment_ids(self, segment: str) -> tuple[int, ...]:
        pieces = self._merge(list(segment))
        out: list[int] = []
        for piece in pieces:
            found = self.vocab.get(piece)
            if found is not None:
                out.append(found)
                continue
            out.extend(i for i in (self._bytes[b] for b in piece.encode("utf-8", "replace")) if i >= 0)
        return tuple(out)

    def _merge(self, pieces: list[str]) -> list[str]:
        """Merge adjacent pieces, the lowest-ranked pair first and the leftmost among equals
        (a heap over the pairs and a linked list over the pieces: n log n, not n squared)."""
        ranks = self.ranks
        after = list(range(1, len(pieces) + 1))
        before = list(range(-1, len(pieces) - 1))
        heap: list[tuple[int, int, str, str]] = []
        for i in range(len(pieces) - 1):
            rank = ranks.get(f"{pieces[i]} {pieces[i + 1]}")
            if rank is not None:
                heap.append((rank, i, pieces[i], pieces[i + 1]))
        heapq.heapify(heap)
        while heap:
            _, i, left, right = heapq.heappop(heap)
            j = after[i]
            if j >= len(pieces) or pieces[i] != left or pieces[j] != right:
                continue  # a pair that an earlier merge took apart
            pieces[i], pieces[j] = left + right, ""
            after[i] = after[j]
            if after[i] < len(pieces):
                before[after[i]] = i
            for a, b in ((before[i], i), (i, after[i])):
                if a >= 0 and b < len(pieces):
                    rank = ranks.get(f"{pieces[a]} {pieces[b]}")
                    if rank is not None:
                        heapq.heappush(heap, (rank, a, pieces[a], pieces[b]))
        return [p for p in pieces if p]
