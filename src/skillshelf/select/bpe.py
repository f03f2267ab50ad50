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

The model is compiled to integers (:class:`BpeTables`): a merge is the pair of its pieces' ids,
and the merging works on ids, so a process that encodes one request does not build a
dictionary of 61,000 strings first. The pairs are two sorted arrays searched by bisection
(read from the cache folder in about 2 ms, see
:mod:`skillshelf.select.modelcache`); once :data:`DICT_AFTER` lookups were made (an index
build), they become a dictionary.
"""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from skillshelf.select.tokenize import WordCache

__all__ = ["SPACE", "BpeTables", "BytePairEncoder", "compile_tables"]

SPACE = "\u2581"
MAX_SEGMENT_CHARS = 16 * 1024
"""A longer segment (a base64 blob, a minified file) is encoded in slices of this many
characters, which bounds the work per cached segment; such runs carry no meaning."""

ID_BITS = 16
"""A pair of ids is one integer, ``left << ID_BITS | right``; a merge's rank and the id of the
piece it makes are one too, ``rank << ID_BITS | id``. Vocabularies of up to 65,536 pieces."""

DICT_AFTER = 10_000
"""Pair lookups by bisection before the pairs become a dictionary. Measured with WordLlama's
61,249 merges: a lookup by bisection costs about 0.5-1 µs, building the dictionary about 9 ms,
so encoding a request (a few hundred lookups) never builds it and an index build does at once."""

_DEAD = -(1 << 22)
"""A merged-away slot (a character the vocabulary lacks is ``-1 - ord(char)``, above this)."""


class BpeTables(NamedTuple):
    """A BPE model in integers: what :class:`BytePairEncoder` works from, and what the cache
    folder keeps (:mod:`skillshelf.select.modelcache`)."""

    chars: dict[str, int]
    """Each one-character piece's id."""
    pairs: array[int]
    """Every merge as ``left id << ID_BITS | right id``, sorted (typecode ``q``)."""
    merges: array[int]
    """For ``pairs[k]``: its rank and the merged piece's id, ``rank << ID_BITS | id`` (``q``)."""
    byte_ids: list[int]
    """The id of each byte's ``<0xNN>`` piece (-1: none)."""
    joinable: str
    """The characters some piece of two or more characters holds, ``"▁"`` left out."""


def compile_tables(vocab: Mapping[str, int], merges: Iterable[str]) -> BpeTables:
    """The tables of a vocabulary and its ranked merges, each merge written as its two pieces
    with one space between (``"▁ t"``), as ``tokenizers`` files hold them. Raises
    ``ValueError`` for a merge that is not two pieces of the vocabulary making a third, or an
    id outside ``0 .. 2**ID_BITS - 1``."""
    if any(not 0 <= i < 1 << ID_BITS for i in vocab.values()):
        raise ValueError(f"a vocabulary id outside 0..{(1 << ID_BITS) - 1}")
    found: dict[int, int] = {}
    for rank, merge in enumerate(merges):
        left, sep, right = merge.partition(" ")
        made = vocab.get(left + right)
        if not sep or " " in right or left not in vocab or right not in vocab or made is None:
            raise ValueError(f"merge {rank} ({merge!r}) is not two pieces of the vocabulary making a third")
        # a repeated merge keeps its last rank, as in tokenizers
        found[vocab[left] << ID_BITS | vocab[right]] = rank << ID_BITS | made
    keys = sorted(found)
    joinable = set("".join(piece for piece in vocab if len(piece) > 1)) - {SPACE}
    return BpeTables(
        chars={piece: i for piece, i in vocab.items() if len(piece) == 1},
        pairs=array("q", keys),
        merges=array("q", (found[key] for key in keys)),
        byte_ids=[vocab.get(f"<0x{b:02X}>", -1) for b in range(256)],
        joinable="".join(sorted(joinable)),
    )


class BytePairEncoder:
    """``encoder.ids(text) -> [token id, ...]`` for a compiled model (:func:`compile_tables`;
    :meth:`from_model` compiles one)."""

    def __init__(self, tables: BpeTables) -> None:
        self._chars = tables.chars
        self._pairs = tables.pairs
        self._merges = tables.merges
        self._bytes = tables.byte_ids
        self._lookups = 0
        self._pair_dict: dict[int, int] | None = None
        self._cache: WordCache[tuple[int, ...]] = WordCache(self._segment_ids, limit=1 << 18)
        chars = re.escape(tables.joinable)
        # a character no merge touches stands alone; otherwise a run of spaces and what follows
        self._segments = re.compile(f"[^{SPACE}{chars}]|{SPACE}*[{chars}]*")

    @classmethod
    def from_model(cls, vocab: Mapping[str, int], merges: Iterable[str]) -> BytePairEncoder:
        return cls(compile_tables(vocab, merges))

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
        chars = self._chars
        out: list[int] = []
        for piece in self._merge([chars.get(c, -1 - ord(c)) for c in segment]):
            if piece >= 0:
                out.append(piece)
            elif piece != _DEAD:  # a character the vocabulary lacks: its bytes
                raw = chr(-1 - piece).encode("utf-8", "replace")
                out.extend(i for i in (self._bytes[b] for b in raw) if i >= 0)
        return tuple(out)

    def _merge_of(self) -> Callable[[int], int | None]:
        """``pair -> rank << ID_BITS | merged id`` (None: no such merge), by bisection until
        :data:`DICT_AFTER` lookups, then from a dictionary."""
        if self._pair_dict is not None:
            return self._pair_dict.get
        if self._lookups >= DICT_AFTER:
            self._pair_dict = dict(zip(self._pairs, self._merges, strict=True))
            return self._pair_dict.get
        pairs, merges, count = self._pairs, self._merges, len(self._pairs)

        def by_bisection(pair: int) -> int | None:
            self._lookups += 1
            k = bisect_left(pairs, pair)
            return merges[k] if k < count and pairs[k] == pair else None

        return by_bisection

    def _merge(self, pieces: list[int]) -> list[int]:
        """Merge adjacent pieces, the lowest-ranked pair first and the leftmost among equals
        (a heap over the pairs and a linked list over the pieces: n log n, not n squared). A
        negative piece (a character the vocabulary lacks) is in no pair, so never merges."""
        merge_of = self._merge_of()
        after = list(range(1, len(pieces) + 1))
        before = list(range(-1, len(pieces) - 1))
        heap: list[tuple[int, int, int, int]] = []
        for i in range(len(pieces) - 1):
            if pieces[i] >= 0 and pieces[i + 1] >= 0:
                merge = merge_of(pieces[i] << ID_BITS | pieces[i + 1])
                if merge is not None:
                    heap.append((merge, i, pieces[i], pieces[i + 1]))
        heapq.heapify(heap)
        mask = (1 << ID_BITS) - 1
        while heap:
            merge, i, left, right = heapq.heappop(heap)
            j = after[i]
            if j >= len(pieces) or pieces[i] != left or pieces[j] != right:
                continue  # a pair that an earlier merge took apart
            pieces[i], pieces[j] = merge & mask, _DEAD
            after[i] = after[j]
            if after[i] < len(pieces):
                before[after[i]] = i
            for a, b in ((before[i], i), (i, after[i])):
                if a >= 0 and b < len(pieces) and pieces[a] >= 0 and pieces[b] >= 0:
                    found = merge_of(pieces[a] << ID_BITS | pieces[b])
                    if found is not None:
                        heapq.heappush(heap, (found, a, pieces[a], pieces[b]))
        return pieces
