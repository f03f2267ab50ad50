"""A learned reorder of the default ranking's best :data:`DEPTH` skills (with MiniLM).

The fused score ranks every skill with a few weights; among its best :data:`DEPTH` that score
anything, a linear model over richer evidence (:data:`MINILM_FEATURES`: each part's score, its
place and its gap to the best candidate's, the share of the request's idf mass that each field
holds, the lengths) puts them in a new order: ``offset`` times the fused score plus one
coefficient per feature, a second set for a skill file (:func:`skill_files`; a tool record, a
name and a description only, reads its evidence differently). The skills keep the scores of the
places they take (the best-scored place goes to the first of the new order), so the scale the
confidence model, the suggestion floor and the usage prior read stays as it was; the difference
is the ``rerank`` part of :func:`~skillshelf.select.explain.contributions`.

Fitted by ``bench/fit_rerank.py`` on tuning data only: the skill-requests **dev** split, the
requests of ``bench/data/authored-requests.jsonl`` and 1,500 MetaTool dev-half queries (id hash
even), each source weighing the same, by a listwise softmax loss. ``DEPTH`` (10, 20, 30), the
offset (0, 5, 10, 20), the L2 penalty (1, 10, 100; 1,000 for requests alone) and whether a second
set of coefficients helps were chosen by grouped 5-fold cross-validation (whole requests, 2
repeats) at the best mean MRR@10 of the three sources. The second set first went to skills with
a body, which put the few frontmatter-only skills with the tool records: their ``q_path``
coefficient was then fitted on two rows (tool records have no path) and sank a body-less skill
the request names. Set by the kind of record instead, the cross-validated mean MRR@10 is the
same (0.8040 either way, both computed on the same items), so the kind of record splits them.
With MiniLM (30, 10, 1, split), before -> after, success@1 / success@5 / MRR@10: dev split 0.818
/ 0.953 / 0.877 -> 0.834 / 0.963 / 0.887, authored 0.733 / 0.889 / 0.802 -> 0.769 / 0.903 /
0.829, MetaTool dev half 0.540 / 0.745 / 0.631 -> 0.606 / 0.817 / 0.696. On the held-out sets
(``bench/selection.py``, run once with these constants), + MiniLM success@5 / MRR@10:
skill-requests test split 0.912 / 0.799 -> 0.932 / 0.818, MetaTool held-out half 0.766 / 0.630
-> 0.827 / 0.699, SkillsBench 0.920 / 0.817 -> 0.931 / 0.852 (the split by body had given 0.932
/ 0.818, 0.826 / 0.700 and 0.943 / 0.868: one SkillsBench task fewer in the first five); the
threshold left 83 % of the test split's ``none`` requests quiet (as before)
and held back 4.4 % of the right skills (3.7 % before), so the confidence models stay as fitted.

The base install (WordLlama, :data:`FEATURES` without the MiniLM ones) keeps the fused order:
its reorder chosen the same way (30, offset 5, L2 10, split) raised the cross-validated mean
MRR@10 from 0.745 to 0.767 (authored 0.793 -> 0.802, MetaTool 0.571 -> 0.625) but lowered the
dev split's success@5 (0.953 -> 0.932), and held out, while MetaTool gained (success@5 0.687 ->
0.750, MRR@10 0.561 -> 0.619) and the test split held (0.898 / 0.815 -> 0.898 / 0.819),
SkillsBench's long task specifications lost their named skill's first place (success@1 0.678 ->
0.586, MRR@10 0.766 -> 0.715, under BM25F's 0.723).

The features are read for the candidates only: the request's terms' rows of the two postings
that fall on a candidate give the field shares, the rest are the fused ranking's own vectors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from skillshelf.select.postings import bm25_idf, row_ranges

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.postings import Postings

__all__ = [
    "DEPTH",
    "FEATURES",
    "MINILM_FEATURES",
    "MODELS",
    "Reorder",
    "candidate_features",
    "reordered",
    "skill_files",
]

DEPTH = 30
"""Candidates reordered: the best this many of the fused ranking that score anything."""
FEATURES = (
    "total",
    "rel_total",
    "log_rank",
    "lex",
    "meta_n",
    "body_n",
    "meta_m",
    "body_m",
    "words_raw",
    "words_gap",
    "words_lrank",
    "name",
    "q_name",
    "q_short",
    "q_desc",
    "q_path",
    "q_meta",
    "q_head",
    "q_body",
    "q_any",
    "log_blen",
    "log_mlen",
    "meta_lrank",
    "body_lrank",
    "short",
    "words_c",
    "name_any",
)
"""What the model reads of each candidate (``q_*``: the share of the request's idf mass found in
that field; ``*_lrank``: the log of the candidate's place by that part among the candidates)."""
MINILM_FEATURES = (*FEATURES, "minilm_raw", "minilm_gap", "minilm_lrank", "minilm_c")
"""With MiniLM: its cosine, its gap to the best candidate's, its place among the candidates and
its centred part of the fused score."""


def _field_shares(postings: Postings, tids: Any, idf: Any, slots: Any) -> tuple[Any, Any]:
    """Per candidate (``slots``: their postings slots), the share of the query's idf mass
    (``idf``: per term, summing to 1) found in each field and in any field, and per term x
    candidate whether it occurs at all."""
    import numpy as np

    k = len(slots)
    nf = postings.slot_lengths.shape[1]
    present = np.zeros((len(tids), k, nf), bool)
    order = np.argsort(slots, kind="stable")
    sorted_slots = slots[order]
    for seg in (postings.base, postings.delta):
        starts, ends = seg.indptr[tids], seg.indptr[tids + 1]
        lens = ends - starts
        if int(lens.sum()) == 0:
            continue
        rows = row_ranges(starts, ends)
        term = np.repeat(np.arange(len(tids)), lens)
        ids = seg.doc_ids[rows]
        at = np.minimum(np.searchsorted(sorted_slots, ids), k - 1)
        hit = sorted_slots[at] == ids
        if not hit.any():
            continue
        present[term[hit], order[at[hit]], :] |= seg.tf[rows[hit]] > 0
    shares = np.einsum("t,tkf->kf", idf, present)
    anywhere = present.any(axis=2)
    return np.column_stack([shares, idf @ anywhere]), anywhere


def _log_rank(values: Any) -> Any:
    import numpy as np

    out = np.empty(len(values))
    out[np.argsort(-values, kind="stable")] = np.arange(1, len(values) + 1)
    return np.log(out)


def candidate_features(
    index: SkillIndex, parts: Any, weights: Mapping[str, float], top: Any, short: bool
) -> Any:
    """The :data:`FEATURES` of the candidates ``top`` (document positions, best first) of the
    default ranking's ``parts`` (:class:`~skillshelf.select.selectors.DefaultScores`)."""
    import numpy as np

    k, n = len(top), len(index)
    terms = sorted(weights)
    idf = np.array(
        [weights[t] * bm25_idf(n, max(index.meta.doc_freq(t), index.content.doc_freq(t))) for t in terms]
    )
    mass = float(idf.sum()) if len(idf) else 0.0
    share = idf / mass if mass > 0 else idf
    blocks = []
    anywhere = np.zeros((len(terms), k), bool)
    for postings in (index.meta, index.content):
        known = [(i, postings.vocab[t]) for i, t in enumerate(terms) if t in postings.vocab]
        nf = postings.slot_lengths.shape[1]
        if not known:
            blocks.append(np.zeros((k, nf + 1)))
            continue
        pick = np.array([i for i, _ in known], np.int64)
        tids = np.array([t for _, t in known], np.int64)
        found, present = _field_shares(postings, tids, share[pick], postings.order[top])
        blocks.append(found)
        anywhere[pick] |= present
    meta_sh, body_sh = blocks
    total = parts.total[top].astype(np.float64)
    best = float(total[0]) or 1.0
    meta, body = parts.meta[top].astype(np.float64), parts.body[top].astype(np.float64)
    per_mass = mass or 1.0
    words = parts.words[top].astype(np.float64) if parts.words is not None else np.zeros(k)
    centred = parts.terms.get("wordllama")
    centred = centred[top].astype(np.float64) if centred is not None else np.zeros(k)
    name = parts.terms["name"][top].astype(np.float64)
    columns = (
        total,
        total / best,
        np.log(np.arange(1, k + 1)),
        parts.terms["bm25f"][top].astype(np.float64),
        meta / (float(parts.meta.max()) or 1.0),
        body / (float(parts.body.max()) or 1.0),
        meta / per_mass,
        body / per_mass,
        words,
        words - words.max(),
        _log_rank(words),
        name,
        *(meta_sh[:, f] for f in range(5)),
        body_sh[:, 0],
        body_sh[:, 1],
        share @ anywhere if len(terms) else np.zeros(k),
        np.log1p(index.content.lengths[top].sum(axis=1)),
        np.log1p(index.meta.lengths[top].sum(axis=1)),
        _log_rank(meta),
        _log_rank(body),
        np.full(k, float(short)),
        centred,
        (name > 0).astype(np.float64),
    )
    if parts.minilm is not None:
        minilm = parts.minilm[top].astype(np.float64)
        part = parts.terms.get("minilm")
        columns += (
            minilm,
            minilm - minilm.max(),
            _log_rank(minilm),
            part[top].astype(np.float64) if part is not None else np.zeros(k),
        )
    return np.column_stack(columns)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reorder:
    """A fitted reorder: ``offset`` times the default's score plus ``coefficients`` (a skill
    without a body) or ``body`` (one with a body) times the candidate's features."""

    offset: float
    coefficients: tuple[float, ...]
    body: tuple[float, ...]


MODELS: Mapping[tuple[str, ...], Reorder] = MappingProxyType(
    {
        ("minilm", "wordllama"): Reorder(
            offset=10.0,
            coefficients=(
                -3.1601,
                0.2399,
                -0.2383,
                -4.1507,
                -3.1556,
                2.0024,
                -2.2574,
                -1.2537,
                2.1296,
                1.0442,
                -0.1123,
                -5.0294,
                -2.7593,
                0.0000,
                3.6609,
                5.4112,
                -2.7264,
                0.0401,
                -1.2665,
                3.7722,
                -0.3790,
                0.8435,
                -0.0106,
                0.1866,
                0.0000,
                -5.3256,
                0.6930,
                2.8298,
                1.6406,
                0.0579,
                -2.3133,
            ),
            body=(
                -3.7297,
                0.8845,
                -0.4385,
                -5.5635,
                0.9031,
                4.0048,
                3.5670,
                -2.5073,
                -2.4694,
                -3.9342,
                -0.0693,
                -3.0337,
                -4.3751,
                0.0000,
                -0.2938,
                10.8224,
                -9.7077,
                0.0801,
                -2.5330,
                9.0554,
                -0.7580,
                0.1433,
                0.1507,
                0.2591,
                0.0000,
                -0.0384,
                -1.2055,
                1.6528,
                0.3283,
                0.0255,
                -4.8076,
            ),
        ),
    }
)
"""Per installed models (``SemanticIndex.models``): the fitted reorder, printed by
``bench/fit_rerank.py`` (none for the base install: see the module docstring)."""


def skill_files(index: SkillIndex, top: Any) -> Any:
    """Per candidate ``top`` (document positions), whether it is a skill file (read with the
    ``body`` coefficients, its body empty or not) rather than a tool record (name and
    description only)."""
    import numpy as np

    files = index.memo("skill_files", lambda: np.array([d.tool_id is None for d in index.docs], bool))
    return files[top]


def reordered(
    index: SkillIndex, parts: Any, weights: Mapping[str, float], short: bool, models: tuple[str, ...]
) -> Any:
    """``parts.total`` with its best :data:`DEPTH` scores dealt out again in the order of the
    model fitted for ``models`` (as it was when there is none)."""
    import numpy as np

    model = MODELS.get(models)
    total = parts.total
    k = min(DEPTH, len(total))
    if model is None or k < 2:
        return total
    head = np.argpartition(-total, k - 1)[:k] if k < len(total) else np.arange(len(total))
    top = head[np.lexsort((head, -total[head]))]  # best first, ties in index order
    top = top[total[top] > 0]  # a skill that matches nothing is no candidate
    if len(top) < 2:
        return total
    x = candidate_features(index, parts, weights, top, short)
    coef = np.where(skill_files(index, top)[:, None], np.array(model.body), np.array(model.coefficients))
    score = model.offset * x[:, 0] + (x * coef).sum(axis=1)
    new = top[np.argsort(-score, kind="stable")]
    out = total.copy()
    out[new] = total[top]
    return out
