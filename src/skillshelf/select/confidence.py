"""How sure the default ranking is that a skill fits: a calibrated probability per query.

The default scores are normalised per query (the best skill always scores about 1), so they
say which skill fits best, never whether any does. :func:`query_confidence` reads absolute
evidence about the best-ranked skill instead, and a logistic model turns it into the
probability that a right skill is among the first five:

* ``body``, ``meta``: the best skill's raw BM25F scores over its body and its metadata,
  divided by the query's idf mass (what a skill holding every query term would reach,
  :func:`idf_mass`; a word no skill has counts in full); the body counts at least as much as
  the metadata (a short or missing body is no evidence against a skill);
* ``static``: the static-vector cosine of the query and the best skill (short requests only;
  without WordLlama, whose cosine ``words`` takes its place);
* ``second``, ``fifth``, ``tenth``: the scores of the skills at those ranks over the best one
  (a flat head means nothing stands out; copies of one skill,
  :func:`~skillshelf.select.docs.copy_key`, count once);
* ``mass``: how much the request says that the library can read, ``ln(1 + m)``, where ``m``
  counts each word some skill has as its idf over the idf of a word only one skill has (about
  1 for a specific word, near 0 for a word most skills have, whatever the number of skills),
  and each word no skill has as ``1 - reach``: the library's reach is the share of skills with
  a body, scaled down below :data:`FULL_REACH_SKILLS` skills. Among many skills with
  instructions a word none of them has marks a topic the library does not cover (a request in
  another language, a tool no skill mentions), where it used to raise the confidence more than
  a known word (a Spanish ``none`` request of the dev split: 0.99); among one-line tool
  descriptions, or a handful of skills, most words of a request are missing from every skill
  and still say what is asked, so they count (in full for the MetaTool queries);
* ``unknown``: the share of the request's idf mass on words no skill has, times the library's
  reach (0 below :data:`MIN_COMPETING` skills). A request about something the library does not
  cover names it in words none of its skills uses (a board, a language, a tool: "KiCad",
  "pcbnew"), while a request the library serves mostly speaks its words. Among one-line tool
  descriptions (reach 0) and a handful of skills a missing word says little, so it counts
  nothing there;
* ``words`` (WordLlama: a request, or without MiniLM a task of up to 60 words) and, with the
  extras, ``minilm``: the best skill's cosines.

Beside one pass over the scores for the ten best skills, the features read only those skills
and the query's own terms (the share of skills with a body is counted once per index).

Among fewer than :data:`MIN_COMPETING` skills :data:`FEW_MODELS` take over (see there). The
coefficients (:data:`MODELS`, one set per combination of installed models) were fitted by
``bench/fit_selection.py`` on tuning data only: the skill-requests **dev** split and the
requests written for this project (``bench/data/authored-requests.jsonl``: 180 with a right
skill, 116 ``none``), label 1 for a request whose top five hold a right skill, label 0 for a
``none`` request (requests whose top five miss are left out), together with 300 MetaTool
dev-half queries as label 1 (short requests that do have a tool), L2 penalty 1, no sample
weights. The features, the threshold rule and the training data were chosen by 5-fold
cross-validation (10 repeats) on the same data, judged by the share of ``none`` requests with no
suggestion and the share of requests with a right skill in the top five whose suggestions lose
it. Fitted on the 13 ``none`` requests of the dev split alone, all short questions, the model
read a long request as a confident one (``mass`` had the largest weight), and 15 of the 16
detailed ``none`` requests written later (30 to 60 words: "write a pcbnew Python script that
places footprints D1-D16 on a circle") got a suggestion. ``unknown`` was added for them:
cross-validated on all that data (with request weights tried on the way, not the final ones),
base install, ``none`` requests with no suggestion 63 -> 65 % of the dev ones and 54 -> 68 % of
the authored ones, right skills held back 2.4 -> 2.7 % and 3.9 -> 4.2 %, MetaTool 2.3 -> 0.7 %;
+ MiniLM 59 -> 62 % and 52 -> 70 %, held back 3.4 -> 2.7 % and 2.8 -> 4.3 %.
Tried on the dev split alone and left out, for not improving both: counting only the words some
skill has in every library (MetaTool's short queries over 199 one-line tools then look like
``none`` requests), beside ``mass`` the share of the request's idf mass some skill has, the
idf-weighted share of the request's words that the best skill contains, and the WordLlama-cosine
margin between the best skill and the next, and more label-0 rows made by ranking each dev
request with its right skills left out (its best remaining skill is mostly wrong; about 1 in 6
also fits, by hand count of 30). On all the data (a simpler cross-validation, without
MetaTool), neither the idf-weighted share of the request that the best skill holds nor the
request's length in words, each beside ``unknown``, moved a figure by more than three points,
and they moved them both ways. Nothing here was fitted on the test split, the
MetaTool held-out half or SkillsBench. The fitted values are those of the features as they are
now, with copies of one skill counted once in the head (45 of the 357 tuning requests have a
copy among their ten best skills; refitting for it moved the MiniLM threshold from 0.416 to
0.433 and no cross-validated figure by more than two points).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from skillshelf.select.docs import copy_key
from skillshelf.select.postings import bm25_idf

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.selectors import DefaultScores

__all__ = [
    "DEFAULT_MIN_CONFIDENCE",
    "FEATURES",
    "FEW_MODELS",
    "MIN_COMPETING",
    "MODELS",
    "Calibration",
    "calibration",
    "evidence",
    "idf_mass",
    "query_confidence",
]

BASE_FEATURES = ("body", "meta", "static", "second", "fifth", "tenth", "mass", "unknown")
_LEXICAL = ("body", "meta", "second", "fifth", "tenth", "mass", "unknown")
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
        (): Calibration(
            coefficients=(1.220, 2.518, -0.088, -0.583, -2.172, -3.322, 0.933, -5.119), intercept=4.231
        ),
        ("wordllama",): Calibration(
            coefficients=(1.303, 1.170, -1.041, -1.780, -3.270, 0.896, -4.973, 2.702), intercept=3.880
        ),
        ("minilm", "wordllama"): Calibration(
            coefficients=(1.403, 1.040, -0.430, -2.123, -3.683, 0.937, -4.648, 0.737, 2.815), intercept=3.621
        ),
    }
)
"""Fitted coefficients per installed models (see the module docstring); each intercept is shifted
so that its fitted threshold falls at :data:`DEFAULT_MIN_CONFIDENCE`."""

FEW_MODELS: Mapping[tuple[str, ...], Calibration] = MappingProxyType(
    {
        (): Calibration(
            coefficients=(2.741, 3.991, 1.162, -0.570, -2.115, -3.417, 3.121, -5.268), intercept=-2.964
        ),
        ("wordllama",): Calibration(
            coefficients=(2.203, 2.528, -1.212, -1.668, -3.361, 2.730, -5.261, 4.823), intercept=-2.167
        ),
        ("minilm", "wordllama"): Calibration(
            coefficients=(2.524, 1.743, -0.599, -2.259, -3.850, 2.654, -4.754, 2.501, 4.717), intercept=-2.333
        ),
    }
)
"""The models for a library of fewer than :data:`MIN_COMPETING` skills. With the model fitted on
full libraries alone, a handful of skills beside the built-in ones looked sure of nearly
anything: a request full of words no skill has ("Write an Arduino program that reads a
temperature sensor") has a high ``mass`` there, and the built-in skills' long bodies share its
common words ("write", "read"), so half the dev ``none`` requests among five skills had a
built-in skill suggested.
``bench/fit_selection.py`` fits these on the same data as :data:`MODELS` plus the dev split's
requests ranked in small libraries (each against its right skill, random other corpus skills and
the built-in skills, 5 to 42 skills in all, three draws; not the authored requests, see
``SMALL_FROM`` there), each of those rows weighted 0.5. The threshold is the largest at which at
most 2 % of the small libraries' requests with a right skill in the top five fall below it
(``MAX_LOST_FEW`` there: with the 3 % of :data:`DEFAULT_MIN_CONFIDENCE`, the suggestions lost
5.3 to 5.9 % of the right skills at 22 skills, cross-validated, whatever the models). The
weight was chosen among 0.03 to 1 on the dev split, before the authored requests joined, by that
script's cross-validation (over whole requests): the largest at which, with every combination of
models, the right skills held back at each library size stay less than a point above the
full-library models'. ``unknown`` is 0
here: a handful of skills knows too few words for one they lack to mark a topic they miss
(counted in part, by the library's reach, it held back more right skills for as many quiet
``none`` requests). Cross-validated at 5 / 7 / 12 / 22 / 42 skills, ``none`` requests with no
suggestion and right skills held back: base install 92 / 93 / 92 / 92 / 91 % and 1.2 / 3.0 /
3.4 / 4.4 / 2.1 %; + MiniLM 98 / 95 / 92 / 90 / 87 % and 0.9 / 2.0 / 3.4 / 3.9 / 3.3 %; no model
89 / 89 / 89 / 88 / 87 % and 0.5 / 2.3 / 3.5 / 4.1 / 2.7 % (when ``MAX_LOST_FEW`` was chosen, with
3 %, base install: 91 / 92 / 92 / 89 / 86 % and 2.1 / 3.8 / 4.8 / 5.5 / 3.4 %).
Tried and left out: ``body`` and ``meta`` over the idf mass of the words some skill has, not of
every word, below :data:`MIN_COMPETING` skills. A pack of generic skills (obra's superpowers,
with or without Anthropic's) meets requests full of words none of its skills has: "fix the
failing login test" gets 0.69 to 0.73 there and no suggestion. Refitted and cross-validated as
above (base install), ``none`` requests with no suggestion went 92 / 93 / 92 / 92 / 91 % -> 72 /
82 / 93 / 94 / 97 % and right skills held back 1.2 / 3.0 / 3.4 / 4.4 / 2.1 % -> 0.5 / 1.1 / 3.7
/ 4.7 / 3.1 %; in those packs the dev requests a pack skill serves got it suggested more often
(77 -> 92 % with superpowers alone) and the requests no pack skill serves got a suggestion more
often too (27 -> 50 %).
Libraries of :data:`MIN_COMPETING` skills or more (every full-library figure) keep
:data:`MODELS`: refitting those with the small-library rows (weight 0.07) held back more
MetaTool queries (dev half, 10,351 queries, as ``bench/selection.py`` counts them: 8.1 ->
8.7 %). A model fitted on the small-library rows alone left fewer ``none`` requests quiet than
:data:`MODELS` at the same share of right skills held back.
Between :data:`MIN_COMPETING` skills and a few hundred, :data:`MODELS` holds back more right
skills than among every corpus skill: the dev split and the authored requests ranked in
libraries of 62 / 102 / 202 / 402 skills (``selection_small.Libraries.draws``, one draw), base
install, in sample, 2.8 to 6.2 % of the dev requests' right skills and 4.4 to 8.6 % of the
authored ones' (+ MiniLM 2.7 to 4.9 % and 1.8 to 7.3 %), with 74 to 94 % of the ``none``
requests quiet (+ MiniLM 65 to 94 %). Tried there and left out, as each trades one aim for the
other: a threshold of their own where 3 % fall below it (cross-validated, base install: 2.1 to
5.7 % held back, but 51 to 88 % quiet), models refitted with those rows weighted 0.5 to 4, and
the library size as a feature crossed with ``unknown`` and the head features."""

DEFAULT_MIN_CONFIDENCE = 0.88
"""Below this probability nothing is suggested (``[select] min_confidence``, in percent). Each
model's threshold is the largest at which at most 3 % of the tuning skill requests with a
right skill in the top five (dev split and authored) and at most 3 % of the MetaTool dev
queries with a right tool in the top five fall below it (0.530 for the base install: WordLlama,
0.498 with MiniLM, 0.518 with no model: the static vectors; one default serves all three by
shifting each intercept, by +1.874 / +1.998 / +1.919). Cross-validated (5 folds x 10), base /
+ MiniLM / no model: 69 / 69 / 85 % of the dev ``none`` requests and 76 / 74 / 77 % of the
authored ones get no suggestion, while the suggestions lose the right skill of 2.9 / 3.0 / 3.2 %
of the dev requests with one in the top five and 3.7 / 3.9 / 3.5 % of the authored ones, and
0.9 / 0.0 / 0.3 % of MetaTool queries are held back (``bench/fit_selection.py`` on the features
as they are now, the index reading a skill's bundled markdown)."""


MIN_COMPETING = 50
"""Below this many skills the rank-ratio features say nothing (a handful of skills always looks
like a clear head) and take :data:`TYPICAL_HEAD` instead."""
TYPICAL_HEAD = MappingProxyType({1: 0.74, 4: 0.56, 9: 0.47})
"""The dev split's mean ``second``, ``fifth`` and ``tenth`` (skill-requests, 798 skills)."""
FULL_REACH_SKILLS = 20
"""From this many skills with a body up, a word none of them has counts for nothing in ``mass``
(below, in part: :func:`_reach`). Chosen on smaller libraries made from the skill-requests dev
split (each dev request ranked against its right skills plus random other corpus skills, 2 to
250 skills in all; base install and + MiniLM): the most ``none`` requests quiet while at most
3 % of the requests with a right skill in the top five lost it, at every size and with either
model (15 lost 3.4 % with the base install at 15 skills). With 20, base / + MiniLM: 31 / 23 %
of ``none`` requests are quiet at 2 skills, 46 / 46 % at 5, 85 / 69 % at 10, 77 / 92 % at 20,
85 / 62 % at 30 and 77 / 62 % at 60, while at most 2.7 / 2.0 % of right skills are lost (the
previous model: 0 to 15 % quiet up to 60 skills, no right skill lost)."""


def idf_mass(index: SkillIndex, weights: Mapping[str, float]) -> tuple[float, float]:
    """``(all, known)``: ``sum(query weight x idf)`` over the analysed query terms, each term's
    idf taken from the field group where it is most common, and the same sum over the terms
    some skill has. A word no skill has counts with the highest idf in ``all``: a request about
    something the library does not know scores a smaller share of it."""
    n = len(index)
    meta, content = index.meta, index.content
    unknown_idf = bm25_idf(n, 0)
    total = known = 0.0
    for term, qw in weights.items():
        df = max(_df(meta, term), _df(content, term))
        if df:
            part = qw * bm25_idf(n, df)
            total += part
            known += part
        else:
            total += qw * unknown_idf
    return total, known


def _df(postings: Any, term: str) -> int:
    tid = postings.vocab.get(term)
    return 0 if tid is None else int(postings.df[tid])


def _reach(index: SkillIndex) -> float:
    """How far a word no skill has marks a topic the library does not cover, 0 to 1: the share
    of skills with body text (1 for ``SKILL.md`` files with instructions, 0 for one-line tool
    descriptions) times ``ln(skills) / ln(FULL_REACH_SKILLS)`` up to 1 (a handful of skills
    knows few words, however long their bodies)."""
    n = len(index)
    if n <= 1:
        return 0.0
    bodies = float(index.memo("body_share", lambda: (index.content.lengths.sum(axis=1) > 0).mean()))
    return bodies * min(1.0, math.log(n) / math.log(FULL_REACH_SKILLS))


def _masses(index: SkillIndex, weights: Mapping[str, float]) -> tuple[float, float, float]:
    """``(idf mass, mass, unknown)``: the query's idf mass (:func:`idf_mass`, every word) and
    the ``mass`` and ``unknown`` features (see the module docstring)."""
    total, known = idf_mass(index, weights)
    if total <= 0:
        return 0.0, 0.0, 0.0
    n = len(index)
    reach = _reach(index)
    unknown_words = (total - known) / bm25_idf(n, 0)
    said = math.log1p(known / bm25_idf(n, 1) + (1.0 - reach) * unknown_words)
    # a handful of skills knows too few words for one they lack to mark a topic they miss
    unknown = reach * (total - known) / total if n >= MIN_COMPETING else 0.0
    return total, said, unknown


def evidence(
    index: SkillIndex, scores: DefaultScores, weights: Mapping[str, float], models: tuple[str, ...]
) -> tuple[float, ...] | None:
    """The features :data:`FEATURES` names for ``models``, or None when no skill scores."""

    total = scores.total
    if len(total) == 0 or float(total.max()) <= 0:
        return None
    ordered = _head(index, total)
    best = ordered[0]
    peak = float(total[best])
    mass, said, unknown = _masses(index, weights)
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
        "mass": said,
        "unknown": unknown,
        "words": _at(scores.words, best),
        "minilm": _at(scores.minilm, best),
    }
    return tuple(found[name] for name in FEATURES.get(models, BASE_FEATURES))


def _head(index: SkillIndex, total: Any) -> list[int]:
    """The ten best entries, best first, one of each set of copies of a skill (a skill installed
    in three folders is one skill, not a flat head)."""
    import numpy as np

    depth = index.copy_depth()
    head = min(10 * (1 + depth), len(total))
    top = np.argpartition(-total, head - 1)[:head]
    ordered = sorted(top.tolist(), key=lambda i: -float(total[i]))
    if not depth:
        return ordered
    docs = index.docs
    distinct: dict[tuple[str, str], int] = {}
    for i in ordered:
        distinct.setdefault(copy_key(docs[i].name, docs[i].description), i)
    return list(distinct.values())[:10]


def _at(vector: Any, i: int) -> float:
    return 0.0 if vector is None else float(vector[i])


def query_confidence(
    index: SkillIndex, scores: DefaultScores, weights: Mapping[str, float], models: tuple[str, ...]
) -> float:
    """The probability that a right skill is among the first five (0 when nothing scores)."""
    features = evidence(index, scores, weights, models)
    if features is None:
        return 0.0
    return calibration(len(index), models).probability(features)


def calibration(skills: int, models: tuple[str, ...]) -> Calibration:
    """The model for a library of ``skills`` skills ranked with ``models`` installed."""
    table = FEW_MODELS if skills < MIN_COMPETING else MODELS
    return table.get(models, table[()])
