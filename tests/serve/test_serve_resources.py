"""The MCP resources' list entries: a skill whose files the list caps says so on its SKILL.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.serve.resources import parse_skill_uri, resource
from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import Skill


def _skill(root: Path) -> Skill:
    (root / "data-heavy").mkdir()
    (root / "data-heavy" / "SKILL.md").write_text(
        "---\nname: data-heavy\ndescription: Reads the tables.\n---\nBody\n", encoding="utf-8"
    )
    (skill,) = discover_in([root]).skills
    return skill


def test_a_capped_list_says_on_the_skill_md_how_many_files_it_leaves_out_and_how_to_read_them(
    tmp_path: Path,
) -> None:
    skill = _skill(tmp_path)
    capped = resource(skill, "SKILL.md", {}, more_files=29_500)
    assert capped.description is not None and capped.description.startswith("Reads the tables. (29,500 more")
    assert "read any of them by URI, skill://data-heavy/PATH" in capped.description
    assert parse_skill_uri("skill://data-heavy/PATH") == ("data-heavy", "PATH")
    bound = resource(skill, "SKILL.md", {}, more_files=95_000, more_at_least=True)
    assert "(at least 95,000 more file(s)" in (bound.description or "")


def test_an_uncapped_list_and_the_other_files_carry_no_such_note(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    assert resource(skill, "SKILL.md", {}).description == "Reads the tables."
    assert resource(skill, "data/t1.csv", {}, more_files=3).description is None


def test_the_library_counts_the_files_its_resource_list_leaves_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillshelf.serve.library as library_module
    from skillshelf.serve.library import SkillLibrary
    from skillshelf.serve.tools import SkillTools

    skill = _skill(tmp_path)
    for number in range(7):
        (skill.folder / f"t{number}.csv").write_text("a,b\n", encoding="utf-8")
    monkeypatch.setattr(library_module, "MAX_RESOURCE_FILES_PER_SKILL", 5)
    library = SkillLibrary(tools=SkillTools([skill]))
    assert library.unlisted_of(skill) == (0, False)  # nothing listed yet
    listed = [rel for _, rel in library.all_files()]
    assert listed[0] == "SKILL.md" and len(listed) == 1 + 5
    assert library.unlisted_of(skill) == (2, False)
    assert "(2 more" in (resource(skill, "SKILL.md", {}, more_files=2).description or "")
