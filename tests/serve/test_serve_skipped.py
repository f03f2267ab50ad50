"""A name whose skill discovery skipped (its SKILL.md does not parse) is explained, not unknown:
load_skill says the skill exists but was skipped, with the problem and `skillshelf validate`."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_helpers import write_skill

from skillshelf.serve.library import SkillLibrary
from skillshelf.skills.discover import discover_in

pytestmark = pytest.mark.usefixtures("isolated_home")

BROKEN = "---\nname: {name}\ndescription: ok\n  bad: : indent\n   - x\n---\nbody\n"


def _library(tmp_path: Path, folder: str, name: str) -> tuple[SkillLibrary, Path]:
    root = tmp_path / "skills"
    write_skill(root, "fine", "A fine skill.", "# fine\n")
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(BROKEN.format(name=name), encoding="utf-8")
    return SkillLibrary.from_discover(lambda: discover_in([root])), path


def test_loading_a_skill_with_broken_yaml_says_it_was_skipped_and_why(tmp_path: Path) -> None:
    library, path = _library(tmp_path, "broken-yaml", "broken-yaml")
    result = library.tools.dispatch("load_skill", {"name": "broken-yaml"})
    assert result.is_error and result.data["code"] == "SK407"
    assert "exists but was skipped" in result.text and f"{path}:4: SK104: invalid YAML" in result.text
    assert f"skillshelf validate {path.parent}" in result.text and "list_skills" not in result.text


def test_a_skipped_skill_is_found_by_the_name_its_frontmatter_gives(tmp_path: Path) -> None:
    library, path = _library(tmp_path, "odd-folder", "deploy-helper")
    result = library.tools.dispatch("load_skill", {"name": "deploy-helper"})
    assert result.data["code"] == "SK407" and str(path) in result.text


def test_a_skipped_skill_is_explained_after_a_reload_and_other_names_stay_unknown(tmp_path: Path) -> None:
    library, _ = _library(tmp_path, "broken-yaml", "broken-yaml")
    library.reload()
    assert library.tools.dispatch("load_skill", {"name": "$broken-yaml"}).data["code"] == "SK407"
    unknown = library.tools.dispatch("load_skill", {"name": "no-such-skill"})
    assert unknown.data["code"] == "SK404" and "list_skills" in unknown.text
