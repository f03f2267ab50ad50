"""Postings: the vectorised build agrees exactly with the per-document reference loop."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.select.index import CONTENT_MODEL, GRAM_MODEL, META_MODEL
from skillshelf.select.postings import FieldModel, Postings

_TERMS = st.text(alphabet="abcé_z", min_size=1, max_size=4)


def _docs(nf: int) -> st.SearchStrategy[list[list[dict[str, int]]]]:
    field = st.dictionaries(_TERMS, st.integers(min_value=1, max_value=5), max_size=6)
    return st.lists(st.lists(field, min_size=nf, max_size=nf), max_size=8)


def _reference(model: FieldModel, docs: list[list[dict[str, int]]], lengths: list[list[float]]) -> Postings:
    """The per-document loop (the incremental path, starting from nothing)."""
    empty = Postings.build(model, [], [])
    return empty.updated([], docs, list(range(len(docs))), lengths, len(docs))


def _same(a: Postings, b: Postings) -> None:
    assert a.vocab == b.vocab
    for name, array in a.arrays().items():
        np.testing.assert_array_equal(array, b.arrays()[name], err_msg=name)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([META_MODEL, CONTENT_MODEL, GRAM_MODEL]).flatmap(lambda m: st.tuples(st.just(m), _docs(len(m.fields)))))
def test_vectorised_build_equals_the_per_document_loop(case: tuple[FieldModel, list[list[dict[str, int]]]]) -> None:
    model, docs = case
    lengths = [[float(sum(f.values())) for f in doc] for doc in docs]
    _same(Postings.build(model, docs, lengths), _reference(model, docs, lengths))


def test_documents_without_terms_still_count_as_documents() -> None:
    docs = [[{}, {}], [{"pdf": 2}, {"merge": 1, "pdf": 1}], [{}, {}]]
    built = Postings.build(CONTENT_MODEL, docs, [[0, 0], [2, 2], [0, 0]])
    assert built.n_docs == 3 and built.doc_freq("pdf") == 1
    assert built.doc_ids.tolist() == [1, 1] and built.tf.tolist() == [[0.0, 1.0], [2.0, 1.0]]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([*"aBc dÉ_9 Xyz-ing.s", "PDFMerger ", "running ", "é", "the "]), max_size=120).map("".join),
       st.integers(min_value=1, max_value=6))
def test_bulk_counting_equals_a_token_by_token_pass(text: str, limit: int) -> None:
    from collections import Counter

    from skillshelf.select import docs
    from skillshelf.select.tokenize import STOP_WORDS, char_grams, terms, words

    kept: list[str] = []
    for term in terms(text):  # the body rule: every occurrence of the first `limit` distinct terms
        if term in kept or len(set(kept)) < limit:
            kept.append(term)
    original = docs.MAX_BODY_TERMS
    docs.MAX_BODY_TERMS = limit
    try:
        fields, lengths = docs._count(("", text), "body")
    finally:
        docs.MAX_BODY_TERMS = original
    assert fields[1] == Counter(kept) and list(fields[1]) == list(dict.fromkeys(kept)) and lengths[1] == len(kept)
    grams = [g for w in words(text) if len(w) >= 2 and w not in STOP_WORDS for g in char_grams(w)]
    assert docs._count((text,), "grams") == ((Counter(grams),), [float(len(grams))])
