"""The markdown a short skill bundles, as the index reads it and follows its edits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import skillshelf.select.index as index_module
from skillshelf.lastkept import LastKept
from skillshelf.select import rank, rank_docs
from skillshelf.select.bodies import index_body
from skillshelf.select.index import SkillIndex
from skillshelf.skills.model import Skill


def _rankings(index: SkillIndex) -> list[list[tuple[str, float]]]:
    queries = ("flatten forms", "merge pdf", "split pages")
    return [[(r.doc.key, r.score) for r in rank_docs(index, q, top_k=3)] for q in queries]


def _zulu_bundling(
    make_skill: Callable[..., Path], root: Path, bundled: str, text: str, beta: str = ""
) -> Path:
    """Skills zulu (a short body naming ``bundled``, which holds ``text``) and beta (documents
    ``beta``) under ``root``; the bundled file."""
    short = make_skill(root, "zulu", "Helps with documents.", f"See {bundled}.\n")
    make_skill(root, "beta", f"Helps with documents {beta}".rstrip() + ".", "Nothing else here.\n")
    path = short.parent / bundled
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return path


def test_a_short_skill_is_found_by_the_markdown_it_bundles_and_a_full_one_reads_only_its_own(
    tmp_path: Path, make_skill: Callable[..., Path], discover: Callable[[Path], tuple[Skill, ...]]
) -> None:
    short = make_skill(tmp_path, "zulu", "Helps with documents.", "See references/forms.md.\n")
    make_skill(tmp_path, "beta", "Helps with documents.", "Nothing about that here.\n")
    full = make_skill(tmp_path, "gamma", "Helps with documents.", "word " * 1300)
    for path in (short, full):
        (path.parent / "references").mkdir()
        forms = path.parent / "references" / "forms.md"
        forms.write_text("# Forms\nFlatten with pdftk.\n", encoding="utf-8")
    skills = discover(tmp_path)
    index = SkillIndex.build(skills)
    assert [r.skill.name for r in rank(index, "documents with pdftk", top_k=3)][:1] == ["zulu"]
    assert index_body(next(s for s in skills if s.name == "gamma")).rstrip().endswith("word")


@pytest.mark.parametrize("builds", ["same skill objects", "skills found again", "a new process"])
def test_an_edit_to_a_bundled_file_the_body_read_is_indexed_again_and_nothing_else_is(
    builds: str,
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, cache = tmp_path / "skills", tmp_path / "cache"
    forms = _zulu_bundling(make_skill, root, "references/forms.md", "Merge with qpdf.\n", beta="and pdftk")
    skills = discover(root)

    def build() -> SkillIndex:
        if builds == "a new process":
            monkeypatch.setattr(index_module, "_KEPT", LastKept())
        return SkillIndex.build(skills if builds == "same skill objects" else discover(root), cache_dir=cache)

    monkeypatch.setattr(index_module, "_KEPT", LastKept())
    build()
    assert build().stats.analysed == 0 and build().stats.analysed == 0
    forms.write_text("Flatten forms with pdftk, then fill them again.\n", encoding="utf-8")
    edited = build()
    assert edited.stats.analysed == 1
    assert rank(edited, "flatten forms", top_k=1)[0].skill.name == "zulu"
    assert _rankings(edited) == _rankings(SkillIndex.build(discover(root)))  # as from scratch
    assert build().stats.analysed == 0
    (forms.parent / "more.md").write_text("Also splits pages.\n", encoding="utf-8")
    assert build().stats.analysed == 1 and build().stats.analysed == 0


def test_markdown_added_to_a_folder_with_no_file_read_reaches_the_index(
    tmp_path: Path,
    make_skill: Callable[..., Path],
    discover: Callable[[Path], tuple[Skill, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, cache = tmp_path / "skills", tmp_path / "cache"
    notes = _zulu_bundling(make_skill, root, "scripts/merge.py", "print('merge')\n").parent / "notes.md"
    monkeypatch.setattr(index_module, "_KEPT", LastKept())
    SkillIndex.build(discover(root), cache_dir=cache)
    notes.write_text("Flatten forms with pdftk.\n", encoding="utf-8")
    for kept in (True, False):  # in this process, and in a new one from the disk cache
        if not kept:
            monkeypatch.setattr(index_module, "_KEPT", LastKept())
            notes.write_text("Split pages with qpdf.\n", encoding="utf-8")
        index = SkillIndex.build(discover(root), cache_dir=cache)
        assert index.stats.analysed == 1
        query = "flatten forms with pdftk" if kept else "split pages with qpdf"
        assert rank(index, query, top_k=1)[0].skill.name == "zulu"
