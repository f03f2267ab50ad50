"""Postings: the vectorised build agrees exactly with the per-document reference loop."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.select import postings as postings_module
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
@given(
    st.sampled_from([META_MODEL, CONTENT_MODEL, GRAM_MODEL]).flatmap(
        lambda m: st.tuples(st.just(m), _docs(len(m.fields)))
    )
)
def test_vectorised_build_equals_the_per_document_loop(
    case: tuple[FieldModel, list[list[dict[str, int]]]],
) -> None:
    model, docs = case
    lengths = [[float(sum(f.values())) for f in doc] for doc in docs]
    _same(Postings.build(model, docs, lengths), _reference(model, docs, lengths))


def test_documents_without_terms_still_count_as_documents() -> None:
    docs: list[list[dict[str, int]]] = [[{}, {}], [{"pdf": 2}, {"merge": 1, "pdf": 1}], [{}, {}]]
    built = Postings.build(CONTENT_MODEL, docs, [[0, 0], [2, 2], [0, 0]])
    assert built.n_docs == 3 and built.doc_freq("pdf") == 1
    assert built.base.doc_ids.tolist() == [1, 1] and built.base.tf.tolist() == [[0.0, 1.0], [2.0, 1.0]]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"aBc dÉ_9 Xyz-ing.s", "PDFMerger ", "running ", "é", "the "]), max_size=120
    ).map("".join),
    st.integers(min_value=1, max_value=6),
)
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
    assert (
        fields[1] == Counter(kept)
        and list(fields[1]) == list(dict.fromkeys(kept))
        and lengths[1] == len(kept)
    )
    grams = [g for w in words(text) if len(w) >= 2 and w not in STOP_WORDS for g in char_grams(w)]
    assert docs._count((text,), "grams") == ((Counter(grams),), [float(len(grams))])


def _scores(
    p: Postings, queries: list[dict[str, float]], coverage: bool
) -> list[tuple[list[float], list[int]]]:
    out = []
    for q in queries:
        s, m = p.score(q)
        out.append((s.tolist(), m.tolist()))
        assert p.weighted(q).tolist() == s.tolist()
        if coverage:
            out.append((p.field_coverage(q, 0).tolist(), []))
    return out


_QUERIES = [{"a": 1.0}, {"b": 1.0, "zz": 2.0}, {"ab": 1.0, "é": 1.0, "c_": 1.5, "a": 1.0}, {"nothing": 1.0}]
_STEP = st.lists(st.tuples(st.integers(min_value=0, max_value=11), st.booleans()), max_size=8)


def _doc_for(nf: int, key: int, version: int) -> list[dict[str, int]]:
    """A small deterministic document: a few terms from a tiny alphabet, per field."""
    alphabet = ["a", "b", "ab", "é", "c_", "zz", "a_b", f"k{key}"]
    return [
        {
            alphabet[(key * 3 + version * 5 + f * 7 + j) % len(alphabet)]: 1 + (key + j) % 3
            for j in range((key + f + version) % 3)
        }
        for f in range(nf)
    ]


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from([META_MODEL, CONTENT_MODEL, GRAM_MODEL]),
    st.sets(st.integers(0, 11)),
    st.lists(_STEP, max_size=4),
    st.booleans(),
)
def test_updates_score_exactly_as_a_fresh_build(
    model: FieldModel, start: set[int], steps: list[list[tuple[int, bool]]], per_term: bool
) -> None:
    """Any run of adds, removals and edits (some compacting) ranks as building from scratch,
    with impacts derived all at once or term by term as queries need them."""
    original = postings_module.EAGER_ROWS
    postings_module.EAGER_ROWS = 0 if per_term else original
    try:
        _check_updates(model, start, steps)
    finally:
        postings_module.EAGER_ROWS = original


def _check_updates(model: FieldModel, start: set[int], steps: list[list[tuple[int, bool]]]) -> None:
    nf = len(model.fields)
    live = dict.fromkeys(sorted(start), 0)
    keys = sorted(live)
    current = Postings.build(model, [_doc_for(nf, k, 0) for k in keys], [[1.0 + k % 2] * nf for k in keys])
    for step in steps:
        before = sorted(live)
        for key, remove in step:
            if remove:
                live.pop(key, None)
            else:
                live[key] = live.get(key, -1) + 1
        after = sorted(live)
        changed = [k for k in after if k not in before or dict(step).get(k) is False]
        old_to_new = [after.index(k) if k in live and k not in changed else -1 for k in before]
        docs = [_doc_for(nf, k, live[k]) for k in changed]
        current = current.updated(
            old_to_new,
            docs,
            [after.index(k) for k in changed],
            [[1.0 + (k + live[k]) % 2] * nf for k in changed],
            len(after),
        )
        fresh = Postings.build(
            model, [_doc_for(nf, k, live[k]) for k in after], [[1.0 + (k + live[k]) % 2] * nf for k in after]
        )
        assert _scores(current, _QUERIES, model is META_MODEL) == _scores(
            fresh, _QUERIES, model is META_MODEL
        )
        assert current.df[[current.vocab[t] for t in fresh.vocab]].tolist() == fresh.df.tolist()
        np.testing.assert_array_equal(current.lengths, fresh.lengths)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([META_MODEL, CONTENT_MODEL]).flatmap(
        lambda m: st.tuples(st.just(m), _docs(len(m.fields)))
    ),
    st.dictionaries(_TERMS, st.sampled_from([1.0, 1.5, 2.0]), min_size=1, max_size=8),
)
def test_copying_slices_and_gathering_rows_score_the_same(
    case: tuple[FieldModel, list[list[dict[str, int]]]], query: dict[str, float]
) -> None:
    model, docs = case
    built = Postings.build(model, docs, [[float(sum(f.values())) for f in doc] for doc in docs])
    original = postings_module.SLICE_ROWS, postings_module.SLICE_MIN_AVG
    results = []
    try:
        for slice_rows, min_avg in ((0, 0), (10**9, 10**9)):  # every query sliced, then gathered
            postings_module.SLICE_ROWS, postings_module.SLICE_MIN_AVG = slice_rows, min_avg
            scores, matched = built.score(query)
            results.append((scores.tolist(), matched.tolist(), built.field_coverage(query, 0).tolist()))
    finally:
        postings_module.SLICE_ROWS, postings_module.SLICE_MIN_AVG = original
    assert results[0] == results[1]


def test_the_first_query_derives_only_its_rows_and_the_second_every_row() -> None:
    docs: list[list[dict[str, int]]] = [
        [{"alpha": 2, "beta": 1}, {}, {"beta": 1}, {}],
        [{"beta": 3}, {"gamma": 1}, {}, {"delta": 2}],
        [{"delta": 1}, {"alpha": 1}, {"gamma": 1}, {}],
    ]
    lengths = [[float(sum(f.values())) for f in doc] for doc in docs]
    lazy, fresh = Postings.build(META_MODEL, docs, lengths), Postings.build(META_MODEL, docs, lengths)
    first = lazy.weighted({"beta": 1.0}).tolist()
    assert 0 < int(lazy._ready.sum()) < len(lazy.df)  # the one term's rows, not the others
    lazy.weighted({"gamma": 1.0})
    assert bool(lazy._ready.all())
    fresh.weighted({"alpha": 1.0})
    fresh.weighted({"delta": 1.0})  # every row derived before the query below
    assert first == fresh.weighted({"beta": 1.0}).tolist()


class _Watched(Postings):
    """Postings that check, as the lazy impacts are published, what a thread reading them
    without the lock (``_ensure``'s fast path) would find."""

    seen: list[str]

    def __setattr__(self, name: str, value: object) -> None:
        super().__setattr__(name, value)
        if name == "_impacts" and value is not None:
            self.seen.append("ready" if self._ready is not None and self._idf_all is not None else "torn")


def test_a_thread_that_sees_the_impacts_sees_what_they_need() -> None:
    docs: list[list[dict[str, int]]] = [[{"alpha": 2}, {}, {"beta": 1}, {}], [{"beta": 3}, {}, {}, {}]]
    lengths = [[float(sum(f.values())) for f in doc] for doc in docs]
    built = Postings.build(META_MODEL, docs, lengths)
    watched = _Watched(built.model, built.vocab, built.base, built.slot_lengths)
    watched.seen = []
    assert watched.weighted({"beta": 1.0}).tolist() == built.weighted({"beta": 1.0}).tolist()
    assert watched.seen == ["ready"]
