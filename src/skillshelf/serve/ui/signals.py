"""What each signal of the default ranking adds to a skill's score, for the task view.

The default selector (:mod:`skillshelf.select.selectors`) sums weighted signals: BM25F over the
fields, character n-grams and the static word vectors for short requests (or the installed
embedding models instead), the squared coverage of the skill's name, and the usage prior on
skills that match. :func:`contributions` gives those terms one by one, with the selector's own
functions and weights; they add up to the score :func:`skillshelf.select.service.search`
reports (the tests check it), so a change to the ranking that is not mirrored here shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.semantic import SemanticIndex

__all__ = ["SIGNALS", "contributions"]

SIGNALS: Mapping[str, str] = {
    "bm25f": "words of the request in the name, descriptions and body (BM25F)",
    "ngram": "shared character n-grams of name and descriptions (short requests)",
    "minilm": "MiniLM sentence embedding (semantic extra)",
    "wordllama": "WordLlama embedding (short requests)",
    "static": "static word vectors (short requests, base install)",
    "name": "words of the skill's name in the request",
    "usage": "how often and how recently the model loaded it (usage prior)",
}
"""Every signal, with a line the page shows for it."""


def _parts(index: SkillIndex, query: str, semantic: SemanticIndex | None) -> list[tuple[str, float, Any]]:
    """(signal, weight, raw scores) in the order the default selector fuses them."""
    from skillshelf.select import selectors as sel
    from skillshelf.select.fusion import centred
    from skillshelf.select.selectors.sparse import bm25f_scores, is_short, ngram_scores, query_weights

    short = is_short(query)
    parts: list[tuple[str, float, Any]] = [
        ("bm25f", sel.W_BM25F, bm25f_scores(index, query, weights=query_weights(query)))
    ]
    if short:
        parts.append(("ngram", sel.W_NGRAM, ngram_scores(index, query)))
    if semantic is not None and semantic.encoder is not None:
        dense = centred(semantic.scores(index, query), quantile=sel.SEM_QUANTILE)
        parts.append(("minilm", sel.W_SEMANTIC_SHORT if short else sel.W_SEMANTIC, dense))
    if semantic is not None and short and semantic.words is not None:
        words = centred(semantic.word_scores(index, query), quantile=sel.SEM_QUANTILE)
        parts.append(("wordllama", sel.W_WORDS_SHORT, words))
    return parts


def contributions(
    index: SkillIndex,
    query: str,
    keys: Sequence[str],
    *,
    semantic: SemanticIndex | None = None,
    usage: Mapping[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """For each of ``keys`` (skill paths in ``index``): signal -> its term of the default score."""
    import numpy as np

    from skillshelf.select import selectors as sel
    from skillshelf.select.fusion import normalised
    from skillshelf.select.selectors.sparse import is_short, name_coverage, query_weights

    terms: list[tuple[str, Any]] = [
        (name, normalised(raw) * np.float32(weight)) for name, weight, raw in _parts(index, query, semantic)
    ]
    if (semantic is None or not semantic.models) and is_short(query):
        terms.append(("static", np.float32(sel.W_STATIC_SHORT) * sel._static_part(index, query)))
    coverage = name_coverage(index, query, weights=query_weights(query))
    terms.append(("name", np.float32(sel.W_NAME) * coverage * coverage))
    total = sum((t for _, t in terms), start=np.zeros(len(index), np.float32))
    if usage and float(total.max(initial=0.0)) > 0:
        prior = sel._usage_scores(index, sel.Extras(usage=usage))
        terms.append(("usage", np.where(total > 0, np.float32(sel.W_USAGE) * prior, np.float32(0))))
    out: dict[str, dict[str, float]] = {}
    for key in keys:
        i = index.by_key.get(key)
        if i is not None:
            out[key] = {name: round(float(vector[i]), 6) for name, vector in terms if float(vector[i])}
    return out
