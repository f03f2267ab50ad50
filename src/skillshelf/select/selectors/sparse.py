"""skillshelf's own sparse selectors over the cached index (numpy scoring).

* ``bm25f``: BM25F over the body (headings, text) beside BM25F over the metadata (name, short
  description, description, path words), with stemming and identifier splitting (see
  :mod:`skillshelf.select.tokenize`).
* ``ngram``: character 3-5 grams of the name and descriptions (typos, compound words such as
  ``spreadsheet`` vs ``spread sheet``), idf x field weight, at least 3 shared grams.
* ``multi``: a long task split into clauses (Codex's rules), BM25F per clause, fused by
  reciprocal rank with the whole-task ranking counted twice.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any

from skillshelf.select.fusion import normalised
from skillshelf.select.index import SkillIndex
from skillshelf.select.selectors.codex import split_views
from skillshelf.select.tokenize import STOP_WORDS, WORD_TERMS, char_grams, terms, words

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Scores = npt.NDArray[np.float32]
else:
    Scores = Any

__all__ = [
    "SHORT_QUERY_WORDS",
    "bm25f",
    "bm25f_scores",
    "is_short",
    "multi",
    "name_coverage",
    "ngram",
    "ngram_scores",
    "query_weights",
    "top_hits",
]

Hit = tuple[int, float]
MAX_QUERY_CHARS = 16 * 1024
MAX_QUERY_GRAMS = 512
SHORT_QUERY_WORDS = 40


def query_weights(query: str) -> dict[str, float]:
    """Analysed query terms weighted ``1 + ln(count)`` (repetition in a long task is evidence).

    Terms inside code (fenced blocks, backticks) count as much as the prose around them: weighted
    at 0, 0.25, 0.5 or 0.75 of a count, they lowered or kept the tuning data's MRR@10 (skill-requests
    dev 0.866 -> 0.866 to 0.867, authored requests 0.777 -> 0.765 to 0.777). A pasted error names
    the tool it came from.

    A CJK character pair keeps its idf over the whole library, though in a mostly English one
    every pair is rare, so common ones (``一下``, ``分析``, ``代码``) weigh like rare words and a
    long Chinese skill matches most Chinese requests. Tried and left out: each CJK term's weight
    times ``idf(N_cjk + M, df) / idf(N, df)``, its idf among the skills that hold CJK text
    (N_cjk; M = 0, 5 or 20 of shrinkage). Among the 798 corpus skills (25 with CJK terms; M = 0
    or 5), of the 7 CJK requests of the tuning data it took one right skill from second to
    first and a ``none`` request's confidence from 0.65 to 0.15, but left unrelated Chinese
    requests ("design a table schema", "is this code safe") on the long Chinese skill at 0.96.
    In small libraries (10, 40 or 150 English corpus skills and one or two Chinese ones, 6
    draws) it only traded one error for the other: the right Chinese skill suggested 79 of 90
    times -> 27 / 60 / 72, a Chinese skill suggested for an unrelated request 78 of 90 -> 20 /
    60 / 78. Among few Chinese skills, telling common Chinese words from rare ones takes the
    language's word frequencies (jieba's dictionary, MIT, has them; ``wordfreq`` is a 57 MB
    wheel), and matching a Chinese request to an English skill takes a model that reads both.

    The same holds for English words among a handful of skills: with few skills every word is
    rare, so a long body that says "every", "good" or "tell" matches requests that have nothing
    to do with it (the built-in skills are suggested for 8 to 10 % of the dev requests they do
    not serve, in libraries of 3, 10 and 30 skills). Tried and left out: below 50 skills (blended
    out by 200) a request word among the first R of MiniLM's WordPiece vocabulary, which is
    ordered by frequency, weighted by ``floor`` (R 3,000, 5,000 or 8,000; floor 0, 0.25 or 0.5;
    the dev split alone, rule set beforehand: fewer built-in suggestions at every size, success@1
    and @3 down by at most 0.005, right skills held back up by at most 0.01). The built-in
    suggestions fell (to 0 to 8 %) at every setting, but so did success@1 at 10 or 30 skills
    (0.986 / 0.980 to 0.980 / 0.973 at best), and the right skills held back rose from 0.020 to
    0.054 or more at 10 skills: the same common words are what many requests and their right
    skills share."""
    counts = Counter(terms(query[:MAX_QUERY_CHARS]))
    return {t: 1.0 + math.log(n) for t, n in counts.items()}


W_META = 0.3
"""Weight of the metadata BM25F beside the body's (1.0), both max-normalised per query. Chosen
by 5-fold cross-validation on the skill-requests dev split with the MetaTool dev half
(``bench/selection.py``); 0.2-0.5 in every fold. Full-text BM25 (name + description + body)
beat the earlier metadata-first scoring, whose body could only confirm a metadata match:
success@5 on skill-requests dev 0.824 -> 0.939 with the body as a peer."""

META_AS_BODY = 0.5
"""A metadata score in body units: the body part is divided by the larger of its best score
and this share of the best metadata score. One occurrence of a term scores about 1.5 to 2 times
as much in the metadata fields (name weight 6, description 2.5) as in the body (weight 1), so
half of it is what the same match would be worth as body text.

Among a handful of skills the best body match may be one word of a request in an unrelated
skill (``writing-skills`` mentions "deploy" once), while the skill the request describes
matches only in its description; divided by its own best score that word was a full point,
over three times the description's. Among hundreds of skills a body that does not reach half
the best metadata score is rare, so the floor seldom acts there. Chosen on the skill-requests
**dev** split and the MetaTool dev half: every value from 0.3 to 0.7 leaves the full-library
dev figures as they were (every combination of models; MetaTool has no bodies), and so it
does on small libraries made from the dev requests (each ranked against its right skill,
random other corpus skills and the built-in skills; 3 to 100 skills, three draws) for
success@1 and @3 and the ``none`` requests left quiet, while a built-in skill ranks first for
slightly fewer ``none`` requests (base install 22.6 -> 22.1 %). Dividing both parts by a share
of the query's idf mass instead (about what a skill holding every query term once scores; 0.2
to 1.0 of it) raised MetaTool dev success@1 (by up to 3.5 points with MiniLM) but lowered
success@1 on the full skill-requests dev split with the base install by one or two requests at
every setting tried; floors under the WordLlama and MiniLM parts (an absolute cosine margin of
0.1 to 0.3) moved the small-library figures only within noise, both ways."""


def bm25f_scores(
    index: SkillIndex,
    query: str,
    *,
    weights: dict[str, float] | None = None,
    raw: tuple[Scores, Scores] | None = None,
) -> Scores:
    """BM25F over the body (headings and text) plus :data:`W_META` times BM25F over the
    metadata fields (name, short description, description, path words), each divided by its
    best score for this query; the body part by at least :data:`META_AS_BODY` times the best
    metadata score (a body match weaker than the best metadata match is no full point).

    A skill with no body text (a tool record, a skill whose ``SKILL.md`` is only frontmatter
    or could not be read) is neutral: its body part is its metadata part, so it is not ranked
    down for evidence that does not exist. ``raw``: the two BM25F score vectors (metadata,
    body) when the caller has them already."""
    import numpy as np

    if raw is None:
        q = weights if weights is not None else query_weights(query)
        raw = (index.meta.weighted(q), index.content.weighted(q))
    meta = normalised(raw[0])
    content = normalised(raw[1], floor=META_AS_BODY * float(raw[0].max(initial=0.0)))
    has_body = index.memo("has_body", lambda: index.content.lengths.sum(axis=1) > 0)
    out: Scores = (np.where(has_body, content, meta) + np.float32(W_META) * meta).astype(np.float32)
    return out


def name_coverage(index: SkillIndex, query: str, *, weights: dict[str, float] | None = None) -> Scores:
    """Per skill: the idf-weighted share of its name's terms that occur in the query."""
    q = weights if weights is not None else query_weights(query)
    return index.meta.field_coverage(q, 0)


def is_short(query: str) -> bool:
    """A request rather than a task specification (at most :data:`SHORT_QUERY_WORDS` words)."""
    return len(query.split()) <= SHORT_QUERY_WORDS


def ngram_scores(index: SkillIndex, query: str) -> Scores:
    """Character n-gram score of every document (0 below the 3-shared-grams floor).

    In a long task only the words no skill has as a term give n-grams: those are the typos
    n-grams are for, and a task of hundreds of words would otherwise touch millions of gram
    rows at 100,000 skills (the default ranking leaves n-grams out of long tasks altogether).
    A short request keeps every word's n-grams: a known word still meets skill names written
    as one compound (``airquality``), which costs MetaTool 0.007 recall@5 without."""
    import numpy as np

    only_unknown = not is_short(query)
    known = index.meta.doc_freq  # live documents only: an incremental index ranks as a fresh one
    grams: dict[str, float] = {}
    for w in words(query[:MAX_QUERY_CHARS]):
        if len(w) < 2 or w in STOP_WORDS:
            continue
        if only_unknown and all(known(t) > 0 for t in WORD_TERMS[w]):
            continue
        for g in char_grams(w):
            grams.setdefault(g, 1.0)
        if len(grams) >= MAX_QUERY_GRAMS:
            break
    if not grams:
        return np.zeros(len(index), np.float32)
    scores, matched = index.grams.score(grams)
    need = min(3, len(grams))
    return np.where(matched >= need, scores, np.float32(0)).astype(np.float32)


def top_hits(index: SkillIndex, scores: Scores, limit: int) -> list[Hit]:
    """The ``limit`` best documents with a positive score, ties by name then path."""
    import numpy as np

    if limit <= 0 or len(scores) == 0:
        return []
    floor = scores[np.argpartition(-scores, limit - 1)[:limit]].min() if len(scores) > limit else 0
    # the limit-th best is positive: every entry at least that good competes (ties at the
    # boundary too); else fewer than ``limit`` are positive and each of them competes
    positive = np.nonzero(scores >= floor if floor > 0 else scores > 0)[0]
    if len(positive) == 0:
        return []
    docs = index.docs
    ordered = sorted(positive.tolist(), key=lambda i: (-float(scores[i]), docs[i].name, docs[i].key))
    return [(i, float(scores[i])) for i in ordered[:limit]]


def bm25f(index: SkillIndex, query: str, limit: int) -> list[Hit]:
    """BM25F over every field, body included."""
    return top_hits(index, bm25f_scores(index, query), limit)


def ngram(index: SkillIndex, query: str, limit: int) -> list[Hit]:
    """Character n-grams of the name and descriptions."""
    return top_hits(index, ngram_scores(index, query), limit)


def multi(index: SkillIndex, query: str, limit: int, *, k: int = 60) -> list[Hit]:
    """Clause-wise BM25F fused by reciprocal rank (whole query counted twice)."""
    views = split_views(query[:MAX_QUERY_CHARS])
    if len(views) <= 1:
        return bm25f(index, query, limit)
    depth = max(limit, 50)
    fused: dict[int, float] = {}
    for vi, view in enumerate(views):
        weight = 2.0 if vi == 0 else 1.0
        for rank, (doc, _) in enumerate(bm25f(index, view, depth), start=1):
            fused[doc] = fused.get(doc, 0.0) + weight / (k + rank)
    docs = index.docs
    ordered = sorted(fused.items(), key=lambda kv: (-kv[1], docs[kv[0]].name, docs[kv[0]].key))
    return ordered[:limit]
