"""Codex's four shadow-mode selectors (v0.145.0), ported rule for rule as baselines.

``codex_lexical`` (``weighted_lexical_v1``), ``codex_bm25`` (``fielded_bm25_v1``),
``codex_ngram`` (``character_ngram_v1``) and ``codex_multi`` (``multi_query_lexical_v1``).
They look only at the name, short description and description, consider at most the first
1,000 catalog entries and return at most 50 results, as Codex does. Ties: score desc, then
name asc, then catalog position asc.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from skillshelf.select.index import SkillIndex
from skillshelf.select.postings import bm25_idf
from skillshelf.select.tokenize import cap_bytes, char_grams, codex_terms, codex_words

__all__ = ["codex_bm25", "codex_lexical", "codex_multi", "codex_ngram", "split_views"]

MAX_QUERY_BYTES = 4096
MAX_FIELD_BYTES = 4096
MAX_QUERY_TERMS = 64
MAX_FIELD_TERMS = 256
MAX_CANDIDATES = 1000
MAX_RESULTS = 50
WEIGHTS = (8.0, 4.0, 1.0)
Hit = tuple[int, float]


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    name_phrase: str
    fields: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    sets: tuple[frozenset[str], frozenset[str], frozenset[str]]
    long_words: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _entries(index: SkillIndex) -> list[_Entry]:
    def build() -> list[_Entry]:
        out = []
        for doc in index.docs[:MAX_CANDIDATES]:
            texts = (doc.name, doc.short_description, doc.description)
            fields = tuple(
                tuple(codex_terms(cap_bytes(t, MAX_FIELD_BYTES), limit=MAX_FIELD_TERMS)) for t in texts
            )
            out.append(
                _Entry(
                    name=doc.name,
                    name_phrase=" ".join(codex_words(doc.name)),
                    fields=(fields[0], fields[1], fields[2]),
                    sets=(frozenset(fields[0]), frozenset(fields[1]), frozenset(fields[2])),
                    long_words=(
                        tuple(sorted({w for w in fields[0] if len(w) >= 4})),
                        tuple(sorted({w for w in fields[1] if len(w) >= 4})),
                        tuple(sorted({w for w in fields[2] if len(w) >= 4})),
                    ),
                )
            )
        return out

    result: list[_Entry] = index.memo("codex_entries", build)
    return result


def _query_terms(query: str) -> list[str]:
    return codex_terms(cap_bytes(query, MAX_QUERY_BYTES), limit=MAX_QUERY_TERMS, distinct=True)


def _finish(index: SkillIndex, scored: list[Hit], limit: int) -> list[Hit]:
    docs = index.docs
    scored.sort(key=lambda h: (-h[1], docs[h[0]].name, h[0]))
    return scored[: min(limit, MAX_RESULTS)]


def _related(term: str, words: Sequence[str]) -> bool:
    return len(term) >= 4 and any(w.startswith(term) or term.startswith(w) for w in words)


def codex_lexical(index: SkillIndex, query: str, limit: int) -> list[Hit]:
    """``weighted_lexical_v1``: phrase, word and prefix matches weighted by field."""
    terms = _query_terms(query)
    if not terms:
        return []
    phrase = " " + " ".join(codex_words(cap_bytes(query, MAX_QUERY_BYTES))) + " "
    scored: list[Hit] = []
    for i, e in enumerate(_entries(index)):
        score = 256.0 if e.name_phrase and f" {e.name_phrase} " in phrase else 0.0
        matched = 0
        for t in terms:
            gain = 0.0
            if t == e.name_phrase:
                gain += 128
            elif t in e.sets[0]:
                gain += 64
            elif _related(t, e.long_words[0]):
                gain += 24
            if t in e.sets[1]:
                gain += 16
            elif _related(t, e.long_words[1]):
                gain += 6
            if t in e.sets[2]:
                gain += 4
            elif _related(t, e.long_words[2]):
                gain += 1
            if gain:
                matched += 1
                score += gain
        score += matched * matched if matched else 0
        if score > 0:
            scored.append((i, score))
    return _finish(index, scored, limit)


def codex_bm25(index: SkillIndex, query: str, limit: int) -> list[Hit]:
    """``fielded_bm25_v1``: BM25 over name/short/description with weights 8/4/1."""
    terms = _query_terms(query)
    entries = _entries(index)
    if not terms or not entries:
        return []
    stats = index.memo("codex_bm25_stats", lambda: _bm25_stats(entries))
    df, avg = stats
    n = len(entries)
    k1 = 1.2
    # per query term (in query order, so the sum adds in the same order): its idf, once
    idfs = [(t, bm25_idf(n, df[t])) for t in terms if df.get(t, 0)]
    scored: list[Hit] = []
    counts = index.memo("codex_bm25_counts", lambda: [tuple(Counter(f) for f in e.fields) for e in entries])
    norms = index.memo("codex_bm25_norms", lambda: _bm25_norms(entries, avg))
    for i, e in enumerate(entries):
        score = 0.0
        for t, idf in idfs:
            if not any(t in s for s in e.sets):
                continue
            wtf = 0.0
            for f in range(3):
                tf = counts[i][f].get(t, 0)
                if tf:
                    wtf += WEIGHTS[f] * tf / norms[i][f]
            score += idf * wtf * (k1 + 1) / (wtf + k1)
        if score > 0:
            scored.append((i, score))
    return _finish(index, scored, limit)


def _bm25_norms(entries: list[_Entry], avg: tuple[float, float, float]) -> list[tuple[float, float, float]]:
    """Per entry and field: BM25's length normalisation ``1 - b + b * length / average`` (b = 0.75)."""
    b = 0.75
    out = []
    for e in entries:
        ratios = [len(e.fields[f]) / avg[f] if avg[f] > 0 else 1.0 for f in range(3)]
        out.append((1 - b + b * ratios[0], 1 - b + b * ratios[1], 1 - b + b * ratios[2]))
    return out


def _bm25_stats(entries: list[_Entry]) -> tuple[dict[str, int], tuple[float, float, float]]:
    df: Counter[str] = Counter()
    totals = [0, 0, 0]
    for e in entries:
        df.update(e.sets[0] | e.sets[1] | e.sets[2])
        for f in range(3):
            totals[f] += len(e.fields[f])
    n = max(len(entries), 1)
    return dict(df), (totals[0] / n, totals[1] / n, totals[2] / n)


def _grams_of(terms: Sequence[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for t in terms:
        for g in char_grams(t):
            if g not in seen:
                seen.add(g)
                out.append(g)
                if len(out) >= 512:
                    return out
    return out


def codex_ngram(index: SkillIndex, query: str, limit: int) -> list[Hit]:
    """``character_ngram_v1``: shared 3-5 character grams, idf x field weights."""
    qgrams = _grams_of(_query_terms(query))
    entries = _entries(index)
    if not qgrams or not entries:
        return []
    doc_grams, df = index.memo("codex_grams", lambda: _gram_tables(entries))
    n = len(entries)
    need = min(3, len(qgrams))
    idf = {g: bm25_idf(n, df[g]) for g in qgrams if g in df}
    scored: list[Hit] = []
    for i, fields in enumerate(doc_grams):
        hits = 0
        score = 0.0
        for g, w in idf.items():
            weight = sum(WEIGHTS[f] for f in range(3) if g in fields[f])
            if weight:
                hits += 1
                score += w * weight
        if hits >= need and score > 0:
            scored.append((i, score))
    return _finish(index, scored, limit)


def _gram_tables(entries: list[_Entry]) -> tuple[list[tuple[frozenset[str], ...]], dict[str, int]]:
    tables = [tuple(frozenset(_grams_of(f)) for f in e.fields) for e in entries]
    df: Counter[str] = Counter()
    for t in tables:
        df.update(t[0] | t[1] | t[2])
    return tables, dict(df)


_CLAUSE_SPLIT = re.compile(r"[\n\r.!?;]")
_CONNECTORS = (" and then ", " and ", " then ", " also ")


def split_views(query: str, *, max_views: int = 8) -> list[str]:
    """Codex's multi-query views: the full query, then its clauses (sentences, then split at
    the connectors `and then` / `and` / `then` / `also`), trimmed, de-duplicated."""
    full = cap_bytes(query, MAX_QUERY_BYTES).strip()
    views = [full] if full else []
    pending = list(_CLAUSE_SPLIT.split(full))
    clauses: list[str] = []
    while pending:
        part = pending.pop(0)
        low = part.lower()
        best: tuple[int, int, str] | None = None
        for rank, conn in enumerate(_CONNECTORS):
            pos = low.find(conn)
            if pos >= 0 and (best is None or pos < best[0]):
                best = (pos, rank, conn)
        if best is None:
            clauses.append(part)
            continue
        pos, _, conn = best
        pending[0:0] = [part[:pos], part[pos + len(conn) :]]
    for c in clauses:
        c = c.strip()
        if len(c) >= 2 and c not in views:
            views.append(c)
        if len(views) >= max_views:
            break
    return views


def codex_multi(index: SkillIndex, query: str, limit: int) -> list[Hit]:
    """``multi_query_lexical_v1``: weighted lexical per view, merged by best rank."""
    views = split_views(query)
    if len(views) <= 1:
        return codex_lexical(index, query, limit)
    per_view = [codex_lexical(index, v, MAX_RESULTS) for v in views]
    best: dict[int, tuple[int, int, int, int]] = {}  # id -> (best rank, full rank, -views, first view)
    for vi, hits in enumerate(per_view):
        for rank, (doc, _) in enumerate(hits, start=1):
            full_rank = rank if vi == 0 else best.get(doc, (0, 10**9, 0, vi))[1]
            if doc in best:
                b_rank, f_rank, neg_views, first = best[doc]
                best[doc] = (min(b_rank, rank), f_rank if vi else rank, neg_views - 1, first)
            else:
                best[doc] = (rank, full_rank, -1, vi)
    ordered = sorted(best.items(), key=lambda kv: (*kv[1], kv[0]))
    return [(doc, 1.0 / key[0]) for doc, key in ordered[: min(limit, MAX_RESULTS)]]
