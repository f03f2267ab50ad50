"""Static word vectors: shipped, meaningful, robust to junk, and part of the default ranking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.select import rank_docs
from skillshelf.select.index import SkillIndex
from skillshelf.select.static import static_scores, static_vectors
from skillshelf.skills.model import Skill


def _cos(a: str, b: str) -> float:
    table = static_vectors()
    return float(table.encode(a) @ table.encode(b))


def _tools() -> SkillIndex:
    return SkillIndex.from_tools(
        [
            ("rent", "apartment-finder", "Find flats and houses to rent near you."),
            ("pdf", "pdf-tools", "Merge, split and compress PDF documents."),
            ("wx", "weather", "Forecasts, temperature and rain for any city."),
            ("music", "playlist-maker", "Build playlists of songs by mood and genre."),
        ]
    )


def test_the_shipped_table_loads_with_the_whole_vocabulary() -> None:
    table = static_vectors()
    assert len(table.vocab) == table.table.shape[0] == 30522
    assert table.dims == 128
    assert not table.table[table.vocab["[CLS]"]].any()


def test_related_texts_are_closer_than_unrelated_ones() -> None:
    assert (
        _cos("will it rain tomorrow", "weather forecast")
        > _cos("will it rain tomorrow", "merge pdf documents") + 0.2
    )
    assert (
        _cos("book a flight to Rome", "airline tickets and travel")
        > _cos("book a flight to Rome", "bake bread") + 0.2
    )
    assert (
        _cos("my unit tests fail", "debug failing pytest suites")
        > _cos("my unit tests fail", "edit photos") + 0.2
    )


def test_stop_words_and_made_up_words_give_no_vector() -> None:
    table = static_vectors()
    assert not table.encode("the and of to").any()
    assert not table.encode("qwertyuiop zxcvbnm").any()
    assert not table.encode("").any()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=80), min_size=1, max_size=8))
def test_encoding_many_equals_encoding_each(texts: list[str]) -> None:
    table = static_vectors()
    many = table.encode_many(texts)
    each = np.stack([table.encode(t) for t in texts])
    assert np.allclose(many, each, atol=1e-5)
    norms = np.linalg.norm(many, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-4) | (norms == 0))


def test_scores_are_cosines_clipped_at_zero_one_per_document() -> None:
    index = _tools()
    scores = static_scores(index, "sunny or cloudy tomorrow")
    assert scores.shape == (len(index),) and float(scores.min()) >= 0
    assert index.docs[int(np.argmax(scores))].name == "weather"


def test_the_default_ranking_finds_a_skill_by_meaning_without_a_shared_word() -> None:
    index = _tools()
    assert rank_docs(index, "will it be sunny tomorrow in Paris", top_k=1)[0].doc.name == "weather"
    assert rank_docs(index, "I need somewhere to live in Berlin", top_k=1)[0].doc.name == "apartment-finder"
    assert rank_docs(index, "recommend some tracks for a road trip", top_k=1)[0].doc.name == "playlist-maker"


def test_junk_finds_nothing_with_the_default_ranking() -> None:
    assert rank_docs(_tools(), "qwertyuiop zxcvbnm") == ()


def test_a_long_task_is_ranked_without_the_static_vectors() -> None:
    index = _tools()
    task = "Please write a long specification. " * 20 + "It must be sunny."
    # "sunny" finds the weather skill in a short request, but no word of this task is in any
    # skill, and a bag of 100 words is too blunt to trust: nothing is ranked
    assert rank_docs(index, task) == ()


class _CountingTable:
    """Counts the texts the shipped table is asked to encode."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts = 0
        table = static_vectors()
        inner = table.encode_many

        def counting(texts: list[str]) -> np.ndarray:
            self.texts += len(texts)
            return inner(texts)

        monkeypatch.setattr(table, "encode_many", counting)


def _scores(skills: tuple[Skill, ...], cache: Path, query: str = "shrink photos for the web") -> list[float]:
    return static_scores(SkillIndex.build(skills, cache_dir=cache), query).round(6).tolist()


def test_document_vectors_are_kept_beside_a_cached_index(
    skill_root: Path,
    tmp_path: Path,
    discover: Callable[[Path], tuple[Skill, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counter = _CountingTable(monkeypatch)
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    cold = _scores(skills, cache)
    assert counter.texts == len(skills)
    assert list((cache / "select").glob("index-*.static.bin"))
    warm = _scores(skills, cache)
    assert counter.texts == len(skills) and warm == cold


def test_only_a_changed_skill_is_encoded_again(
    skill_root: Path,
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    _scores(discover(skill_root), cache)
    counter = _CountingTable(monkeypatch)
    make_skill(skill_root, "image-resize", "Make photos smaller for web pages.", "# Photos\n")
    changed = discover(skill_root)
    assert _scores(changed, cache) == _scores(changed, tmp_path / "fresh")
    assert counter.texts == 1 + len(changed)  # the edited skill, then every skill for the fresh cache


def test_a_damaged_vector_file_is_encoded_again_not_trusted(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    cold = _scores(skills, cache)
    for file in (cache / "select").glob("index-*.static.bin"):
        file.write_bytes(file.read_bytes()[:100])
    assert _scores(skills, cache) == cold
