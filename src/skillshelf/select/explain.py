"""What each signal of the default ranking adds to a skill's score (``search --explain``, the
page's task view).

The default ranking (:func:`skillshelf.select.selectors.default_parts`) sums weighted signals:
BM25F over the body and the metadata, character n-grams and the static word vectors for
short requests (or the installed embedding models instead), and the squared coverage of the
skill's name. ``default_parts`` keeps each weighted term beside the total, so
:func:`contributions` reads them from the ranking itself; they add up to the score
:meth:`skillshelf.select.ranking.Ranker.rank` gives (the tests check it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.semantic import SemanticIndex

__all__ = ["SIGNALS", "contributions"]

SIGNALS: Mapping[str, str] = {
    "bm25f": "words of the request in the body and the metadata (BM25F)",
    "ngram": "shared character n-grams of name and descriptions (short requests)",
    "minilm": "MiniLM sentence embedding (semantic extra)",
    "wordllama": "WordLlama embedding (short requests)",
    "static": "static word vectors (short requests, base install)",
    "name": "words of the skill's name in the request",
    "rerank": "the learned reorder of the best skills (with MiniLM)",
    "named": "the request is only this skill's name: it goes first",
}
"""Every signal, with a line the page shows for it."""


def contributions(
    index: SkillIndex, query: str, keys: Sequence[str], *, semantic: SemanticIndex | None = None
) -> dict[str, dict[str, float]]:
    """For each of ``keys`` (skill paths in ``index``): signal -> its term of the default score."""
    from skillshelf.select.selectors import default_parts

    terms = default_parts(index, query, semantic).terms
    out: dict[str, dict[str, float]] = {}
    for key in keys:
        i = index.by_key.get(key)
        if i is not None:
            out[key] = {
                name: round(float(vector[i]), 6) for name, vector in terms.items() if float(vector[i])
            }
    return out
