"""How sure the default ranking is that a skill fits: a calibrated probability per query.

The default scores are normalised per query (the best skill always scores about 1), so they
say which skill fits best, never whether any does. :func:`query_confidence` reads absolute
evidence about the best-ranked skill instead, and a logistic model turns it into the
probability that a right skill is among the first five:

* ``body``, ``meta``: the best skill's raw BM25F scores over its body and its metadata,
  divided by the query's idf mass (what a skill holding every query term would reach,
  :func:`idf_mass`); the body counts at least as much as the metadata (a short or missing
  body is no evidence against a skill);
* ``static``: the static-vector cosine of the query and the best skill (short requests only;
  without WordLlama, whose cosine ``words`` takes its place);
* ``second``, ``fifth``, ``tenth``: the scores of the skills at those ranks over the best one
  (a flat head means nothing stands out);
* ``mass``: ``ln(1 + idf mass / the idf of an unknown word)``, how much the request says, in
  units that do not grow with the number of skills (counting only the words some skill has
  was tried: 69 % instead of 85 % of dev ``none`` requests held back);
* with the extras, ``words`` (WordLlama, short requests) and ``minilm``: the best skill's cosines.

The coefficients (:data:`MODELS`, one set per combination of installed models) were fitted by
``bench/fit_selection.py`` on the skill-requests **dev** split (label 1: a request whose top
five hold a right skill; label 0: a ``none`` request, which no skill serves; requests whose
top five miss are left out) together with 300 MetaTool dev-half queries as label 1 (short
requests that do have a tool), L2 penalty 1. :data:`DEFAULT_MIN_CONFIDENCE` is the largest
threshold at which at most 3 % of those dev requests with a right skill in their top five
fall below it. Nothing here was fitted on the test split, the MetaTool held-out half or
SkillsBench.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from skillshelf.select.postings import bm25_idf

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.selectors import DefaultScores

__all__ = [
    "DEFAULT_MIN_CONFIDENCE",
    "FEATURES",
    "MIN_COMPETING",
    "MODELS",
    "Calibration",
    "evidence",
    "idf_mass",
    "query_confidence",
]

BASE_FEATURES = ("body", "meta", "static", "second", "fifth", "tenth", "mass")
_LEXICAL = ("body", "meta", "second", "fifth", "tenth", "mass")
FEATURES: Mapping[tuple[str, ...], tuple[str, ...]] = MappingProxyType(
    {
        (): BASE_FEATURES,
        ("wordllama",): (*_LEXICAL, "words"),
        ("minilm", "wordllama"): (*_LEXICAL, "words", "minilm"),
    }
)
"""The evidence each calibration reads, per installed models (MiniLM without WordLlama, a
partial install, falls back to the base calibration)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """A logistic model: ``1 / (1 + exp(-(intercept + sum(coef * feature))))``."""

    coefficients: tuple[float, ...]
    intercept: float

    def probability(self, features: tuple[float, ...]) -> float:
        z = self.intercept + sum(c * f for c, f in zip(self.coefficients, features, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


MODELS: Mapping[tuple[str, ...], Calibration] = MappingProxyType(
    {
        (): Calibration(coefficients=(0.464, 1.446, 0.469, -0.916, -1.257, -1.854, 1.776), intercept=0.771),
        ("wordllama",): Calibration(
            coefficients=(0.639, 1.309, -0.567, -1.348, -1.892, 1.594, 0.895), intercept=0.938
        ),
        ("minilm", "wordllama"): Calibration(
            coefficients=(0.587, 1.148, -0.660, -1.412, -1.673, 1.764, 0.682, 0.664), intercept=0.557
        ),
    }
)
"""Fitted coefficients per installed models (see the module docstring)."""

DEFAULT_MIN_CONFIDENCE = 0.88
"""Below this probability nothing is suggested (``[select] min_confidence``, in percent). The
fitted thresholds were 0.883 (base install: WordLlama), 0.888 (+ MiniLM) and 0.880 (no
model: the static vectors); 5-fold cross-validation on the dev data: 77 % / 62 % / 85 % of
``none`` requests get no suggestion while 3.5 % / 3.3 % / 3.0 % of the requests with a right
skill in the top five are held back. Most dev requests have a right skill, so the probabilities run high."""


MIN_COMPETING = 50
"""Below this many skills the rank-ratio features say nothing (a handful of skills always looks
like a clear head) and take :data:`TYPICAL_HEAD` instead."""
TYPICAL_HEAD = MappingProxyType({1: 0.74, 4: 0.56, 9: 0.47})
"""The dev split's mean ``second``, ``fifth`` and ``tenth`` (skill-requests, 798 skills)."""


def idf_mass(index: SkillIndex, weights: Mapping[str, float]) -> float:
    """``sum(query weight x idf)`` over the analysed query terms, each term's idf taken from the
    field group where it is most common. A word no skill has counts with the highest idf: a
    request about something the library does not know scores a smaller share of it."""
    n = len(index)
    total = 0.0
    for term, qw in weights.items():
        df = max(_df(index.meta, term), _df(index.content, term))
        total += qw * bm25_idf(n, df)
    return total


def _df(postings: Any, term: str) -> int:
    return int(postings.doc_freq(term)) if term in postings.vocab else 0


def evidence(
    index: SkillIndex, scores: DefaultScores, weights: Mapping[str, float], models: tuple[str, ...]
) -> tuple[float, ...] | None:
    """The features :data:`FEATURES` names for ``models``, or None when no skill scores."""
    import numpy as np

    total = scores.total
    if len(total) == 0 or float(total.max()) <= 0:
        return None
    head = min(10, len(total))
    top = np.argpartition(-total, head - 1)[:head]
    ordered = sorted(top.tolist(), key=lambda i: -float(total[i]))
    best = ordered[0]
    peak = float(total[best])
    mass = idf_mass(index, weights)
    meta = float(scores.meta[best]) / mass if mass > 0 else 0.0
    has_body = float(index.content.lengths[best].sum()) > 0
    body = max(float(scores.body[best]) / mass, meta) if mass > 0 and has_body else meta

    def at(rank: int) -> float:
        if len(index) < MIN_COMPETING:
            return TYPICAL_HEAD[rank]
        return float(total[ordered[rank]]) / peak if rank < len(ordered) else 0.0

    found = {
        "body": body,
        "meta": meta,
        "static": _at(scores.static, best),
        "second": at(1),
        "fifth": at(4),
        "tenth": at(9),
        "mass": math.log1p(mass / bm25_idf(len(index), 0)),
        "words": _at(scores.words, best),
        "minilm": _at(scores.minilm, best),
    }
    return tuple(found[name] for name in FEATURES.get(models, BASE_FEATURES))


def _at(vector: Any, i: int) -> float:
    return 0.0 if vector is None else float(vector[i])


def query_confidence(
    index: SkillIndex, scores: DefaultScores, weights: Mapping[str, float], models: tuple[str, ...]
) -> float:
    """The probability that a right skill is among the first five (0 when nothing scores)."""
    features = evidence(index, scores, weights, models)
    if features is None:
        return 0.0
    return MODELS.get(models, MODELS[()]).probability(features)
