"""The evaluation harness behind ``skillshelf eval``.

A query file is JSON lines ``{"query": "...", "relevant": [...]}``. Relevant entries are skill
folders (absolute, or relative to the query file; a path to the ``SKILL.md`` works too) or,
with a tools file, tool ids. A line may also carry ``"not_relevant": [...]``: requests that
should *not* pick those skills (a skill author's should-not-trigger set); they are scored as
false triggers instead of recall. A line with neither tests nothing and is an error (SE307).

Metrics per selector: recall@1 and recall@5 (share of the relevant entries found in the top
k), hit@5 (at least one found), MRR@10, nDCG@10 (binary gains), false-trigger rate@5 over the
negative lines (what would be shown: below the ``default`` selector's confidence threshold
nothing triggers, as in the pass/fail judgement below), and ranking latency p50/p99.

Each query also passes or fails (:class:`QueryOutcome`, judged on the first selector of the
run, ``default`` with ``--selector all``): it fails when none of its ``relevant`` skills is
among the first ``k`` (a miss) or one of its ``not_relevant`` skills is (a false trigger).
For the ``default`` selector a request below the confidence threshold triggers nothing, as the
model is then shown no suggestion. Copies of one skill (the same name and description in two
folders) count as one, at the best rank of any of them: a label on one copy judges them all.

The ``default`` selector also follows the per-turn rule of the context (``turn``, a
:data:`TurnFn`): a skill the query mentions (``$name``, ``[$name](path)``, ``/name``) is loaded
whole, whatever its rank, so a ``relevant`` one passes the query (``mentioned``, not a rank)
and a ``not_relevant`` one fails it (a false trigger: it enters the context); the other skills
are ranked with the mentioned ones (and their copies) left out, and those ranked in the first
``k`` of the rest count. The metrics read the list the model is shown: the mentioned skills
first (as the suggestions list them), then the rest.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.select import DEFAULT_SELECTOR
from skillshelf.select.docs import SkillDoc, copy_key
from skillshelf.select.evalfile import EvalQuery, load_queries, load_tools
from skillshelf.select.index import SkillIndex
from skillshelf.skills.model import Skill

__all__ = [
    "MENTIONED_WHY",
    "EvalQuery",
    "EvalReport",
    "QueryOutcome",
    "QueryTurn",
    "RankFn",
    "SelectorResult",
    "TurnFn",
    "doc_key",
    "load_queries",
    "load_tools",
    "ndcg_at",
    "outcome",
    "recall_at",
    "reciprocal_rank",
    "run_eval",
]


def doc_key(doc: SkillDoc) -> str:
    """What a query file names: the tool id, or the absolute skill folder."""
    return doc.tool_id if doc.tool_id is not None else str(Path(doc.key).parent)


# ---- metrics (pure) --------------------------------------------------------------------------


def recall_at(ranked: Sequence[str], relevant: Sequence[str], k: int) -> float:
    """Share of ``relevant`` found in the first ``k`` of ``ranked``."""
    rel = set(relevant)
    return len(rel.intersection(ranked[:k])) / len(rel) if rel else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: Sequence[str], k: int = 10) -> float:
    rel = set(relevant)
    return next((1.0 / (i + 1) for i, r in enumerate(ranked[:k]) if r in rel), 0.0)


def ndcg_at(ranked: Sequence[str], relevant: Sequence[str], k: int = 10) -> float:
    """Binary-gain nDCG@k."""
    rel = set(relevant)
    if not rel:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, r in enumerate(ranked[:k]) if r in rel)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(rel))))
    return dcg / ideal


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectorResult:
    """One selector's figures over a query file (and every ranked list, for ``--json``)."""

    selector: str
    queries: int
    negatives: int
    recall_1: float
    recall_5: float
    hit_5: float
    mrr_10: float
    ndcg_10: float
    false_trigger_5: float | None
    p50_ms: float
    p99_ms: float
    ranked: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    def to_dict(self, *, with_ranked: bool = True) -> dict[str, object]:
        out: dict[str, object] = {
            "selector": self.selector,
            "queries": self.queries,
            "negatives": self.negatives,
            "recall@1": round(self.recall_1, 4),
            "recall@5": round(self.recall_5, 4),
            "hit@5": round(self.hit_5, 4),
            "mrr@10": round(self.mrr_10, 4),
            "ndcg@10": round(self.ndcg_10, 4),
            "false_trigger@5": None if self.false_trigger_5 is None else round(self.false_trigger_5, 4),
            "latency_p50_ms": round(self.p50_ms, 3),
            "latency_p99_ms": round(self.p99_ms, 3),
        }
        if with_ranked:
            out["ranked"] = [list(r) for r in self.ranked]
        return out


MENTIONED_WHY = "mentioned: loaded whole"


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryOutcome:
    """Whether one query passed: a ``relevant`` skill it mentions or one in the first ``k`` of
    the rest (``rank`` is the best one's there, None when none is), and no ``not_relevant`` one
    mentioned or there (``false_triggers``). ``mentioned``: the labelled skills the query
    mentions, whole in the context whatever their rank."""

    line: int
    query: str
    rank: int | None
    missed: bool
    false_triggers: tuple[str, ...] = ()
    mentioned: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.missed and not self.false_triggers

    def mention_notes(self) -> tuple[str, ...]:
        """``NAME mentioned: loaded whole`` for each labelled skill the query mentions."""
        return tuple(f"{Path(key).name} {MENTIONED_WHY}" for key in self.mentioned)

    def to_dict(self) -> dict[str, object]:
        return {
            "line": self.line,
            "query": self.query,
            "passed": self.passed,
            "rank": self.rank,
            "missed": self.missed,
            "false_triggers": list(self.false_triggers),
            "mentioned": [{"skill": key, "why": MENTIONED_WHY} for key in self.mentioned],
        }


def outcome(
    q: EvalQuery, keys: Sequence[str], k: int, triggered: bool, *, mentioned: Sequence[str] = ()
) -> QueryOutcome:
    """Judge one query on its ranked ``keys`` (those it mentions left out); ``triggered``
    False: nothing ranked would be shown. The ``mentioned`` skills are in the context whatever
    their rank: a relevant one passes the query, a not_relevant one is a false trigger."""
    shown = list(keys[:k]) if triggered else []
    relevant, negative = set(q.relevant), set(q.not_relevant)
    rank = next((i + 1 for i, key in enumerate(shown) if key in relevant), None)
    said = tuple(dict.fromkeys(key for key in mentioned if key in relevant or key in negative))
    return QueryOutcome(
        line=q.line,
        query=q.query,
        rank=rank,
        missed=bool(q.relevant) and rank is None and not relevant.intersection(said),
        false_triggers=tuple(dict.fromkeys(key for key in (*said, *shown) if key in negative)),
        mentioned=said,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalReport:
    """Every selector's result, plus the queries (for per-query output) and the index size."""

    results: tuple[SelectorResult, ...]
    queries: tuple[EvalQuery, ...]
    documents: int
    unknown_relevant: tuple[str, ...] = ()
    outcomes: tuple[QueryOutcome, ...] = ()
    judged: str = ""  # the selector the outcomes are of
    k: int = 5

    @property
    def failed(self) -> tuple[QueryOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed)

    def summary(self) -> str:
        missed = sum(o.missed for o in self.outcomes)
        false = sum(bool(o.false_triggers) for o in self.outcomes)
        return (
            f"{self.judged}: {len(self.outcomes) - len(self.failed)} of {len(self.outcomes)} queries passed "
            f"(top {self.k}); {missed} missed, {false} false trigger(s)"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "documents": self.documents,
            "judged": self.judged,
            "k": self.k,
            "passed": not self.failed,
            "summary": self.summary(),
            "outcomes": [o.to_dict() for o in self.outcomes],
            "queries": [
                {
                    "line": q.line,
                    "query": q.query,
                    "relevant": list(q.relevant),
                    "not_relevant": list(q.not_relevant),
                }
                for q in self.queries
            ],
            "unknown_relevant": list(self.unknown_relevant),
            "selectors": [r.to_dict() for r in self.results],
        }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _copy_sets(index: SkillIndex) -> dict[str, str]:
    """Each entry's key -> the key of the first of its copies (the same name and description,
    :func:`~skillshelf.select.docs.copy_key`); empty when no entry has a copy."""
    if not index.copy_depth():
        return {}
    first: dict[tuple[str, str], str] = {}
    return {doc_key(d): first.setdefault(copy_key(d.name, d.description), doc_key(d)) for d in index.docs}


def _one_per_skill(
    keys: tuple[str, ...], q: EvalQuery, copies: dict[str, str]
) -> tuple[tuple[str, ...], EvalQuery]:
    """The ranked ``keys`` and the query's labels with the copies of one skill counted once, as
    the model is shown them: the set stands at its best rank, under the key a label gives it
    (else the best-ranked copy's). A label on one copy judges them all."""
    if not copies:
        return keys, q
    named = {copies.get(key, key): key for key in (*q.relevant, *q.not_relevant)}

    def once(entries: Sequence[str]) -> tuple[str, ...]:
        kept: dict[str, str] = {}
        for key in entries:
            group = copies.get(key, key)
            kept.setdefault(group, named.get(group, key))
        return tuple(kept.values())

    labels = dataclasses.replace(q, relevant=once(q.relevant), not_relevant=once(q.not_relevant))
    return once(keys), labels


RankFn = Callable[[SkillIndex, str, int, str], tuple[list[SkillDoc], bool]]
"""``(index, query, depth, selector) -> (ranked documents, whether anything would be shown)``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryTurn:
    """What the per-turn rule does with one query
    (:func:`skillshelf.context_parts.turn_candidates` decides it): the skills it ``mentioned``
    (loaded whole, whatever their rank) and the keys (SKILL.md paths) the suggestions leave
    ``left_out`` for it (those mentioned, those Claude Code's ``skillOverrides`` withhold)."""

    mentioned: tuple[Skill, ...] = ()
    left_out: frozenset[str] = frozenset()


TurnFn = Callable[[str], QueryTurn]
"""``query -> QueryTurn``: the per-turn rule the ``default`` selector is judged under."""

_NO_TURN = QueryTurn()


def _as_shown(
    docs: Sequence[SkillDoc], asked: EvalQuery, turn: QueryTurn, copies: dict[str, str]
) -> tuple[tuple[str, ...], tuple[str, ...], EvalQuery]:
    """The keys of the skills ``asked`` mentions, the ranked keys of the rest (``turn``'s
    left-out ones and every copy of a mentioned one taken out), and the query's labels, the
    copies of one skill counted once in each (:func:`_one_per_skill`)."""
    if not turn.mentioned and not turn.left_out:
        keys, q = _one_per_skill(tuple(doc_key(d) for d in docs), asked, copies)
        return (), keys, q
    gone = {copy_key(s.name, s.description) for s in turn.mentioned}
    rest = tuple(
        doc_key(d) for d in docs if d.key not in turn.left_out and copy_key(d.name, d.description) not in gone
    )
    said, _ = _one_per_skill(tuple(dict.fromkeys(str(s.path.parent) for s in turn.mentioned)), asked, copies)
    keys, q = _one_per_skill(rest, asked, copies)
    return said, keys, q


def _in_context(said: Sequence[str], rest: Sequence[str], n: int) -> tuple[str, ...]:
    """What the model is shown at depth ``n``: the skills the query mentions, then the best
    ``n`` of the rest."""
    return (*said, *rest[:n])


def run_eval(
    index: SkillIndex,
    queries: Sequence[EvalQuery],
    selectors: Sequence[str],
    *,
    top: int = 10,
    k: int = 5,
    rank_fn: RankFn | None = None,
    turn: TurnFn | None = None,
) -> EvalReport:
    """Rank every query with every selector, compute the metrics, and judge each query on the
    first selector (see the module docstring); ``turn`` is the per-turn rule the ``default``
    selector follows (None: no query mentions a skill, none is left out)."""
    from skillshelf.select import rank_docs

    def default_rank(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        return [r.doc for r in rank_docs(ix, q, top_k=depth, selector=sel)], True

    ranker = rank_fn or default_rank
    known = {doc_key(d) for d in index.docs}
    unknown = sorted({r for q in queries for r in (*q.relevant, *q.not_relevant) if r not in known})
    copies = _copy_sets(index)
    depth = max(top, 10, k)
    results = []
    outcomes: list[QueryOutcome] = []
    for n, sel in enumerate(selectors):
        ranked_all: list[tuple[str, ...]] = []
        times: list[float] = []
        r1, r5, h5, mrr, ndcg, false5 = [], [], [], [], [], []
        for asked in queries:
            rule = turn(asked.query) if turn is not None and sel == DEFAULT_SELECTOR else _NO_TURN
            wanted = depth + len(rule.left_out) + len(rule.mentioned)
            start = time.perf_counter()
            docs, shown = ranker(index, asked.query, wanted * (1 + index.copy_depth()), sel)
            times.append((time.perf_counter() - start) * 1000)
            said, keys, q = _as_shown(docs, asked, rule, copies)
            keys = keys[:depth]
            listed = tuple(dict.fromkeys((*said, *keys)))
            ranked_all.append(listed[:top])
            if n == 0:
                outcomes.append(outcome(q, keys, k, shown, mentioned=said))
            if q.relevant:
                first, five = _in_context(said, keys, 1), _in_context(said, keys, 5)
                r1.append(recall_at(first, q.relevant, len(first)))
                r5.append(recall_at(five, q.relevant, len(five)))
                h5.append(1.0 if set(five) & set(q.relevant) else 0.0)
                mrr.append(reciprocal_rank(listed, q.relevant, 10))
                ndcg.append(ndcg_at(listed, q.relevant, 10))
            if q.not_relevant:
                triggered = set(_in_context(said, keys, 5 if shown else 0))
                false5.append(1.0 if triggered & set(q.not_relevant) else 0.0)
        results.append(
            SelectorResult(
                selector=sel,
                queries=len(r1),
                negatives=len(false5),
                recall_1=_mean(r1),
                recall_5=_mean(r5),
                hit_5=_mean(h5),
                mrr_10=_mean(mrr),
                ndcg_10=_mean(ndcg),
                false_trigger_5=_mean(false5) if false5 else None,
                p50_ms=_percentile(times, 0.5),
                p99_ms=_percentile(times, 0.99),
                ranked=tuple(ranked_all),
            )
        )
    return EvalReport(
        results=tuple(results),
        queries=tuple(queries),
        documents=len(index),
        unknown_relevant=tuple(unknown),
        outcomes=tuple(outcomes),
        judged=selectors[0] if selectors else "",
        k=k,
    )
