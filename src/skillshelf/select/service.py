"""One-call entry points for the commands: search, evaluate, stats.

Each takes already-discovered skills (or tool records) and returns a value the CLI prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.errors import UsageError
from skillshelf.select import DEFAULT_SELECTOR, RankedDoc, rank_docs
from skillshelf.select.docs import SkillDoc, copy_key
from skillshelf.select.index import IndexStats, SkillIndex
from skillshelf.select.ranking import Ranker, Ranking, RankingSettings, semantic_index
from skillshelf.select.registry import SELECTORS
from skillshelf.skills.model import Skill

if TYPE_CHECKING:
    from skillshelf.select.evaluate import EvalReport, TurnFn
    from skillshelf.select.semantic import SemanticIndex

__all__ = [
    "SearchResult",
    "TurnCandidates",
    "evaluate_file",
    "never_suggested_misses",
    "resolve_selectors",
    "search",
    "semantic_for",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnCandidates:
    """What the per-turn ranking does with one task's skills
    (:func:`skillshelf.context_parts.turn_candidates` finds them): ``candidates`` are indexed
    (and set the confidence), ``never_suggested`` (SKILL.md path -> why) are never among the
    suggestions, and no copy (the same name and description) of a skill the task ``mentioned``
    (but pinned ones) or config ``pinned`` is either: those are in the context whole already.
    The context's fragment, `skillshelf search`, the page and the hooks all follow this one rule
    (:meth:`left_out`, :meth:`shown`)."""

    candidates: tuple[Skill, ...]
    never_suggested: Mapping[str, str]
    mentioned: tuple[Skill, ...] = ()
    pinned: tuple[Skill, ...] = ()

    def left_out(self, keys: Iterable[str]) -> frozenset[str]:
        """Those of ``keys`` (an index's entries) the ranking leaves out of the suggestions."""
        return frozenset(self.never_suggested).intersection(keys)

    def shown(self, suggested: Sequence[RankedDoc]) -> tuple[RankedDoc, ...]:
        """``suggested`` (a ranking's, with :meth:`left_out` left out) as the model is shown it:
        without a copy of a mentioned or pinned skill."""
        return tuple(r for r in suggested if self.copy_why(r.doc) is None)

    def copy_why(self, doc: SkillDoc) -> str | None:
        """Why ``doc`` is not shown as a copy of a mentioned or pinned skill (None: it is no copy)."""
        key = copy_key(doc.name, doc.description)
        for skill in self.mentioned:
            if copy_key(skill.name, skill.description) == key:
                return f"a copy of {skill.path}, which the task mentions: its body is in the context"
        for skill in self.pinned:
            if copy_key(skill.name, skill.description) == key:
                return f"a copy of {skill.path}, which is pinned: its body is in the context"
        return None

    def why_not_suggested(self, doc: SkillDoc) -> str | None:
        """Why the per-turn ranking never shows ``doc`` (None: it may)."""
        return self.never_suggested.get(doc.key) or self.copy_why(doc)


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """Ranked skills for one query, and how the index was built."""

    query: str
    selector: str
    ranked: tuple[RankedDoc, ...]
    index: IndexStats
    models: tuple[str, ...] = ()  # the embedding models that took part ("minilm", "wordllama")
    confidence: float | None = None  # the default ranking's calibrated confidence
    suggested: tuple[str, ...] = ()  # keys of the entries the model would be shown
    min_confidence: float | None = None  # the threshold: ``confidence`` reaches it or nothing is suggested
    parts: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # key -> part -> score (explain)
    never_suggested: Mapping[str, str] = field(default_factory=dict)  # key -> why, of the ranked entries
    no_task: bool = False  # the query holds no content word: nothing is suggested (Ranking.no_task)

    @property
    def semantic(self) -> bool:
        """Whether an embedding model took part."""
        return bool(self.models)

    def shown_confidence(self, places: int) -> float | None:
        """The confidence to ``places`` decimals, rounded as the threshold rule reads it
        (:meth:`RankingSettings.shown`): at or above ``min_confidence`` as printed exactly when
        skills may be suggested."""
        if self.confidence is None:
            return None
        if self.min_confidence is None:
            return round(self.confidence, places)
        return RankingSettings(min_confidence=self.min_confidence).shown(self.confidence, places)

    def to_dict(self) -> dict[str, object]:
        return {
            "query": self.query,
            "selector": self.selector,
            "semantic": self.semantic,
            "models": list(self.models),
            "confidence": self.shown_confidence(4),
            "min_confidence": self.min_confidence,
            "no_task": self.no_task,
            "results": [self._result(r) for r in self.ranked],
            "index": self.index.to_dict(),
        }

    def _result(self, ranked: RankedDoc) -> dict[str, object]:
        out = ranked.to_dict() | {
            "suggested": ranked.doc.key in self.suggested,
            "never_suggested": self.never_suggested.get(ranked.doc.key),
        }
        if ranked.doc.key in self.parts:
            out["parts"] = {name: round(v, 4) for name, v in self.parts[ranked.doc.key].items()}
        return out


def semantic_for(index: SkillIndex, *, mode: bool | None, cache_dir: Path | None) -> SemanticIndex | None:
    """The embedding models' index. ``mode`` None: every installed model (MiniLM, WordLlama),
    or None when neither is; True: MiniLM is required; False: no models (lexical + static)."""
    return semantic_index(index, mode=mode, cache_dir=cache_dir)


def search(
    skills: Sequence[Skill],
    query: str,
    *,
    top: int = 10,
    selector: str = "default",
    cache_dir: Path | None = None,
    semantic: bool | None = None,
    settings: RankingSettings | None = None,
    explain: bool = False,
    turn: TurnCandidates | None = None,
) -> SearchResult:
    """Index ``skills`` (cached under ``cache_dir``) and rank them against ``query``. The
    ``default`` selector is the :class:`Ranker` that the context, the agent and the MCP server
    use (same models, same threshold): ``suggested`` marks what the model would be shown, and
    ``explain`` fills ``parts``, what each part of the ranking added to each score.

    ``turn`` (None: every skill a candidate, none left out) is the per-turn rule: its
    ``candidates`` are the skills the suggestions choose among, in the order they index them;
    the suggestions and their confidence come from ranking them alone, as the context does. Its
    ``never_suggested`` (key -> why) says why the others are left out (their mode, hidden from
    the model, mentioned by the query...), for the ranked entries among them: a candidate it
    names is left out of the suggestions as the context leaves it out (still indexed, its score
    still sets the floor), and so is a copy (the same name and description) of a skill the query
    ``mentioned`` or config ``pinned`` (:meth:`TurnCandidates.shown`), as in the fragment."""
    if not query.strip():
        raise UsageError(
            "the query is empty",
            hint='give the task as text, e.g. skillshelf search "merge PDFs"',
            code="SE003",
        )
    if top < 1:
        raise UsageError("--top must be at least 1", hint="use e.g. --top 10", code="SE004")
    if explain and selector != DEFAULT_SELECTOR:
        raise UsageError(
            f"--explain takes the default ranking apart; {selector!r} has no parts to show",
            hint="drop --selector, or --explain",
            code="SE009",
        )
    if selector == DEFAULT_SELECTOR:
        ranker = Ranker.open(skills, cache_dir=cache_dir, models=semantic, settings=settings)
        ranking = ranker.rank(query, top_k=top)
        chosen = _suggestions(
            ranking, ranker, query, turn=turn, top=top, cache_dir=cache_dir, semantic=semantic
        )
        shown = chosen.suggested if turn is None else turn.shown(chosen.suggested)
        return SearchResult(
            query=query,
            selector=selector,
            ranked=ranking.ranked,
            index=ranker.index.stats,
            models=ranking.models,
            confidence=chosen.confidence,
            suggested=tuple(r.doc.key for r in shown),
            min_confidence=ranker.settings.min_confidence,
            parts=ranker.explain(query, {r.doc.key for r in ranking.ranked}) if explain else {},
            never_suggested=_never_suggested(ranking.ranked, turn),
            no_task=chosen.no_task,
        )
    spec = SELECTORS.get(selector)
    index = SkillIndex.build(skills, cache_dir=cache_dir)
    wants_semantic = True if spec.models is True else (spec.models if semantic is None else semantic)
    sem = semantic_for(index, mode=wants_semantic, cache_dir=cache_dir)
    ranked = rank_docs(index, query, top_k=top, selector=selector, semantic=sem)
    return SearchResult(
        query=query, selector=selector, ranked=ranked, index=index.stats, models=sem.models if sem else ()
    )


def _never_suggested(ranked: Sequence[RankedDoc], turn: TurnCandidates | None) -> dict[str, str]:
    """Why each of ``ranked`` the per-turn ranking never shows is left out (key -> why)."""
    if turn is None:
        return {}
    whys = ((r.doc.key, turn.why_not_suggested(r.doc)) for r in ranked)
    return {key: why for key, why in whys if why is not None}


def _suggestions(
    ranking: Ranking,
    ranker: Ranker,
    query: str,
    *,
    turn: TurnCandidates | None,
    top: int,
    cache_dir: Path | None,
    semantic: bool | None,
) -> Ranking:
    """The ranking whose ``suggested`` the model would be shown for ``query`` (before
    :meth:`TurnCandidates.shown`): ``turn``'s candidates ranked on their own (the scores and the
    confidence depend on what else is indexed) for ``max_suggestions``, those it leaves out left
    out, as the per-turn fragment ranks them (:func:`skillshelf.select.suggest.suggested`);
    ``ranking`` itself when every skill is a candidate, none is left out and it ranked as many."""
    wanted = ranker.settings.max_suggestions
    alone = False
    if turn is not None and not _same_skills(turn.candidates, ranker):
        alone = True
        ranker = Ranker.open(turn.candidates, cache_dir=cache_dir, models=semantic, settings=ranker.settings)
    left_out = frozenset() if turn is None else turn.left_out(d.key for d in ranker.index.docs)
    if not alone and not left_out and top >= wanted:
        return ranking
    return ranker.rank(query, top_k=wanted, exclude=left_out)


def _same_skills(candidates: Sequence[Skill], ranker: Ranker) -> bool:
    docs = ranker.index.docs
    return len(candidates) == len(docs) and all(
        str(s.path) == d.key for s, d in zip(candidates, docs, strict=True)
    )


def resolve_selectors(name: str, *, semantic: SemanticIndex | None) -> tuple[str, ...]:
    """``all`` -> every selector that can run here; else the one name (checked)."""
    if name == "all":
        models = semantic.models if semantic is not None else ()
        return tuple(s.name for s in SELECTORS if s.compared and (s.model is None or s.model in models))
    if name not in SELECTORS:
        raise UsageError(
            f"unknown selector {name!r}",
            hint=f"use one of: all, {', '.join(SELECTORS.names())}",
            code="SE001",
        )
    return (name,)


def evaluate_file(
    queries_file: Path,
    *,
    skills: Sequence[Skill] | None = None,
    tools_file: Path | None = None,
    selector: str = "all",
    top: int = 10,
    k: int = 5,
    cache_dir: Path | None = None,
    semantic: bool | None = None,
    settings: RankingSettings | None = None,
    candidates: Sequence[Skill] | None = None,
    turn: TurnFn | None = None,
) -> EvalReport:
    """Run the harness: a query file against skills (``--root``) or tool records (``--tools``).
    The ``default`` selector is the :class:`Ranker` (its suggestions are what triggers: the
    threshold, the half-of-best floor, ``max_suggestions``) over the ``candidates`` alone when
    given (the skills the per-turn suggestions choose among: a label on any other one is never
    shown), as the context ranks them, under
    the per-turn rule ``turn`` (the skills a query mentions; :func:`run_eval`); the others rank
    every skill with the same models."""
    if (skills is None) == (tools_file is None):
        raise UsageError(
            "give either skill roots or a tools file",
            hint="use --root DIR... or --tools FILE.jsonl",
            code="SE005",
        )
    if top < 1 or k < 1:
        raise UsageError("--top and --k must be at least 1", hint="use e.g. --top 10 --k 5", code="SE004")
    from skillshelf.select.evalfile import on_ranked_copies
    from skillshelf.select.evaluate import doc_key, load_queries, load_tools, run_eval

    queries = load_queries(queries_file, tools=tools_file is not None)
    if tools_file is not None:
        index = SkillIndex.from_tools(load_tools(tools_file))
    else:
        assert skills is not None
        index = SkillIndex.build(skills, cache_dir=cache_dir)
        ranked = [(doc_key(d), d.name, d.description) for d in index.docs]
        queries = on_ranked_copies(queries, ranked)
    if not len(index):
        raise UsageError(
            "no skills to evaluate against",
            hint="check the --root folders (skillshelf list --root DIR)",
            code="SE006",
        )
    needs_minilm = selector in SELECTORS and SELECTORS.get(selector).models is True
    sem = semantic_for(
        index,
        mode=semantic if semantic is not None else (True if needs_minilm else None),
        cache_dir=cache_dir,
    )
    names = resolve_selectors(selector, semantic=sem)
    ranker = Ranker(index, semantic=sem, settings=settings)
    if candidates is not None and DEFAULT_SELECTOR in names and not _same_skills(candidates, ranker):
        mode = semantic if semantic is not None else (True if needs_minilm else None)
        ranker = Ranker.open(candidates, cache_dir=cache_dir, models=mode, settings=settings)

    def rank_fn(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        if sel == DEFAULT_SELECTOR:
            ranking = ranker.rank(q, top_k=depth)
            return [r.doc for r in ranking.ranked], ranking.confident
        return [r.doc for r in rank_docs(ix, q, top_k=depth, selector=sel, semantic=sem)], True

    def suggest_fn(q: str, left_out: frozenset[str]) -> list[SkillDoc]:
        wanted = max(1, ranker.settings.max_suggestions)
        return [r.doc for r in ranker.rank(q, top_k=wanted, exclude=left_out).suggested]

    return run_eval(index, queries, names, top=top, k=k, rank_fn=rank_fn, turn=turn, suggest_fn=suggest_fn)


def never_suggested_misses(
    report: EvalReport, never_suggested: Mapping[str, str]
) -> dict[int, tuple[str, ...]]:
    """Why a query the ``default`` ranking judged missed can never pass: for its line, each of
    its ``relevant`` skills that are never suggested (``never_suggested``: SKILL.md path -> why,
    their mode or hidden from the model), as ``name is never suggested (why)``."""
    if report.judged != DEFAULT_SELECTOR or not never_suggested:
        return {}
    by_folder = {str(Path(key).parent): why for key, why in never_suggested.items()}
    missed = {o.line for o in report.outcomes if o.missed}
    notes: dict[int, tuple[str, ...]] = {}
    for q in report.queries:
        found = tuple(
            f"{Path(r).name} is never suggested ({by_folder[r]})" for r in q.relevant if r in by_folder
        )
        if q.line in missed and found:
            notes[q.line] = found
    return notes
