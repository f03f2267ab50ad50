"""Combining rankings: reciprocal-rank fusion and the default score fusion.

``rrf``: ``score = sum(weight / (k + rank))`` over input rankings (rank 1-based), Codex's
formula (k = 60 for lexical lists). ``combine``: a weighted sum of per-query max-normalised
score vectors (CombSUM), which keeps how far ahead a skill is, not only its place.

Tried in the default ranking and left out: the MiniLM part, the WordLlama part or both scored
by place instead, ``(k + 1) / (k + rank)`` times the part's best weighted score (k = 2, 5, 10 or
30; 0.5, 0.75 or 1 of it). The mean MRR@10 of the dev split, the authored requests and 600
MetaTool dev-half queries, base install and + MiniLM, went from 0.761 to at most 0.761 (the
WordLlama part by place lowered the base install's dev MRR@10 from 0.866 to 0.859 or less).

Also left out: passing score along the skills' references to each other (a skill whose body
names another skill of its repository, as ``executing-plans`` names ``using-git-worktrees``;
359 such links over 129 corpus skills), each of the top 3 or 5 adding 0.05 to 0.5 times its
fused score to the skills it names. Base install, dev split / authored requests: success@5
0.946 / 0.867 became at most 0.953 / 0.872 and MRR@10 0.866 / 0.788 at most 0.870 / 0.790,
within a query or two, and falling from 0.3 on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from skillshelf.select.index import SkillIndex

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Scores = npt.NDArray[np.float32]
else:
    Scores = Any

__all__ = ["centred", "combine", "normalised", "quantile", "rrf"]

Hit = tuple[int, float]


def rrf(
    index: SkillIndex,
    rankings: Sequence[Sequence[Hit]],
    limit: int,
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[Hit]:
    """Reciprocal-rank fusion; ties by best single rank, then name, then path."""
    fused: dict[int, float] = {}
    best: dict[int, int] = {}
    for li, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[li]
        for rank, (doc, _) in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + w / (k + rank)
            best[doc] = min(best.get(doc, rank), rank)
    docs = index.docs
    ordered = sorted(fused.items(), key=lambda kv: (-kv[1], best[kv[0]], docs[kv[0]].name, docs[kv[0]].key))
    return ordered[:limit]


def normalised(scores: Scores, *, floor: float = 0.0) -> Scores:
    """``scores / max(max(scores), floor)`` (all zeros stays all zeros). ``floor``: the score
    that counts as a full point however weak the best one is (0: the best one always does)."""
    import numpy as np

    top = max(float(scores.max()) if len(scores) else 0.0, floor)
    if top <= 0:
        return np.zeros_like(scores)
    return (scores / np.float32(top)).astype(np.float32)


def quantile(scores: Scores, q: float) -> float:
    """``np.quantile(scores, q)`` (linear interpolation), the same value, without loading
    ``numpy.ma`` as numpy's own does (10 ms of every prompt hook's start)."""
    import numpy as np

    if len(scores) == 0:
        raise ValueError("the quantile of no scores")
    position = q * (len(scores) - 1)
    below = int(np.floor(position))
    above = min(below + 1, len(scores) - 1)
    part = np.partition(scores, (below, above))
    a, b = part[below], part[above]
    t = position - below
    diff = b - a
    return float(b - diff * (1 - t) if t >= 0.5 else a + diff * t)


_quantile = quantile  # `centred` names its parameter `quantile`


def centred(scores: Scores, *, quantile: float = 0.5) -> Scores:
    """``max(0, scores - q)`` with ``q`` the given quantile of the scores: dense similarities
    sit in a narrow band, and only how far a skill stands above the crowd carries signal."""
    import numpy as np

    if len(scores) == 0:
        return scores
    floor = np.float32(_quantile(scores, quantile))
    out: Scores = np.maximum(scores - floor, np.float32(0)).astype(np.float32)
    return out


def combine(parts: Sequence[tuple[float, Scores]]) -> Scores:
    """``sum(weight * normalised(scores))``."""
    import numpy as np

    total: Scores | None = None
    for weight, scores in parts:
        term = normalised(scores) * np.float32(weight)
        total = term if total is None else total + term
    if total is None:
        raise ValueError("combine() needs at least one score vector")
    return total
