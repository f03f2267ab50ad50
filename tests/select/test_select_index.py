"""The index: determinism, on-disk cache and incremental updates."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skillshelf.select.index as index_module
from skillshelf.lastkept import LastKept
from skillshelf.select import rank, rank_docs
from skillshelf.select.docs import doc_for_tool
from skillshelf.select.index import SkillIndex
from skillshelf.skills.model import Skill

QUERIES = (
    "merge two pdf files",
    "bump version and tag a release",
    "fix flaky pytest",
    "resize png thumbnails",
    "trim a video and add subtitles",
    "excel pivot formulas",
)


def _rankings(index: SkillIndex, selector: str = "default") -> list[list[tuple[str, float]]]:
    return [[(r.doc.key, r.score) for r in rank_docs(index, q, top_k=6, selector=selector)] for q in QUERIES]


def test_same_skills_in_any_order_give_the_same_ranking(
    skill_root: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    skills = list(discover(skill_root))
    reference = SkillIndex.build(skills)
    for seed in range(3):
        shuffled = skills[:]
        random.Random(seed).shuffle(shuffled)
        index = SkillIndex.build(shuffled)
        for selector in (
            "default",
            "bm25f",
            "ngram",
            "multi",
            "rrf",
            "codex_lexical",
            "codex_bm25",
            "codex_ngram",
            "codex_multi",
        ):
            assert _rankings(index, selector) == _rankings(reference, selector)


@settings(max_examples=25, deadline=None)
@given(st.permutations(list(range(8))), st.sampled_from(QUERIES))
def test_tool_order_never_changes_a_ranking(order: list[int], query: str) -> None:
    tools = [(f"t{i}", f"tool{i % 3}", f"merge pdf files number {i % 4} and resize images") for i in range(8)]
    a = SkillIndex.from_tools(tools)
    b = SkillIndex.from_tools([tools[i] for i in order])
    assert [r.doc.key for r in rank_docs(a, query, top_k=8)] == [
        r.doc.key for r in rank_docs(b, query, top_k=8)
    ]


def test_the_right_skill_comes_first_for_plain_requests(
    skill_root: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    index = SkillIndex.build(discover(skill_root))
    expected = [
        "pdf-tools",
        "git-release",
        "flaky-tests",
        "image-resize",
        "video-editing",
        "spreadsheet-helper",
    ]
    assert [rank(index, q, top_k=1)[0].skill.name for q in QUERIES] == expected


def test_body_text_is_indexed(
    tmp_path: Path, make_skill: Callable[..., Path], discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    make_skill(tmp_path, "alpha", "Helps with documents.", "# Notes\n\nThe qpdf command merges files.\n")
    make_skill(tmp_path, "beta", "Helps with documents.", "# Notes\n\nNothing about that here.\n")
    index = SkillIndex.build(discover(tmp_path))
    assert rank(index, "documents with qpdf", top_k=1)[0].skill.name == "alpha"


def _chinese_filler(chars: int) -> str:
    """Varied Chinese text (a new character pair at almost every character), in sentences."""
    picked = [chr(0x4E00 + (i * 7919) % 20000) for i in range(chars)]
    return "。".join("".join(picked[i : i + 20]) for i in range(0, chars, 20)) + "。"


def test_a_chinese_body_is_read_about_as_far_as_an_english_one(
    tmp_path: Path, make_skill: Callable[..., Path], discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    # each character starts a new pair: counted as whole terms, the 400-term cap would stop
    # this body after about 400 characters, long before the sentence that names the command
    body = "# 说明\n\n" + _chinese_filler(1200) + "\n\n用 qpdf 合并文件。\n"
    make_skill(tmp_path, "alpha", "Helps with documents.", body)
    make_skill(tmp_path, "beta", "Helps with documents.", "# Notes\n\nNothing about that here.\n")
    index = SkillIndex.build(discover(tmp_path))
    assert rank(index, "documents with qpdf", top_k=1)[0].skill.name == "alpha"


def test_an_english_body_keeps_its_first_400_distinct_terms() -> None:
    from skillshelf.select.docs import MAX_BODY_TERMS, _count
    from skillshelf.select.tokenize import terms

    text = " ".join(f"word{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(MAX_BODY_TERMS + 50))
    distinct = list(dict.fromkeys(terms(text)))
    assert len(distinct) > MAX_BODY_TERMS
    fields, _ = _count(("", text), "body")
    assert list(fields[1]) == distinct[:MAX_BODY_TERMS]


def test_warm_build_reuses_the_cache_and_ranks_identically(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    cold = SkillIndex.build(skills, cache_dir=cache)
    warm = SkillIndex.build(skills, cache_dir=cache)
    assert (
        cold.stats.analysed == len(skills) and warm.stats.analysed == 0 and warm.stats.reused == len(skills)
    )
    assert _rankings(warm) == _rankings(cold)


def test_a_changed_skill_is_re_analysed_alone(
    skill_root: Path,
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
) -> None:
    cache = tmp_path / "cache"
    SkillIndex.build(discover(skill_root), cache_dir=cache)
    make_skill(
        skill_root, "image-resize", "Rename photos by their capture date using EXIF metadata.", "# Photos\n"
    )
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


def test_a_body_that_cannot_be_read_indexes_as_empty(
    skill_root: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
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


_POOL = [
    ("pdf-tools", "Merge and split PDF files."),
    ("git-release", "Tag a release and write the changelog."),
    ("image-resize", "Resize PNG and JPEG images."),
    ("flaky-tests", "Fix flaky pytest tests."),
    ("video-editing", "Trim video clips, add subtitles."),
    ("excel-pivots", "Excel pivot tables and formulas."),
    ("pdf-forms", "Fill PDF forms."),
    ("release-notes", "Draft release notes from merged changes."),
]


def _pool_skill(i: int, version: int, root: Path) -> Skill:
    from skillshelf.skills.model import RootOrigin, Scope

    name, desc = _POOL[i]
    return Skill(
        name=name,
        description=desc + " extra words" * version,
        path=root / f"s{i}" / "SKILL.md",
        root=root,
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
    )


def _body(skill: Skill) -> str:
    return f"# {skill.name}\n\nUse the {skill.name.split('-')[0]} command. {skill.description}\n"


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.dictionaries(st.integers(0, len(_POOL) - 1), st.integers(0, 2)), min_size=1, max_size=4),
    st.randoms(use_true_random=False),
)
def test_incremental_builds_rank_exactly_as_from_scratch(
    states: list[dict[int, int]], rnd: random.Random
) -> None:
    """Skills added, removed and edited between cached builds, in any input order."""
    import tempfile

    root = Path("/virtual/skills")
    with tempfile.TemporaryDirectory() as tmp:
        for state in states:
            skills = [_pool_skill(i, v, root) for i, v in state.items()]
            rnd.shuffle(skills)
            cached = SkillIndex.build(skills, cache_dir=Path(tmp), body_reader=_body)
            fresh = SkillIndex.build(list(reversed(skills)), body_reader=_body)
            for selector in ("default", "bm25f", "ngram", "multi"):
                assert _rankings(cached, selector) == _rankings(fresh, selector)


def _cache_files(cache: Path) -> tuple[Path, Path]:
    files = sorted((cache / "select").iterdir())
    base = [f for f in files if ".base-" in f.name]
    main = [f for f in files if ".base-" not in f.name]
    assert len(base) == 1 and len(main) == 1, files
    return base[0], main[0]


def test_a_small_change_leaves_the_base_file_alone(
    skill_root: Path,
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
) -> None:
    cache = tmp_path / "cache"
    SkillIndex.build(discover(skill_root), cache_dir=cache)
    base, main = _cache_files(cache)
    before = (base.stat().st_ino, base.stat().st_mtime_ns, main.stat().st_ino)
    make_skill(
        skill_root, "image-resize", "Rename photos by their capture date using EXIF metadata.", "# Photos\n"
    )
    updated = SkillIndex.build(discover(skill_root), cache_dir=cache)
    assert updated.stats.analysed == 1
    assert _cache_files(cache)[0] == base and (base.stat().st_ino, base.stat().st_mtime_ns) == before[:2]
    assert main.stat().st_ino != before[2]  # replaced, never written in place
    again = SkillIndex.build(discover(skill_root), cache_dir=cache)
    assert again.stats.analysed == 0 and _rankings(again) == _rankings(SkillIndex.build(discover(skill_root)))


def test_many_changes_compact_into_a_new_base(
    skill_root: Path,
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
) -> None:
    cache = tmp_path / "cache"
    SkillIndex.build(discover(skill_root), cache_dir=cache)
    base, _ = _cache_files(cache)
    for folder in ("pdf-tools", "git-release", "flaky-tests"):
        make_skill(skill_root, folder, f"Rewritten {folder} description about spreadsheets.", "# New\n")
    updated = SkillIndex.build(discover(skill_root), cache_dir=cache)
    assert updated.stats.analysed == 3 and updated.meta.delta.rows == 0
    assert _cache_files(cache)[0] != base  # the old base is removed once the new one is named
    assert _rankings(updated) == _rankings(SkillIndex.build(discover(skill_root)))


def test_a_missing_or_truncated_base_file_is_rebuilt(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    SkillIndex.build(skills, cache_dir=cache)
    base, _ = _cache_files(cache)
    base.write_bytes(base.read_bytes()[: base.stat().st_size // 2])
    assert SkillIndex.build(skills, cache_dir=cache).stats.analysed == len(skills)
    _cache_files(cache)[0].unlink()
    rebuilt = SkillIndex.build(skills, cache_dir=cache)
    assert rebuilt.stats.analysed == len(skills) and _rankings(rebuilt) == _rankings(SkillIndex.build(skills))


def _build_in_process(root: str, cache: str, description: str) -> int:
    from skillshelf.skills.discover import discover_in

    skills = list(discover_in([Path(root)]).skills)
    skills = [s if s.name != "pdf-tools" else dataclasses.replace(s, description=description) for s in skills]
    for _ in range(5):
        SkillIndex.build(skills, cache_dir=Path(cache))
    return len(skills)


def test_two_processes_writing_the_cache_never_corrupt_it(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    import multiprocessing

    cache = tmp_path / "cache"
    SkillIndex.build(discover(skill_root), cache_dir=cache)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        args = [(str(skill_root), str(cache), f"Merge PDF files, variant {i}.") for i in range(2)]
        assert pool.starmap(_build_in_process, args) == [6, 6]
    skills = discover(skill_root)
    index = SkillIndex.build(skills, cache_dir=cache)
    assert index.stats.analysed <= 1  # the cache holds one writer's complete state
    assert _rankings(index) == _rankings(SkillIndex.build(skills))


def _rankings_in_a_fresh_process(root: str, cache: str) -> list[list[tuple[str, float]]]:
    from skillshelf.skills.discover import discover_in

    return _rankings(SkillIndex.build(discover_in([Path(root)]).skills, cache_dir=Path(cache)))


def _fresh_process_rankings(root: Path, cache: Path) -> list[list[tuple[str, float]]]:
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        found: list[list[tuple[str, float]]] = pool.apply(
            _rankings_in_a_fresh_process, (str(root), str(cache))
        )
    return [[(key, score) for key, score in query] for query in found]


@pytest.fixture
def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The index as a process that has not built one yet sees it (it keeps one from its second
    build on)."""
    monkeypatch.setattr(index_module, "_KEPT", LastKept())


def test_a_long_lived_process_reuses_its_index_until_a_skill_is_edited_added_or_removed(
    skill_root: Path,
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
    new_process: None,
) -> None:
    cache = tmp_path / "cache"
    first = SkillIndex.build(discover(skill_root), cache_dir=cache)
    kept = SkillIndex.build(discover(skill_root), cache_dir=cache)
    assert kept.meta is not first.meta  # a first build keeps nothing: a command that builds once
    ranked = _rankings(kept)  # computes the per-term weights the next build keeps
    again = SkillIndex.build(discover(skill_root), cache_dir=cache)
    assert again.meta is kept.meta and again.content is kept.content and again.grams is kept.grams
    assert again.stats.analysed == 0 and _rankings(again) == ranked
    changes: list[Callable[[], object]] = [
        lambda: make_skill(skill_root, "image-resize", "Rename photos by their EXIF capture date.", "# P\n"),
        lambda: make_skill(skill_root, "zz-subtitles", "Translate subtitles between languages.", ""),
        lambda: (skill_root / "git-release" / "SKILL.md").unlink(),
    ]
    for change in changes:
        change()
        skills = discover(skill_root)
        index = SkillIndex.build(skills, cache_dir=cache)
        assert index.meta is not again.meta and {d.key for d in index.docs} == {str(s.path) for s in skills}
        assert _rankings(index) == _rankings(SkillIndex.build(skills))
        assert _rankings(index) == _fresh_process_rankings(skill_root, cache)
        again = SkillIndex.build(skills, cache_dir=cache)
        assert again.meta is index.meta


def test_a_body_edited_under_the_same_skill_objects_is_indexed_again(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]], new_process: None
) -> None:
    """An agent keeps its skills for the whole session and ranks each turn: a body edit counts."""
    cache = tmp_path / "cache"
    skills = discover(skill_root)
    SkillIndex.build(skills, cache_dir=cache)
    kept = SkillIndex.build(skills, cache_dir=cache)
    assert SkillIndex.build(skills, cache_dir=cache).meta is kept.meta
    body = skill_root / "image-resize" / "SKILL.md"
    body.write_text(body.read_text(encoding="utf-8") + "\nRename photos with exiftool.\n", encoding="utf-8")
    edited = SkillIndex.build(skills, cache_dir=cache)
    assert edited.stats.analysed == 1 and rank(edited, "exiftool", top_k=1)[0].skill.name == "image-resize"
    assert _rankings(edited) == _rankings(SkillIndex.build(skills))


def test_a_reused_index_carries_the_skills_it_was_given(
    skill_root: Path, tmp_path: Path, discover: Callable[[Path], tuple[Skill, ...]], new_process: None
) -> None:
    """Stamps do not cover every field of a skill (e.g. ``trusted``): the documents follow the input."""
    cache = tmp_path / "cache"
    SkillIndex.build(discover(skill_root), cache_dir=cache)
    kept = SkillIndex.build(discover(skill_root), cache_dir=cache)
    untrusted = [dataclasses.replace(s, trusted=False) for s in discover(skill_root)]
    again = SkillIndex.build(untrusted, cache_dir=cache)
    assert again.meta is kept.meta
    assert {d.key: d.skill for d in again.docs} == {str(s.path): s for s in untrusted}
    assert all(d.skill is not None and not d.skill.trusted for d in again.docs)
