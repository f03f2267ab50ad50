"""The row segments of :class:`~skillshelf.select.postings.Postings` and how they change.

Rows name documents by *slot*, a number that never changes while the document does not; the
postings' ``order`` maps each index position (documents in ``(name, path)`` order) to its
slot. A postings has two segments, each a CSR (term-major rows):

* the *base*: everything as of the last full build or compaction; read-only, memory-mapped
  from its own cache file, never rewritten by an incremental update;
* the *delta*: the rows of documents added or changed since, in new slots.

A changed or removed document's old slot simply leaves ``order``: its rows stay in the base
but score into a slot that no position reads. Document frequencies count live rows only, so
every statistic is that of the whole current collection. When the delta or the dead slots
grow past :data:`COMPACT_SHARE` of the base, everything is compacted into a new base.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "COMPACT_SHARE",
    "DocTerms",
    "FieldModel",
    "Layout",
    "RowLayout",
    "Segment",
    "build_rows",
    "update",
]

COMPACT_SHARE = 0.25
"""Compact when the delta rows or the dead slots pass this share of the base."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldModel:
    """How the fields of a document are weighed."""

    fields: tuple[str, ...]
    weights: tuple[float, ...]
    b: tuple[float, ...]
    k1: float = 1.2
    kind: Literal["bm25f", "presence"] = "bm25f"


DocTerms = Sequence[Mapping[str, int]]  # per field: term -> frequency


@dataclass(frozen=True, slots=True)
class Segment:
    """One CSR: ``indptr`` (terms + 1), per row a slot (``doc_ids``) and field data (``tf``)."""

    indptr: Any
    doc_ids: Any
    tf: Any

    @property
    def rows(self) -> int:
        return len(self.doc_ids)

    def counts(self) -> Any:
        """Rows per term."""
        import numpy as np

        return np.diff(self.indptr)

    def padded(self, n_terms: int) -> Segment:
        """The same rows with ``indptr`` covering ``n_terms`` terms (the new ones empty)."""
        import numpy as np

        missing = n_terms + 1 - len(self.indptr)
        if missing <= 0:
            return self
        return Segment(
            np.concatenate([self.indptr, np.full(missing, self.indptr[-1], np.int64)]), self.doc_ids, self.tf
        )


Layout = tuple[dict[str, int], Segment, Any]  # vocab, one segment, lengths


@dataclass(frozen=True, slots=True, kw_only=True)
class RowLayout:
    """Everything a postings' rows are: the vocabulary (term -> id), the ``base`` and ``delta``
    segments, ``order`` (the slot of each document position), per slot and field the lengths,
    and per term the live rows (``df``)."""

    vocab: dict[str, int]
    base: Segment
    delta: Segment
    order: Any
    slot_lengths: Any
    df: Any


def pack(model: FieldModel, tf: Any) -> Any:
    """Presence models keep one uint8 bit mask of the fields per row instead of frequencies."""
    import numpy as np

    if model.kind != "presence":
        return np.ascontiguousarray(tf, np.float32)
    mask = np.zeros(len(tf), np.uint8)
    for f in range(tf.shape[1]):
        mask |= (tf[:, f] > 0).astype(np.uint8) << f
    return mask


def _indptr(term_ids: Any, n_terms: int) -> Any:
    import numpy as np

    counts = np.bincount(term_ids, minlength=n_terms) if len(term_ids) else np.zeros(n_terms, np.int64)
    return np.concatenate([np.zeros(1, np.int64), np.cumsum(counts)])


def build_rows(model: FieldModel, docs: Sequence[DocTerms], lengths: Sequence[Sequence[float]]) -> Layout:
    """The CSR layout of ``docs`` (per document, per field ``term -> frequency``).

    Vectorised: the terms are flattened once and numbered through one dict; the vocabulary
    numbering of a per-document loop over sorted terms (first document, then text) and the
    term-major rows (documents ascending) come from numpy sorts, as that loop would give."""
    import numpy as np

    nf = len(model.fields)
    lens = np.asarray(lengths, dtype=np.float32).reshape(-1, nf)
    terms: list[str] = []
    freqs: list[int] = []
    sizes: list[int] = []
    for doc in docs:
        for counts in doc:
            terms.extend(counts)
            freqs.extend(counts.values())
            sizes.append(len(counts))
    if not terms:
        return {}, Segment(np.zeros(1, np.int64), np.zeros(0, np.int32), pack(model, np.zeros((0, nf)))), lens
    uniq = list(dict.fromkeys(terms))  # temporary ids, in order of first appearance
    temp = {t: i for i, t in enumerate(uniq)}
    ids = np.fromiter(map(temp.__getitem__, terms), np.int64, count=len(terms))
    rank = np.empty(len(uniq), np.int64)  # position in sorted-text order
    rank[np.asarray(sorted(range(len(uniq)), key=uniq.__getitem__), np.int64)] = np.arange(len(uniq))
    per_slot = np.asarray(sizes, np.int64)
    n_docs = max(len(docs), 1)
    doc_of = np.repeat(np.repeat(np.arange(len(docs), dtype=np.int64), nf), per_slot)
    field_of = np.repeat(np.tile(np.arange(nf, dtype=np.int64), len(docs)), per_slot)
    running = np.maximum.accumulate(ids)
    first_doc = doc_of[np.flatnonzero(np.concatenate([[True], running[1:] > running[:-1]]))]
    final_order = np.lexsort((rank, first_doc))
    final_of = np.empty(len(uniq), np.int64)
    final_of[final_order] = np.arange(len(uniq))
    key = final_of[ids] * n_docs + doc_of
    order = np.argsort(key)  # ties are one (term, document) in several fields: any order will do
    key = key[order]
    starts = np.ones(len(key), bool)
    starts[1:] = key[1:] != key[:-1]
    row_of = np.cumsum(starts) - 1
    tf = np.zeros((int(row_of[-1]) + 1, nf), np.float32)
    tf[row_of, field_of[order]] = np.asarray(freqs, np.float32)[order]
    rows = key[starts]
    vocab = {uniq[t]: i for i, t in enumerate(final_order.tolist())}
    segment = Segment(_indptr(rows // n_docs, len(vocab)), (rows % n_docs).astype(np.int32), pack(model, tf))
    return vocab, segment, lens


def _new_rows(
    model: FieldModel,
    vocab: dict[str, int],
    docs: Sequence[DocTerms],
    slots: Any,
    lengths: Sequence[Sequence[float]],
) -> tuple[Any, Any, Any]:
    """``(term ids, slots, field data)`` of freshly analysed documents. Unseen terms are
    appended to ``vocab`` in the order a per-document loop over sorted terms numbers them."""
    import numpy as np

    local_vocab, seg, _ = build_rows(model, docs, lengths)
    to_global = np.empty(len(local_vocab), np.int64)
    for term, i in sorted(local_vocab.items(), key=lambda kv: kv[1]):
        tid = vocab.get(term)
        if tid is None:
            tid = vocab[term] = len(vocab)
        to_global[i] = tid
    terms = np.repeat(to_global, np.diff(seg.indptr))
    return terms, slots[seg.doc_ids] if seg.rows else np.zeros(0, np.int64), seg.tf


def _term_of_rows(seg: Segment, rows: Any) -> Any:
    import numpy as np

    return np.searchsorted(seg.indptr, rows, side="right") - 1


def _rows_of(seg: Segment, live: Any) -> tuple[Any, Any, Any]:
    """``(term ids, slots, field data)`` of the rows of ``seg`` whose slot is live."""
    import numpy as np

    keep = np.flatnonzero(live[seg.doc_ids]) if seg.rows else np.zeros(0, np.int64)
    return _term_of_rows(seg, keep), seg.doc_ids[keep].astype(np.int64), seg.tf[keep]


def _segment(n_terms: int, terms: Any, slots: Any, tf: Any) -> Segment:
    """Rows sorted by term, then slot."""
    import numpy as np

    order = np.lexsort((slots, terms))
    return Segment(
        _indptr(terms[order], n_terms), slots[order].astype(np.int32), np.ascontiguousarray(tf[order])
    )


def update(
    model: FieldModel,
    old: RowLayout,
    old_to_new: Sequence[int],
    new_docs: Sequence[DocTerms],
    new_ids: Sequence[int],
    new_lengths: Sequence[Sequence[float]],
    n_docs: int,
) -> RowLayout:
    """The rows after the change (see ``Postings.updated``)."""
    import numpy as np

    nf = len(model.fields)
    mapping = np.asarray(old_to_new, np.int64).reshape(-1)
    first_new = len(old.slot_lengths)
    new_slots = first_new + np.arange(len(new_ids), dtype=np.int64)
    order = np.empty(n_docs, np.int64)
    kept = np.flatnonzero(mapping >= 0)
    order[mapping[kept]] = old.order[kept]
    order[np.asarray(new_ids, np.int64)] = new_slots
    slot_lengths = np.concatenate([old.slot_lengths, np.asarray(new_lengths, np.float32).reshape(-1, nf)])
    live = np.zeros(len(slot_lengths), bool)
    live[order] = True
    vocab = dict(old.vocab)
    t_new, s_new, tf_new = _new_rows(model, vocab, new_docs, new_slots, new_lengths)
    n_terms = len(vocab)
    base = old.base.padded(n_terms)
    died = old.order[np.flatnonzero(mapping < 0)]
    df = np.zeros(n_terms, np.int64)
    df[: len(old.df)] = old.df
    if len(died):
        gone = np.zeros(len(slot_lengths), bool)
        gone[died] = True
        for seg in (base, old.delta):
            df[: len(seg.indptr) - 1] -= np.bincount(
                _term_of_rows(seg, np.flatnonzero(gone[seg.doc_ids])), minlength=len(seg.indptr) - 1
            )
    df += np.bincount(t_new, minlength=n_terms)
    t_old, s_old, tf_old = _rows_of(old.delta, live)
    delta = _segment(
        n_terms,
        np.concatenate([t_old, t_new]),
        np.concatenate([s_old, s_new]),
        np.concatenate([tf_old, tf_new]),
    )
    dead = len(slot_lengths) - n_docs
    if delta.rows > COMPACT_SHARE * base.rows or dead > COMPACT_SHARE * max(len(slot_lengths), 1):
        return compact(n_terms, vocab, base, delta, order, slot_lengths, live, df)
    return RowLayout(vocab=vocab, base=base, delta=delta, order=order, slot_lengths=slot_lengths, df=df)


def compact(
    n_terms: int,
    vocab: dict[str, int],
    base: Segment,
    delta: Segment,
    order: Any,
    slot_lengths: Any,
    live: Any,
    df: Any,
) -> RowLayout:
    """One base of the live rows with slots renumbered to positions, and an empty delta."""
    import numpy as np

    position = np.full(len(slot_lengths), -1, np.int64)
    position[order] = np.arange(len(order))
    parts = [_rows_of(seg, live) for seg in (base, delta)]
    terms = np.concatenate([p[0] for p in parts])
    slots = position[np.concatenate([p[1] for p in parts])]
    tf = np.concatenate([p[2] for p in parts])
    new_base = _segment(n_terms, terms, slots, tf)
    empty = Segment(np.zeros(n_terms + 1, np.int64), np.zeros(0, np.int32), tf[:0].copy())
    return RowLayout(
        vocab=vocab,
        base=new_base,
        delta=empty,
        order=np.arange(len(order), dtype=np.int64),
        slot_lengths=slot_lengths[order].copy(),
        df=df,
    )
