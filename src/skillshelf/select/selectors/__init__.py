"""The selectors' ranking functions (deterministic, side-effect free; the registry of names is
:mod:`skillshelf.select.registry`).

Every selector takes ``(index, query, limit, extras)`` and returns ``[(doc, score), ...]``
best first. ``extras`` carries the optional inputs: a usage prior (skills this user or
project loads often or recently) and a semantic encoder (the ``semantic`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from skillshelf.select.fusion import centred, normalised, quantile, rrf
from skillshelf.select.index import SkillIndex
from skillshelf.select.named import named_first
from skillshelf.select.rerank import reordered
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

__all__ = [
    "LONG_WEIGHTS",
    "WEIGHTS",
    "WORDLLAMA_MAX_WORDS",
    "DefaultScores",
    "Extras",
    "SelectorFn",
    "Weights",
    "default_parts",
    "default_scores",
]

Hit = tuple[int, float]


@dataclass(frozen=True, slots=True, kw_only=True)
class Extras:
    """Optional ranking inputs. ``usage``: skill path -> prior in [0, 1]."""

    usage: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    semantic: SemanticIndex | None = None


SelectorFn = Callable[[SkillIndex, str, int, Extras], list[Hit]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Weights:
    """The default ranking's weights beside its lexical part (:func:`bm25f_scores`, 1.0).

    Chosen by coordinate search with 5-fold cross-validation on the skill-requests **dev**
    split together with the MetaTool dev half (queries whose id hash is even), one set per
    combination of installed models (``bench/selection.py`` reports them on the held-out
    data). ``ngram`` and ``static`` count for short requests only (:data:`SHORT_QUERY_WORDS`),
    ``words`` for those and, through :data:`LONG_WEIGHTS`, for a task of up to
    :data:`WORDLLAMA_MAX_WORDS` words; ``name`` multiplies the squared name coverage."""

    name: float
    ngram: float = 0.0
    static: float = 0.0
    minilm: float = 0.0
    words: float = 0.0


WEIGHTS: Mapping[tuple[str, ...], Weights] = MappingProxyType(
    {
        (): Weights(name=0.3, ngram=0.1, static=0.2),
        ("wordllama",): Weights(name=0.1, words=0.5),
        ("minilm",): Weights(name=0.2, minilm=0.75),
        ("minilm", "wordllama"): Weights(name=0.2, minilm=0.75, words=0.5),
    }
)
"""Per installed models (``SemanticIndex.models``): the weights of the default ranking (a long
task without MiniLM takes :data:`LONG_WEIGHTS`).

Searched again, on the dev split with the requests in ``bench/data/authored-requests.jsonl`` and
the MetaTool dev half (best mean MRR@10, 5-fold cross-validation): the search chose metadata at
0.2, WordLlama at 0.75 beside the static vectors at 0.2 for requests, and for long tasks no name
coverage. On the held-out sets the long-task weights lowered SkillsBench success@5 from 0.851 to
0.793 (its task specifications often name the skill), and the request weights alone lowered the
skill-requests test split's MRR@10 from 0.785 to 0.777 (+ MiniLM 0.791 -> 0.779) while MetaTool's
held-out success@5 rose from 0.685 to 0.705. A change is kept only when every held-out set gains,
so these weights stay.

Pseudo-relevance feedback was tried on the same tuning data and left out: the metadata terms of
the 3, 5 or 10 best skills (weighted by their score, field weight, term share and idf), the best
5, 10 or 20 of them added to the request at 0.3 or 0.6 of a request term's weight, and the BM25F
of the widened request added at 0.25, 0.5 or 1.0. Mean MRR@10 over the dev split, the authored
requests and the MetaTool dev half went from 0.747 to at most 0.748, and the dev split's
success@5 fell from 0.946 to 0.939 at that setting: a request that names its need is already
matched, and one that does not leads the first pass to the wrong skills' words.

Expansion by WordLlama's sense of words was tried the same way and left out: the index's words
nearest the request's vector (3 to 20 of them, a cosine floor of 0, 0.3 or 0.4) added at 0.3 to 1.0
of a request term's weight, their BM25F added at 0.25 to 1.0. Mean MRR@10 went from 0.747 to at
most 0.749: the nearest words of a bag of tokens are as often look-alikes (``icml`` -> ``uml``,
``sbml``) as neighbours in sense.

So were pairs of neighbouring terms (within 1 or 2 words) shared by the request and a skill's
name and descriptions, or those and its body: a third score, idf-weighted, at 0.1 to 0.8. Mean
MRR@10 went from 0.747 to at most 0.749 (the authored requests gained, MetaTool lost).

So was a per-request gate on the embedding parts (WordLlama, MiniLM, static vectors), for both
the base install and + MiniLM, scored by the mean MRR@10 of the dev split, the authored requests
and 600 MetaTool dev-half queries: the parts times ``1 + a * (c - peak)`` (``peak``: how far the
best BM25F score stands above the fifth, as a share of the best; a = 0.5 to 5, c = 0.1 to 0.6),
or times a value that moves from ``lo`` to ``hi`` (0.5 to 2) with how many of the five best
skills by BM25F are also among the five best by the embeddings. The mean of the six figures went
from 0.761 to at most 0.763, and the dev split lost at every setting that gained (base 0.866 ->
0.862, + MiniLM 0.870 -> 0.864 at the best peak gate); the best agreement setting was the same
factor (1.5) at every agreement, MetaTool asking for more embedding weight as the search above
found.

With MiniLM and WordLlama, no name coverage (``name`` 0.2 -> 0) was even or better on every
tuning set: MRR@10 on the dev split 0.870 -> 0.870, the authored requests 0.790 -> 0.800
(success@1 0.717 -> 0.733), 3,600 MetaTool dev-half queries 0.632 -> 0.633, small libraries from
the dev requests within one request. Held out it lowered SkillsBench (success@5 0.920 -> 0.885,
MRR@10 0.827 -> 0.802: its tasks name their skills) and MetaTool's held-out half (MRR@10 0.630
-> 0.629) while the skill-requests test split gained (0.787 -> 0.795), so it stays."""
LONG_WEIGHTS: Mapping[tuple[str, ...], Weights] = MappingProxyType(
    {
        (): Weights(name=0.3),
        ("wordllama",): Weights(name=0.3, words=0.3),
    }
)
"""Per installed models without MiniLM: the weights for a long task (over
:data:`SHORT_QUERY_WORDS` words; with MiniLM a long task takes :data:`WEIGHTS`). WordLlama reads
one of at most :data:`WORDLLAMA_MAX_WORDS` words whole. Its weight was chosen on the long requests
of the tuning data (12 of the skill-requests dev split, 120 of ``bench/data/authored-requests.jsonl``;
126 of the 132 have at most 60 words), at the best mean MRR@10 of 0.15, 0.3, 0.5 and 0.75: the
authored ones 0.734 -> 0.749, success@5 0.825 -> 0.850, the dev ones unchanged. Beside MiniLM,
WordLlama added to those requests at the same weights lifted the authored ones' MRR@10 from 0.746
to at most 0.757 and lowered the dev ones' from 0.856 to 0.833 or less, so it stays out there."""
WORDLLAMA_MAX_WORDS = 60
"""The longest task WordLlama judges without MiniLM. A mean of token vectors blurs a task
specification of hundreds of words, and read passage by passage (the best cosine of a passage
of 60 words, as MiniLM reads it) it took the ranking of a SkillsBench task among 10,000 skills from
1 ms to 5 ms at the median; the tuning data hold no longer requests to choose its weight on."""
STATIC_FLOOR = 0.35  # a cosine of static vectors below this is no evidence (unrelated texts reach ~0.3)
STATIC_SCALE = 0.3  # cosine above the floor that counts as much as the best lexical match
W_USAGE = 0.15
SEM_QUANTILE = 0.5


def _static_part(cosines: Any) -> Any:
    """Static word vectors are a bag of words: a fair judge of a request, not of a long task.
    Cosines mean the same thing in every index, so they are scaled absolutely (a relative
    scale would turn a hair's difference between two skills into a whole point)."""
    import numpy as np

    if len(cosines) == 0:
        return cosines
    # a chatty request ("thanks, that works") is near everything: only what stands above the
    # crowd counts, and never below the absolute floor
    floor = max(quantile(cosines, 0.5), STATIC_FLOOR)
    return np.maximum(cosines - np.float32(floor), np.float32(0)) / np.float32(STATIC_SCALE)


def _usage_scores(index: SkillIndex, extras: Extras) -> Any:
    import numpy as np

    prior = np.zeros(len(index), np.float32)
    for key, value in extras.usage.items():
        i = index.by_key.get(key)
        if i is not None:
            prior[i] = np.float32(max(0.0, min(1.0, value)))
    return prior


@dataclass(frozen=True, slots=True)
class DefaultScores:
    """The default ranking's scores of every document and the raw evidence behind them (what
    :mod:`skillshelf.select.confidence` reads): BM25F of metadata and body, and the cosines
    of the static vectors and of each installed model (None where not computed)."""

    total: Any
    meta: Any
    body: Any
    static: Any = None
    minilm: Any = None
    words: Any = None
    terms: Mapping[str, Any] = field(default_factory=dict)  # signal -> its weighted term of ``total``
    weights: Mapping[str, float] = field(default_factory=dict)  # the analysed query terms (query_weights)


def default_parts(
    index: SkillIndex, query: str, semantic: SemanticIndex | None = None, *, reorder: bool = True
) -> DefaultScores:
    """The default ranking of every document (no usage prior): BM25F of body and metadata,
    plus for short requests character n-grams and static vectors (or the embedding models when
    installed; MiniLM reads a long task passage by passage, WordLlama one of up to
    :data:`WORDLLAMA_MAX_WORDS` words), plus the squared name coverage, weighted by
    :data:`WEIGHTS` (a long task without MiniLM: :data:`LONG_WEIGHTS`); then, with ``reorder``,
    the best skills reordered by :func:`skillshelf.select.rerank.reordered` (its ``rerank`` term
    what that moved); last, a request that is only a skill's name puts that skill first
    (:func:`skillshelf.select.named.named_first`, its ``named`` term)."""
    import numpy as np

    models = semantic.models if semantic is not None else ()
    short = is_short(query)
    # MiniLM reads a long task passage by passage; without it WordLlama reads one that is short enough
    long_task = not short and "minilm" not in models
    w = LONG_WEIGHTS.get(models, LONG_WEIGHTS[()]) if long_task else WEIGHTS.get(models, WEIGHTS[()])
    weights = query_weights(query)
    meta, body = index.meta.weighted(weights), index.content.weighted(weights)
    total = bm25f_scores(index, query, weights=weights, raw=(meta, body))
    terms: dict[str, Any] = {"bm25f": total}
    if short and w.ngram:
        terms["ngram"] = normalised(ngram_scores(index, query)) * np.float32(w.ngram)
    minilm = words = None
    if semantic is not None and semantic.encoder is not None:
        minilm = semantic.scores(index, query)
    if minilm is not None and w.minilm:
        terms["minilm"] = normalised(centred(minilm, quantile=SEM_QUANTILE)) * np.float32(w.minilm)
    read_whole = short or (long_task and len(query.split()) <= WORDLLAMA_MAX_WORDS)
    if semantic is not None and semantic.words is not None and read_whole:
        words = semantic.word_scores(index, query)
    if words is not None and w.words:
        terms["wordllama"] = normalised(centred(words, quantile=SEM_QUANTILE)) * np.float32(w.words)
    # the static vectors stand in for WordLlama when its files are missing, never beside it
    cosines = static_scores(index, query) if short and w.static else None
    if cosines is not None and w.static:
        terms["static"] = np.float32(w.static) * _static_part(cosines)
    coverage = name_coverage(index, query, weights=weights)
    terms["name"] = np.float32(w.name) * coverage * coverage
    fused = [terms[name] for name in ("ngram", "minilm", "wordllama") if name in terms]
    if fused:
        total = total + sum(fused[1:], start=fused[0])
    if "static" in terms:
        total = total + terms["static"]
    total = (total + terms["name"]).astype(np.float32)
    parts = DefaultScores(
        total=total,
        meta=meta,
        body=body,
        static=cosines,
        minilm=minilm,
        words=words,
        terms=terms,
        weights=weights,
    )
    ranked = reordered(index, parts, weights, short, models) if reorder else total
    if ranked is not total:
        terms["rerank"] = ranked - total  # explained as a part of its own: the parts still add up
    first = named_first(index, query, ranked)
    if first is not ranked:
        terms["named"] = first - ranked
    return parts if first is total else replace(parts, total=first)


def default_scores(index: SkillIndex, query: str, semantic: SemanticIndex | None = None) -> Any:
    """:func:`default_parts`' total."""
    return default_parts(index, query, semantic).total


def _default(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
    import numpy as np

    total = default_scores(index, query, extras.semantic)
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
