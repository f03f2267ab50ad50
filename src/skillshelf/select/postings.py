"""Sparse term-document arrays and their scoring (numpy, imported lazily).

A :class:`Postings` keeps the raw coordinates (term, document, per-field term frequency) so it
can be updated incrementally, and derives from them a CSR layout of per-(term, document)
*impacts*: the whole contribution of one term to one document's score. A query is then a
gather plus one ``bincount``, which is what keeps ranking under a couple of milliseconds at
10,000 skills.

Two impact models:

* ``bm25f``: BM25F with per-field weights and length normalisation (Robertson et al.);
* ``presence``: ``idf(term) x sum of the weights of the fields that contain the term`` (the
  character n-gram model of Codex's ``character_ngram_v1``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

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

__all__ = ["GENERIC_DF_SHARE", "FieldModel", "Postings", "bm25_idf"]

GENERIC_DF_SHARE = 0.05
"""A term in more than this share of documents is too generic for name coverage."""


def bm25_idf(n_docs: int, df: int) -> float:
    """``ln(1 + (N - df + 0.5) / (df + 0.5))`` (never negative)."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldModel:
    """How the fields of a document are weighed."""

    fields: tuple[str, ...]
    weights: tuple[float, ...]
    b: tuple[float, ...]
    k1: float = 1.2
    kind: Literal["bm25f", "presence"] = "bm25f"


DocTerms = Sequence[Mapping[str, int]]  # per field: term -> frequency


class Postings:
    """Raw coordinates plus the derived CSR impact layout."""

    def __init__(
        self,
        model: FieldModel,
        vocab: dict[str, int],
        term_ids: IntArray,
        doc_ids: IntArray,
        tf: FloatArray,
        lengths: FloatArray,
        *,
        impacts: FloatArray | None = None,
    ) -> None:
        """``impacts`` may be given only with rows already in term order (as :meth:`arrays`
        saves them): then nothing is sorted or recomputed."""
        import numpy as np

        self.model = model
        self.vocab = vocab
        self.lengths = lengths  # (n_docs, n_fields)
        self.n_docs = int(lengths.shape[0])
        counts = np.bincount(term_ids, minlength=len(vocab)) if len(term_ids) else np.zeros(len(vocab), np.int64)
        self.df = counts
        self.indptr = np.concatenate([np.zeros(1, np.int64), np.cumsum(counts)])
        if impacts is None or len(impacts) != len(term_ids):
            order = np.argsort(term_ids, kind="stable")
            term_ids, doc_ids, tf = term_ids[order], doc_ids[order], tf[order]
        self.term_ids = term_ids
        self.doc_ids = doc_ids
        self.tf = tf
        self.csr_docs = doc_ids
        self.csr_impacts = impacts if impacts is not None and len(impacts) == len(term_ids) else self._impacts()
        self._field_cache: dict[int, tuple[FloatArray, FloatArray]] = {}

    # ---- construction ------------------------------------------------------------------

    @classmethod
    def build(cls, model: FieldModel, docs: Sequence[DocTerms], lengths: Sequence[Sequence[float]]) -> Postings:
        """From per-document, per-field ``term -> frequency`` maps.

        Vectorised: the terms are flattened once and numbered through one dict; the vocabulary
        numbering of a per-document loop over sorted terms (first document, then text) and the
        term-major rows come from numpy sorts, with exactly the same result as that loop."""
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
            empty = np.zeros(0, np.int32)
            return cls(model, {}, empty, empty.copy(), np.zeros((0, nf), np.float32), lens)
        uniq = list(dict.fromkeys(terms))  # temporary ids, in order of first appearance
        temp = {t: i for i, t in enumerate(uniq)}
        ids = np.fromiter(map(temp.__getitem__, terms), np.int64, count=len(terms))
        rank = np.empty(len(uniq), np.int64)  # position in sorted-text order
        rank[np.asarray(sorted(range(len(uniq)), key=uniq.__getitem__), np.int64)] = np.arange(len(uniq))
        per_slot = np.asarray(sizes, np.int64)
        n_docs = max(len(docs), 1)
        doc_of = np.repeat(np.repeat(np.arange(len(docs), dtype=np.int64), nf), per_slot)
        field_of = np.repeat(np.tile(np.arange(nf, dtype=np.int64), len(docs)), per_slot)
        # a per-document loop over sorted terms numbers terms by (first document, text)
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
        return cls(model, vocab, (rows // n_docs).astype(np.int32), (rows % n_docs).astype(np.int32), tf, lens)

    def updated(
        self,
        old_to_new: Sequence[int],
        new_docs: Sequence[DocTerms],
        new_ids: Sequence[int],
        new_lengths: Sequence[Sequence[float]],
        n_docs: int,
    ) -> Postings:
        """A new layout of ``n_docs`` documents: old document ``i`` becomes ``old_to_new[i]``
        (-1 drops it) and ``new_docs[j]`` (freshly analysed) becomes ``new_ids[j]``."""
        import numpy as np

        mapping = np.asarray(old_to_new, np.int64).reshape(-1)
        nf = len(self.model.fields)
        kept_rows = mapping[self.doc_ids] >= 0 if len(mapping) else np.zeros(len(self.doc_ids), bool)
        vocab = dict(self.vocab)
        t_new, d_local, tf_new = _rows(vocab, new_docs, offset=0)
        ids = np.asarray(new_ids, np.int64)
        d_new = ids[np.asarray(d_local, np.int64)] if d_local else np.zeros(0, np.int64)
        term_ids = np.concatenate([self.term_ids[kept_rows], np.asarray(t_new, np.int32)])
        doc_ids = np.concatenate([mapping[self.doc_ids[kept_rows]], d_new]).astype(np.int32)
        tf = np.concatenate([self.tf[kept_rows], np.asarray(tf_new, np.float32).reshape(-1, nf)])
        lengths = np.zeros((n_docs, nf), np.float32)
        keep_idx = np.nonzero(mapping >= 0)[0]
        lengths[mapping[keep_idx]] = self.lengths[keep_idx]
        if len(ids):
            lengths[ids] = np.asarray(new_lengths, np.float32).reshape(-1, nf)
        return Postings(self.model, vocab, term_ids, doc_ids, tf, lengths)

    def _impacts(self) -> FloatArray:
        import numpy as np

        m = self.model
        if len(self.term_ids) == 0:
            return np.zeros(0, np.float32)
        n = max(self.n_docs, 1)
        df = self.df.astype(np.float64)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        weights = np.asarray(m.weights, np.float64)
        if m.kind == "presence":
            per_row = ((self.tf > 0) * weights).sum(axis=1)  # no BLAS: same sums on every machine
            presence: FloatArray = (idf[self.term_ids] * per_row).astype(np.float32)
            return presence
        avg = self.lengths.mean(axis=0).astype(np.float64) if self.n_docs else np.zeros(len(m.fields))
        b = np.asarray(m.b, np.float64)
        ratio = np.where(avg > 0, self.lengths / np.where(avg > 0, avg, 1.0), 1.0)
        norm = 1.0 - b + b * ratio  # (n_docs, n_fields)
        wtf = (self.tf / norm[self.doc_ids] * weights).sum(axis=1)
        bm25: FloatArray = (idf[self.term_ids] * wtf * (m.k1 + 1.0) / (wtf + m.k1)).astype(np.float32)
        return bm25

    # ---- scoring ---------------------------------------------------------------------------

    def gather(self, query_terms: Mapping[str, float]) -> tuple[RowArray, FloatArray]:
        """CSR row numbers of every posting of the query's terms, and each row's query weight."""
        import numpy as np

        tids: list[int] = []
        qw: list[float] = []
        for term in sorted(query_terms):
            tid = self.vocab.get(term)
            if tid is not None:
                tids.append(tid)
                qw.append(query_terms[term])
        if not tids:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        ids = np.asarray(tids, np.int64)
        starts = self.indptr[ids]
        lens = self.indptr[ids + 1] - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
        rows = offsets + np.arange(total, dtype=np.int64)
        return rows, np.repeat(np.asarray(qw, np.float32), lens)

    def score(self, query_terms: Mapping[str, float]) -> tuple[FloatArray, IntArray]:
        """``(scores, matched)`` per document: summed impacts (times each term's query weight)
        and the number of distinct query terms that matched."""
        import numpy as np

        rows, qw = self.gather(query_terms)
        if len(rows) == 0:
            return np.zeros(self.n_docs, np.float32), np.zeros(self.n_docs, np.int32)
        docs = self.csr_docs[rows]
        scores = np.bincount(docs, weights=self.csr_impacts[rows] * qw, minlength=self.n_docs)
        matched = np.bincount(docs, minlength=self.n_docs)
        return scores.astype(np.float32), matched.astype(np.int32)

    def _field_idf(self, field: int) -> tuple[FloatArray, FloatArray]:
        """Per CSR row: idf if the term occurs in ``field``, else 0; per document: the idf mass
        of its distinct terms in ``field``."""
        import numpy as np

        cached = self._field_cache.get(field)
        if cached is None:
            n = max(self.n_docs, 1)
            df = self.df.astype(np.float64)
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            # words common to many skills ("skill", "helper", "patterns") say little about which
            # one is meant: matching them earns nothing, but they still count in the name's mass
            specific = self.df <= max(5.0, GENERIC_DF_SHARE * n)
            present = self.tf[:, field] > 0
            all_idf = np.where(present, idf[self.term_ids], 0.0)
            row_idf = np.where(specific[self.term_ids], all_idf, 0.0)
            mass = np.bincount(self.doc_ids, weights=all_idf, minlength=self.n_docs).astype(np.float32)
            cached = (row_idf.astype(np.float32), mass)
            self._field_cache[field] = cached
        return cached

    def field_coverage(self, query_terms: Mapping[str, float], field: int) -> FloatArray:
        """Per document: the idf-weighted share of its ``field`` terms that the query contains."""
        import numpy as np

        row_idf, mass = self._field_idf(field)
        rows, _ = self.gather(query_terms)
        if len(rows) == 0:
            return np.zeros(self.n_docs, np.float32)
        got = np.bincount(self.csr_docs[rows], weights=row_idf[rows], minlength=self.n_docs)
        out: FloatArray = np.where(mass > 0, got / np.where(mass > 0, mass, 1.0), 0.0).astype(np.float32)
        return out

    def doc_freq(self, term: str) -> int:
        tid = self.vocab.get(term)
        return 0 if tid is None else int(self.df[tid])

    def arrays(self) -> dict[str, Any]:
        """What the on-disk cache stores (everything but the vocabulary)."""
        return {
            "term_ids": self.term_ids,
            "doc_ids": self.doc_ids,
            "tf": self.tf,
            "lengths": self.lengths,
            "impacts": self.csr_impacts,
        }


def _rows(
    vocab: dict[str, int], docs: Sequence[DocTerms], *, offset: int
) -> tuple[list[int], list[int], list[Sequence[int]]]:
    term_list: list[int] = []
    doc_list: list[int] = []
    tf_list: list[Sequence[int]] = []
    for i, doc in enumerate(docs):
        table: dict[str, list[int]] = {}
        for f, counts in enumerate(doc):
            for term, n in counts.items():
                table.setdefault(term, [0] * len(doc))[f] += n
        for term in sorted(table):
            tid = vocab.get(term)
            if tid is None:
                tid = vocab[term] = len(vocab)
            term_list.append(tid)
            doc_list.append(offset + i)
            tf_list.append(table[term])
    return term_list, doc_list, tf_list
