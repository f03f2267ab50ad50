"""Sparse term-document arrays and their scoring (numpy, imported lazily).

A :class:`Postings` is two CSR segments (:mod:`skillshelf.select.segments`): for term ``t``
the rows ``indptr[t]:indptr[t + 1]`` hold the document slots that contain it and, per row, the
raw per-field term frequencies (``bm25f``) or a bit mask of the fields that contain the term
(``presence``). Nothing stored depends on collection statistics, so a cached base segment is
memory-mapped as it is and an incremental update never rewrites it.

The *impact* of a row (the whole contribution of one term to one document's score) depends
on the collection (live document frequency, average field lengths); it is computed lazily,
per term, the first time a query needs that term, and kept. A query is then a few slice
copies plus one ``bincount`` over slots, read back in document order.

Two impact models:

* ``bm25f``: BM25F with per-field weights and length normalisation (Robertson et al.);
* ``presence``: ``idf(term) x sum of the weights of the fields that contain the term`` (the
  character n-gram model of Codex's ``character_ngram_v1``).

Scores are bit-identical to computing every impact up front over a from-scratch build: each
impact is the same elementwise expression over the same statistics, and each document's
score adds its terms in query-term text order (a live document has one row per term).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skillshelf.select.segments import DocTerms, FieldModel, RowLayout, Segment, build_rows, update

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float32]
    IntArray = npt.NDArray[np.int32]
    RowArray = npt.NDArray[np.int64]
else:
    FloatArray = Any
    IntArray = Any
    RowArray = Any

__all__ = ["GENERIC_DF_SHARE", "FieldModel", "Postings", "bm25_idf", "row_ranges"]

GENERIC_DF_SHARE = 0.05
"""A term in more than this share of documents is too generic for name coverage."""

EAGER_ROWS = 4_000_000
"""Up to this many rows every impact is derived at once from the :data:`EAGER_FROM`-th query
that needs new rows on (a long-lived process: the hook server, an evaluation), beyond it term
by term."""

EAGER_FROM = 2
"""The first query derives only its own terms' rows: a process that answers one request (a
whole ``skillshelf context``, a hook without the server) needs no more. At 10,000 skills (2.2
million rows) deriving every row takes ~135 ms, the rows of a three-term request ~3 ms."""

SLICE_ROWS = 100_000
"""Above this many rows a query copies each term's slice instead of gathering row by row."""
SLICE_MIN_AVG = 256
"""A query also copies slices when its terms average more than this many rows: a copy per
term costs a Python step, a gather costs per row. At 10,000 skills (``bench/selection.py``
queries, median of each query's best of five) the body scores took 0.057 instead of 0.070 ms
for short requests and 0.46 instead of 0.58 ms for long tasks; 64 or 128 made the metadata
scores of a 400-term task slower, 256 left them as they were. The scores are the same either
way (the same rows in the same order)."""


def bm25_idf(n_docs: int, df: int) -> float:
    """``ln(1 + (N - df + 0.5) / (df + 0.5))`` (never negative)."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


class Postings:
    """Two CSR segments of raw per-row field data (:mod:`skillshelf.select.segments`); impacts
    derived lazily per term."""

    def __init__(
        self,
        model: FieldModel,
        vocab: dict[str, int],
        base: Segment,
        slot_lengths: FloatArray,
        *,
        delta: Segment | None = None,
        order: RowArray | None = None,
        df: RowArray | None = None,
    ) -> None:
        """``slot_lengths``: per slot, per field; ``order``: the slot of each document position
        (default: slot = position); ``df``: live rows per term (default: every row is live)."""
        import numpy as np

        self.model = model
        self.vocab = vocab
        n_terms = len(vocab)
        self.base = base.padded(n_terms)
        self.delta = (delta or Segment(np.zeros(1, np.int64), base.doc_ids[:0], base.tf[:0])).padded(n_terms)
        self.slot_lengths = slot_lengths
        self.order = order if order is not None else np.arange(len(slot_lengths), dtype=np.int64)
        self.n_docs = len(self.order)
        self.n_slots = len(slot_lengths)
        self.df = df if df is not None else np.diff(self.base.indptr) + np.diff(self.delta.indptr)
        self._identity = self.n_slots == self.n_docs and bool((self.order == np.arange(self.n_docs)).all())
        self.lengths = slot_lengths if self._identity else slot_lengths[self.order]  # by position
        self._lock = threading.Lock()
        self._impacts: list[Any] | None = None
        self._ready: Any = None
        self._norm: Any = None
        self._idf_all: Any = None
        self._field_cache: dict[int, tuple[list[FloatArray], FloatArray]] = {}
        self._derivations = 0

    # ---- construction ------------------------------------------------------------------

    @classmethod
    def build(
        cls, model: FieldModel, docs: Sequence[DocTerms], lengths: Sequence[Sequence[float]]
    ) -> Postings:
        """From per-document, per-field ``term -> frequency`` maps (one base segment)."""
        vocab, base, lens = build_rows(model, docs, lengths)
        return cls(model, vocab, base, lens)

    def updated(
        self,
        old_to_new: Sequence[int],
        new_docs: Sequence[DocTerms],
        new_ids: Sequence[int],
        new_lengths: Sequence[Sequence[float]],
        n_docs: int,
    ) -> Postings:
        """A new layout of ``n_docs`` documents: old document ``i`` becomes ``old_to_new[i]``
        (-1 drops it) and ``new_docs[j]`` (freshly analysed) becomes ``new_ids[j]``. The base
        segment is shared, not copied, unless the change is large enough to compact."""
        rows = RowLayout(
            vocab=self.vocab,
            base=self.base,
            delta=self.delta,
            order=self.order,
            slot_lengths=self.slot_lengths,
            df=self.df,
        )
        new = update(self.model, rows, old_to_new, new_docs, new_ids, new_lengths, n_docs)
        return Postings(
            self.model, new.vocab, new.base, new.slot_lengths, delta=new.delta, order=new.order, df=new.df
        )

    def _by_position(self, per_slot: Any) -> Any:
        return per_slot if self._identity else per_slot[self.order]

    # ---- impacts ---------------------------------------------------------------------------

    def _idf(self) -> Any:
        import numpy as np

        n = max(self.n_docs, 1)
        df = self.df.astype(np.float64)
        return np.log1p((n - df + 0.5) / (df + 0.5))

    def _row_weights(self, seg: Segment, rows: RowArray | None) -> Any:
        """Per row (every row when ``rows`` is None), the collection-independent part of the
        impact (float64)."""
        import numpy as np

        m = self.model
        weights = np.asarray(m.weights, np.float64)
        tf = seg.tf if rows is None else seg.tf[rows]
        if m.kind == "presence":
            bits = (np.arange(1 << len(m.fields))[:, None] >> np.arange(len(m.fields))) & 1
            table = ((bits > 0) * weights).sum(axis=1)  # the same sums as over per-field presence
            return table[tf]
        if self._norm is None:
            avg = self.lengths.mean(axis=0).astype(np.float64) if self.n_docs else np.zeros(len(m.fields))
            b = np.asarray(m.b, np.float64)
            ratio = np.where(avg > 0, self.slot_lengths / np.where(avg > 0, avg, 1.0), 1.0)
            self._norm = 1.0 - b + b * ratio  # (n_slots, n_fields)
        docs = seg.doc_ids if rows is None else seg.doc_ids[rows]
        return (tf / self._norm[docs] * weights).sum(axis=1)

    def _ensure(self, tids: RowArray) -> list[FloatArray]:
        """Per segment, the impacts array with every row of ``tids`` computed (from the
        :data:`EAGER_FROM`-th call that needs new rows on, every row at once when there are at
        most :data:`EAGER_ROWS`: one pass is cheaper than many)."""
        import numpy as np

        impacts = self._impacts
        if impacts is not None and bool(self._ready[tids].all()):
            return impacts
        with self._lock:
            if self._impacts is None:  # published last: a reader that sees it sees the rest
                self._ready = np.zeros(len(self.df), bool)
                self._idf_all = self._idf()
                self._impacts = [np.empty(seg.rows, np.float32) for seg in (self.base, self.delta)]
            self._derivations += 1
            if self._derivations >= EAGER_FROM and self.base.rows + self.delta.rows <= EAGER_ROWS:
                tids = np.arange(len(self.df), dtype=np.int64)
            todo = tids[~self._ready[tids]]
            if len(todo):
                for seg, impacts in zip((self.base, self.delta), self._impacts, strict=True):
                    self._compute(seg, impacts, todo)
                self._ready[todo] = True
        return self._impacts

    def _compute(self, seg: Segment, impacts: FloatArray, todo: RowArray) -> None:
        """Impacts of the rows of the terms ``todo`` (all rows at once when that is every term)."""
        import numpy as np

        starts, ends = seg.indptr[todo], seg.indptr[todo + 1]
        every = len(todo) == len(self.df) and bool((todo == np.arange(len(todo))).all())  # rows 0..n
        rows = None if every else row_ranges(starts, ends)
        if (seg.rows if rows is None else len(rows)) == 0:
            return
        idf = np.repeat(self._idf_all[todo], ends - starts)
        wtf = self._row_weights(seg, rows)
        if self.model.kind == "presence":
            values = (idf * wtf).astype(np.float32)
        else:
            k1 = self.model.k1
            values = (idf * wtf * (k1 + 1.0) / (wtf + k1)).astype(np.float32)
        if rows is None:
            impacts[:] = values
        else:
            impacts[rows] = values

    # ---- scoring ---------------------------------------------------------------------------

    def _terms(self, query_terms: Mapping[str, float]) -> tuple[RowArray, Any]:
        """Ids of the query's terms that occur in a live document, in text order, and their
        query weights (float32)."""
        import numpy as np

        vocab = self.vocab
        found = [(vocab[t], query_terms[t]) for t in sorted(query_terms) if t in vocab]
        tids = np.fromiter((t for t, _ in found), np.int64, count=len(found))
        qw = np.fromiter((w for _, w in found), np.float32, count=len(found))
        live = self.df[tids] > 0
        return tids[live], qw[live]

    def _gather(self, tids: RowArray, per_segment: Sequence[Any], qw: Any = None) -> tuple[Any, Any]:
        """Slots and values (one array per segment in ``per_segment``) of the rows of
        ``tids``, term after term within each segment (a live document's rows are all in one
        segment, so each document still meets its terms in ``tids`` order); values are
        multiplied by each term's ``qw`` (float32) when given."""
        import numpy as np

        slots: list[Any] = []
        vals: list[Any] = []
        for seg, values in zip((self.base, self.delta), per_segment, strict=True):
            starts, ends = seg.indptr[tids], seg.indptr[tids + 1]
            lens = ends - starts
            total = int(lens.sum())
            if total == 0:
                continue
            if total > SLICE_ROWS or total > SLICE_MIN_AVG * len(tids):  # one copy per term beats a gather
                bounds = zip(starts.tolist(), ends.tolist(), strict=True)
                pairs = [(seg.doc_ids[s:e], values[s:e]) for s, e in bounds if e > s]
                slots.append(np.concatenate([d for d, _ in pairs]))
                vals.append(np.concatenate([v for _, v in pairs]))
            else:
                rows = row_ranges(starts, ends)
                slots.append(seg.doc_ids[rows])
                vals.append(values[rows])
            if qw is not None:
                vals[-1] = vals[-1] * np.repeat(qw, lens)
        if not slots:
            return np.zeros(0, np.intp), np.zeros(0, np.float32)
        if len(slots) == 1:
            return slots[0].astype(np.intp), vals[0]
        return np.concatenate(slots).astype(np.intp), np.concatenate(vals)

    def score(self, query_terms: Mapping[str, float]) -> tuple[FloatArray, IntArray]:
        """``(scores, matched)`` per document: summed impacts (times each term's query weight)
        and the number of distinct query terms that matched."""
        import numpy as np

        slots = self._weighted(query_terms)
        if slots is None:
            return np.zeros(self.n_docs, np.float32), np.zeros(self.n_docs, np.int32)
        matched = np.bincount(slots[0], minlength=self.n_slots)
        return self._by_position(slots[1]).astype(np.float32), self._by_position(matched).astype(np.int32)

    def weighted(self, query_terms: Mapping[str, float]) -> FloatArray:
        """The scores of :meth:`score` alone (one pass fewer when the match count is not used)."""
        import numpy as np

        found = self._weighted(query_terms)
        if found is None:
            return np.zeros(self.n_docs, np.float32)
        out: FloatArray = self._by_position(found[1]).astype(np.float32)
        return out

    def _weighted(self, query_terms: Mapping[str, float]) -> tuple[Any, Any] | None:
        """The slots of the query's rows and the per-slot score sums (float64), or ``None``."""
        import numpy as np

        tids, qw = self._terms(query_terms)
        if len(tids) == 0:
            return None
        weighted = bool((qw != 1.0).any())  # x * 1.0 is x: skip the product when every weight is 1
        slots, imp = self._gather(tids, self._ensure(tids), qw if weighted else None)
        return slots, np.bincount(slots, weights=imp, minlength=self.n_slots)

    def _field_idf(self, field: int) -> tuple[list[FloatArray], FloatArray]:
        """Per segment row: idf if the term occurs in ``field``, else 0; per slot: the idf
        mass of its distinct terms in ``field``."""
        import numpy as np

        cached = self._field_cache.get(field)
        if cached is None:
            n = max(self.n_docs, 1)
            idf = self._idf()
            # words common to many skills ("skill", "helper", "patterns") say little about which
            # one is meant: matching them earns nothing, but they still count in the name's mass
            specific = self.df <= max(5.0, GENERIC_DF_SHARE * n)
            mass = np.zeros(self.n_slots)
            per_row: list[FloatArray] = []
            for seg in (self.base, self.delta):
                tf = seg.tf
                present = tf[:, field] > 0 if self.model.kind == "bm25f" else (tf >> field) & 1 > 0
                term_ids = np.repeat(np.arange(len(self.df)), np.diff(seg.indptr))
                all_idf = np.where(present, idf[term_ids], 0.0)
                per_row.append(np.where(specific[term_ids], all_idf, 0.0).astype(np.float32))
                mass += np.bincount(seg.doc_ids, weights=all_idf, minlength=self.n_slots)
            cached = (per_row, mass.astype(np.float32))
            self._field_cache[field] = cached
        return cached

    def field_coverage(self, query_terms: Mapping[str, float], field: int) -> FloatArray:
        """Per document: the idf-weighted share of its ``field`` terms that the query contains."""
        import numpy as np

        row_idf, mass = self._field_idf(field)
        tids, _ = self._terms(query_terms)
        if len(tids) == 0:
            return np.zeros(self.n_docs, np.float32)
        slots, got_rows = self._gather(tids, row_idf)
        got = np.bincount(slots, weights=got_rows, minlength=self.n_slots)
        out = np.where(mass > 0, got / np.where(mass > 0, mass, 1.0), 0.0).astype(np.float32)
        result: FloatArray = self._by_position(out)
        return result

    def doc_freq(self, term: str) -> int:
        """How many documents contain ``term``."""
        tid = self.vocab.get(term)
        return 0 if tid is None else int(self.df[tid])

    def arrays(self) -> dict[str, Any]:
        """What the on-disk cache stores (everything but the vocabulary); ``base_*`` is the
        part an incremental update leaves as it was."""
        segs = {"base": self.base, "delta": self.delta}
        out = {
            f"{name}_{k}": getattr(seg, k) for name, seg in segs.items() for k in ("indptr", "doc_ids", "tf")
        }
        return out | {"order": self.order, "slot_lengths": self.slot_lengths, "df": self.df}


def row_ranges(starts: RowArray, ends: RowArray) -> RowArray:
    """The concatenation of ``range(s, e)`` for each pair."""
    import numpy as np

    lens = ends - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    rows: RowArray = offsets + np.arange(total, dtype=np.int64)
    return rows
