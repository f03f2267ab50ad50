"""The index: determinism, on-disk cache and incremental updates."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.select import rank, rank_docs
from skillshelf.select.docs import doc_for_tool
from skillshelf.select.index import SkillIndex
from skillshelf.skills.model import Skill

QUERIES = ("merge two pdf files", "bump version and tag a release", "fix flaky pytest", "resize png thumbnails",
           "trim a video and add subtitles", "excel pivot formulas")


def _rankings(index: SkillIndex, selector: str = "default") -> list[list[tuple[str, float]]]:
    return [[(r.doc.key, r.score) for r in rank_docs(index, q, top_k=6, selector=selector)] for q in QUERIES]


def test_same_skills_in_any_order_give_the_same_ranking(skill_root: Path, discover: Callable[[Path], tuple[Skill, ...]]) -> None:
    skills = list(discover(skill_root))
    reference = SkillIndex.build(skills)
    for seed in range(3):
        shuffled = skills[:]
        random.Random(seed).shuffle(shuffled)
        index = SkillIndex.build(shuffled)
        for selector in ("default", "bm25f", "ngram", "multi", "rrf", "codex_lexical", "codex_bm25", "codex_ngram",
                         "codex_multi"):
            assert _rankings(index, selector) == _rankings(reference, selector)


@settings(max_examples=25, deadline=None)
@given(st.permutations(list(range(8))), st.sampled_from(QUERIES))
def test_tool_order_never_changes_a_ranking(order: list[int], query: str) -> None:
    tools = [(f"t{i}", f"tool{i % 3}", f"merge pdf files number {i % 4} and resize images") for i in range(8)]
    a = SkillIndex.from_tools(tools)
    b = SkillIndex.from_tools([tools[i] for i in order])
    assert [r.doc.key for r in rank_docs(a, query, top_k=8)] == [r.doc.key for r in rank_docs(b, query, top_k=8)]


def test_the_right_skill_comes_first_for_plain_requests(skill_root: Path, discover: Callable[[Path], tuple[Skill, ...]]) -> None:
    index = SkillIndex.build(discover(skill_root))
    expected = ["pdf-tools", "git-release", "flaky-tests", "image-resize", "video-editing", "spreadsheet-helper"]
    assert [rank(index, q, top_k=1)[0].skill.name for q in QUERIES] == expected


def test_body_text_is_indexed(tmp_path: Path, make_skill: Callable[..., Path], discover: Callable[[Path], tuple[Skill, ...]]) -> None:
    make_skill(tmp_path, "alpha", "Helps with documents.", "# Notes\n\nThe qpdf command merges files.\n")
    make_skill(tmp_path, "beta", "Helps with documents.", "# Notes\n\nNothing about that here.\n")
    index = SkillIndex.build(discover(tmp_path))
    assert rank(index, "documents with qpdf", top_k=1)[0].skill.name == "alpha"


def test_warm_build_reuses_the_cache_and_ranks_identically(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    cold = SkillIndex.build(skills, cache_dir=cache)
    warm = SkillIndex.build(skills, cache_dir=cache)
    assert cold.stats.analysed == len(skills) and warm.stats.analysed == 0 and warm.stats.reused == len(skills)
    assert _rankings(warm) == _rankings(cold)


def test_a_changed_skill_is_re_analysed_alone(
    skill_root: Path, tmp_path: Path, make_skill: Callable[..., Path], discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    SkillIndex.build(discover(skill_root), cache_dir=cache)
    make_skill(skill_root, "image-resize", "Rename photos by their capture date using EXIF metadata.", "# Photos\n")
    make_skill(skill_root, "zz-new", "Translate subtitles between languages.", "")
    (skill_root / "git-release" / "SKILL.md").unlink()
    skills = discover(skill_root)
    updated = SkillIndex.build(skills, cache_dir=cache)
    assert updated.stats.analysed == 2
    assert updated.stats.documents == len(skills) == 6
    assert _rankings(updated) == _rankings(SkillIndex.build(skills))
    assert rank(updated, "rename photos exif date", top_k=1)[0].skill.name == "image-resize"
    assert all(r.skill.name != "git-release" for r in rank(updated, "release changelog tag", top_k=6))


def test_a_damaged_cache_is_rebuilt_not_trusted(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    SkillIndex.build(skills, cache_dir=cache)
    for f in (cache / "select").iterdir():
        f.write_bytes(b"\x00garbage")
    index = SkillIndex.build(skills, cache_dir=cache)
    assert index.stats.analysed == len(skills)
    assert _rankings(index) == _rankings(SkillIndex.build(skills))


def test_an_unreadable_cache_folder_only_costs_time(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    index = SkillIndex.build(discover(skill_root), cache_dir=blocker)
    assert len(index) == 6


def test_a_body_that_cannot_be_read_indexes_as_empty(skill_root: Path, discover: Callable[[Path], tuple[Skill, ...]]) -> None:
    def broken(skill: Skill) -> str:
        raise OSError("gone")

    index = SkillIndex.build(discover(skill_root), body_reader=broken)
    assert rank(index, "merge pdf", top_k=1)[0].skill.name == "pdf-tools"


def test_empty_index_and_empty_query_rank_nothing() -> None:
    empty = SkillIndex.from_docs([])
    assert rank_docs(empty, "anything") == ()
    index = SkillIndex.from_docs([doc_for_tool("a", "a", "merge pdf")])
    assert rank_docs(index, "   ") == ()
    assert rank_docs(index, "the of and") == ()


def test_a_removed_skill_is_dropped_from_the_cache_too(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    skills = list(discover(skill_root))
    SkillIndex.build(skills, cache_dir=cache)
    fewer = SkillIndex.build(skills[1:], cache_dir=cache)
    assert fewer.stats.analysed == 0 and len(fewer) == len(skills) - 1
    again = SkillIndex.build(skills[1:], cache_dir=cache)
    assert again.stats.reused == len(skills) - 1 and again.stats.analysed == 0
    assert _rankings(again) == _rankings(SkillIndex.build(skills[1:]))
