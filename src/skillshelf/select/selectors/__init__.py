"""The selector registry: name -> deterministic, side-effect-free ranking function.

Every selector takes ``(index, query, limit, extras)`` and returns ``[(doc, score), ...]``
best first. ``extras`` carries the optional inputs: a usage prior (skills this user or
project loads often or recently) and a semantic encoder (the ``semantic`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from skillshelf.select.fusion import centred, combine, rrf
from skillshelf.select.index import SkillIndex
from skillshelf.select.selectors.codex import codex_bm25, codex_lexical, codex_multi, codex_ngram
from skillshelf.select.selectors.sparse import (
    bm25f,
    bm25f_scores,
    is_short,
    multi,
    name_coverage,
    ngram,
    ngram_scores,
    query_weights,
    top_hits,
)
from skillshelf.select.static import static_scores

if TYPE_CHECKING:
    from skillshelf.select.semantic import SemanticIndex

__all__ = ["BASE_SELECTORS", "Extras", "SelectorFn"]

Hit = tuple[int, float]


@dataclass(frozen=True, slots=True, kw_only=True)
class Extras:
    """Optional ranking inputs. ``usage``: skill path -> prior in [0, 1]."""

    usage: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    semantic: SemanticIndex | None = None


SelectorFn = Callable[[SkillIndex, str, int, Extras], list[Hit]]

# Default fusion weights (general choices, see bench/selection.py for how they were checked).
W_BM25F = 1.0
W_NGRAM = 0.3
W_SEMANTIC = 1.0
W_SEMANTIC_SHORT = 3.0
W_WORDS_SHORT = 2.0
W_STATIC_SHORT = 1.0
STATIC_FLOOR = 0.35  # a cosine of static vectors below this is no evidence (unrelated texts reach ~0.3)
STATIC_SCALE = 0.3  # cosine above the floor that counts as much as the best lexical match
W_USAGE = 0.15
W_NAME = 0.5
SEM_QUANTILE = 0.5


def _semantic_parts(index: SkillIndex, query: str, semantic: SemanticIndex) -> list[tuple[float, Any]]:
    """MiniLM was trained on sentence pairs: it is the better judge of a short request; a long
    task it reads sentence by sentence (``semantic.passages``) and weighs a third as much.
    WordLlama, a bag of words, judges short requests only (it errs where MiniLM does not)."""
    short = is_short(query)
    parts: list[tuple[float, Any]] = []
    if semantic.encoder is not None:
        dense = centred(semantic.scores(index, query), quantile=SEM_QUANTILE)
        parts.append((W_SEMANTIC_SHORT if short else W_SEMANTIC, dense))
    if short and semantic.words is not None:
        parts.append((W_WORDS_SHORT, centred(semantic.word_scores(index, query), quantile=SEM_QUANTILE)))
    return parts


def _static_part(index: SkillIndex, query: str) -> Any:
    """Static word vectors are a bag of words: a fair judge of a request, not of a long task.
    Cosines mean the same thing in every index, so they are scaled absolutely (a relative
    scale would turn a hair's difference between two skills into a whole point)."""
    import numpy as np

    cosines = static_scores(index, query)
    if len(cosines) == 0:
        return cosines
    # a chatty request ("thanks, that works") is near everything: only what stands above the
    # crowd counts, and never below the absolute floor
    floor = max(float(np.median(cosines)), STATIC_FLOOR)
    return np.maximum(cosines - np.float32(floor), np.float32(0)) / np.float32(STATIC_SCALE)


def _usage_scores(index: SkillIndex, extras: Extras) -> Any:
    import numpy as np

    prior = np.zeros(len(index), np.float32)
    for key, value in extras.usage.items():
        i = index.by_key.get(key)
        if i is not None:
            prior[i] = np.float32(max(0.0, min(1.0, value)))
    return prior


def _default(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
    import numpy as np

    short = is_short(query)
    weights = query_weights(query)
    parts: list[tuple[float, Any]] = [(W_BM25F, bm25f_scores(index, query, weights=weights))]
    if short:
        # a typo or a compound name decides a request; in a task of many words it is noise
        # (SkillsBench: 0.701 / 0.943 -> 0.713 / 0.954 without, and half the query time)
        parts.append((W_NGRAM, ngram_scores(index, query)))
    if extras.semantic is not None:
        parts.extend(_semantic_parts(index, query, extras.semantic))
    total = combine(parts)
    if (extras.semantic is None or not extras.semantic.models) and short:
        # the static vectors are the base install's stand-in for the extras' embedding models
        total = total + np.float32(W_STATIC_SHORT) * _static_part(index, query)
    coverage = name_coverage(index, query, weights=weights)
    total = total + np.float32(W_NAME) * coverage * coverage
    if extras.usage and float(total.max(initial=0.0)) > 0:
        # the prior breaks near-ties among skills that match; it never lifts a non-match
        total = total + np.where(total > 0, np.float32(W_USAGE) * _usage_scores(index, extras), np.float32(0))
    return top_hits(index, total, limit)


def _rrf_all(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
    depth = max(limit, 50)
    lists = [bm25f(index, query, depth), ngram(index, query, depth), multi(index, query, depth)]
    if extras.semantic is not None and extras.semantic.encoder is not None:
        lists.append(top_hits(index, extras.semantic.scores(index, query), depth))
    return rrf(index, lists, limit, k=60)


def _usage(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
    return top_hits(index, _usage_scores(index, extras), limit)


def _semantic(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
    if extras.semantic is None or extras.semantic.encoder is None:
        return []
    return top_hits(index, extras.semantic.scores(index, query), limit)


def _wordllama(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
    if extras.semantic is None or extras.semantic.words is None:
        return []
    return top_hits(index, extras.semantic.word_scores(index, query), limit)


def _wrap(fn: Callable[[SkillIndex, str, int], list[Hit]]) -> SelectorFn:
    def run(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
        return fn(index, query, limit)

    run.__doc__ = fn.__doc__
    return run


BASE_SELECTORS: dict[str, SelectorFn] = {
    "default": _default,
    "bm25f": _wrap(bm25f),
    "ngram": _wrap(ngram),
    "multi": _wrap(multi),
    "rrf": _rrf_all,
    "usage": _usage,
    "codex_lexical": _wrap(codex_lexical),
    "codex_bm25": _wrap(codex_bm25),
    "codex_ngram": _wrap(codex_ngram),
    "codex_multi": _wrap(codex_multi),
    "semantic": _semantic,
    "wordllama": _wordllama,
}
