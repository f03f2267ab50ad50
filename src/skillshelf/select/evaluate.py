"""The evaluation harness behind ``skillshelf eval``.

A query file is JSON lines ``{"query": "...", "relevant": [...]}``. Relevant entries are skill
folders (absolute, or relative to the query file; a path to the ``SKILL.md`` works too) or,
with a tools file, tool ids. A line may also carry ``"not_relevant": [...]``: requests that
should *not* pick those skills (a skill author's should-not-trigger set); they are scored as
false triggers instead of recall. A line with neither tests nothing and is an error (SE307).

Metrics per selector: recall@1 and recall@5 (share of the relevant entries found in the top
k), hit@5 (at least one found), MRR@10, nDCG@10 (binary gains), false-trigger rate@5 over the
negative lines, and ranking latency p50/p99. Each reads what would be shown: below the
``default`` selector's confidence threshold no ranked entry is, as in the pass/fail judgement
below, so a query that fails as a miss adds no recall.

Each query also passes or fails (:class:`QueryOutcome`, judged on the first selector of the
run, ``default`` with ``--selector all``; :mod:`skillshelf.select.evaljudge` judges it): it fails
when none of its ``relevant`` skills is in the context (a miss) or one of its ``not_relevant``
skills is (a false trigger). Ranked, the first ``k`` are; for the ``default`` selector the first
``k`` of its suggestions are (:class:`~skillshelf.select.ranking.Ranking` ``suggested``: the
threshold, the half-of-best floor and ``max_suggestions``, what ``context`` shows and ``search``
marks), so a request below the confidence threshold triggers nothing. The metrics read the
ranking (nothing of it below the threshold).
Copies of one skill (the same name and description in two folders) count as one, at the best
rank of any of them: a label on one copy judges them all.

The ``default`` selector also follows the per-turn rule of the context (``turn``, a
:data:`TurnFn`): a skill pinned in config is in every session and a skill the query mentions
(``$name``, ``[$name](path)``, ``/name``) is loaded whole, whatever their rank, so a
``relevant`` one passes the query (``pinned``/``mentioned``, not a rank) and a ``not_relevant``
one fails it (a false trigger: it is in the context); the other skills are ranked with those
(and their copies) left out, and those ranked in the first ``k`` of the rest count. The metrics
read what the model has: the labelled pinned skills, the mentioned ones (both whole in the
context), then the rest, of which the ``default`` ranking shows nothing below its confidence
threshold (as for the pass/fail judgement). The other selectors judge their ranking alone.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from skillshelf.select import DEFAULT_SELECTOR
from skillshelf.select.docs import SkillDoc
from skillshelf.select.evalfile import EvalQuery, load_queries, load_tools
from skillshelf.select.evaljudge import (
    MENTIONED_WHY,
    NO_TURN,
    PINNED_WHY,
    QueryOutcome,
    QueryTurn,
    Shown,
    TurnFn,
    as_shown,
    copy_sets,
    doc_key,
    outcome,
)
from skillshelf.select.index import SkillIndex

__all__ = [
    "MENTIONED_WHY",
    "PINNED_WHY",
    "EvalQuery",
    "EvalReport",
    "QueryOutcome",
    "QueryTurn",
    "RankFn",
    "SelectorResult",
    "SuggestFn",
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


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalReport:
    """Every selector's result, plus the queries (for per-query output) and the index size."""

    results: tuple[SelectorResult, ...]
    queries: tuple[EvalQuery, ...]
    documents: int
    unknown_relevant: tuple[str, ...] = ()  # relevant labels that name no indexed entry
    unknown_not_relevant: tuple[str, ...] = ()  # not_relevant labels that name none
    tools: bool = False  # the entries are tool records, not skills
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

    def unknown_labels(self) -> tuple[tuple[str, tuple[str, ...], str], ...]:
        """For each list with labels that name no indexed skill or tool: ``(list, labels, fix)``
        (``relevant`` ones count as misses, ``not_relevant`` ones can never trigger)."""
        where = (
            "add the tool to the tools file, or correct the id"
            if self.tools
            else "rank the folder that holds them with --root FOLDER, or correct the path"
        )
        found = (
            ("relevant", self.unknown_relevant, f"they count as misses; {where}"),
            (
                "not_relevant",
                self.unknown_not_relevant,
                f"they can never trigger, so they test nothing; {where}",
            ),
        )
        return tuple(entry for entry in found if entry[1])

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
            "unknown_not_relevant": list(self.unknown_not_relevant),
            "selectors": [r.to_dict() for r in self.results],
        }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True, slots=True)
class _Had:
    """What the model has of one query's ``view`` at a depth, as the pass/fail judgement reads it:
    the labelled pinned and mentioned skills, then the ranked ones only when ``shown`` (the
    ``default`` ranking below its confidence threshold shows none)."""

    view: Shown
    shown: bool

    def __call__(self, depth: int) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.view.in_context(depth if self.shown else 0)))


def _unknown(labels: Iterable[str], known: set[str]) -> tuple[str, ...]:
    """The ``labels`` that name no indexed entry, sorted, once each."""
    return tuple(sorted(set(labels) - known))


def _triggered(
    view: Shown,
    asked: EvalQuery,
    rule: QueryTurn,
    copies: dict[str, str],
    sel: str,
    suggest_fn: SuggestFn | None,
) -> tuple[str, ...]:
    """The keys whose first ``k`` the PASS/FAIL reads: the ``default`` ranking's suggestions
    (``suggest_fn``, under ``rule``), else the ranking of ``view``."""
    if suggest_fn is None or sel != DEFAULT_SELECTOR:
        return view.ranked
    return as_shown(suggest_fn(asked.query, rule.left_out), asked, rule, copies).ranked


RankFn = Callable[[SkillIndex, str, int, str], tuple[list[SkillDoc], bool]]
"""``(index, query, depth, selector) -> (ranked documents, whether anything would be shown)``."""

SuggestFn = Callable[[str, frozenset[str]], list[SkillDoc]]
"""``(query, keys left out) -> the documents the model is shown``: the ``default`` ranking's
suggestions (threshold, half-of-best floor, ``max_suggestions``), which its PASS/FAIL reads."""


def run_eval(
    index: SkillIndex,
    queries: Sequence[EvalQuery],
    selectors: Sequence[str],
    *,
    top: int = 10,
    k: int = 5,
    rank_fn: RankFn | None = None,
    turn: TurnFn | None = None,
    suggest_fn: SuggestFn | None = None,
) -> EvalReport:
    """Rank every query with every selector, compute the metrics, and judge each query on the
    first selector (see the module docstring); ``turn`` is the per-turn rule the ``default``
    selector follows (None: no skill is pinned, no query mentions one, none is left out), and
    ``suggest_fn`` its suggestions, which its PASS/FAIL reads (None: the first ``k`` ranked)."""
    from skillshelf.select import rank_docs

    def default_rank(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        return [r.doc for r in rank_docs(ix, q, top_k=depth, selector=sel)], True

    ranker = rank_fn or default_rank
    known = {doc_key(d) for d in index.docs}
    copies = copy_sets(index)
    depth = max(top, 10, k)
    results = []
    outcomes: list[QueryOutcome] = []
    for n, sel in enumerate(selectors):
        ranked_all: list[tuple[str, ...]] = []
        times: list[float] = []
        r1, r5, h5, mrr, ndcg, false5 = [], [], [], [], [], []
        for asked in queries:
            rule = turn(asked.query) if turn is not None and sel == DEFAULT_SELECTOR else NO_TURN
            wanted = depth + len(rule.left_out) + len(rule.mentioned) + len(rule.pinned)
            start = time.perf_counter()
            docs, shown = ranker(index, asked.query, wanted * (1 + index.copy_depth()), sel)
            times.append((time.perf_counter() - start) * 1000)
            view = as_shown(docs, asked, rule, copies)
            view = dataclasses.replace(view, ranked=view.ranked[:depth])
            q, listed = view.labels, tuple(dict.fromkeys(view.in_context(depth)))
            ranked_all.append(listed[:top])
            if n == 0:
                judged = _triggered(view, asked, rule, copies, sel, suggest_fn)
                outcomes.append(outcome(q, judged, k, shown, mentioned=view.mentioned, pinned=view.pinned))
            had = _Had(view, shown)
            if q.relevant:
                first, five, ten = had(1), had(5), had(10)
                r1.append(recall_at(first, q.relevant, len(first)))
                r5.append(recall_at(five, q.relevant, len(five)))
                h5.append(1.0 if set(five) & set(q.relevant) else 0.0)
                mrr.append(reciprocal_rank(ten, q.relevant, 10))
                ndcg.append(ndcg_at(ten, q.relevant, 10))
            if q.not_relevant:
                false5.append(1.0 if set(had(5)) & set(q.not_relevant) else 0.0)
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
        unknown_relevant=_unknown((r for q in queries for r in q.relevant), known),
        unknown_not_relevant=_unknown((r for q in queries for r in q.not_relevant), known),
        tools=any(d.tool_id is not None for d in index.docs),
        outcomes=tuple(outcomes),
        judged=selectors[0] if selectors else "",
        k=k,
    )
