"""SkillTools' file calls agree with each other and stay in the folder discovery found: load_skill
lists no file read_skill_file refuses, and a skill folder swapped for a symlink is not read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from serve_helpers import make_skill_tree

from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.tools import SkillTools
from skillshelf.skills.discover import discover_in

pytestmark = pytest.mark.usefixtures("isolated_home")


def test_load_skill_lists_no_hard_linked_file_which_read_skill_file_would_refuse(tmp_path: Path) -> None:
    root = make_skill_tree(tmp_path)
    fields = root / "pdf-forms" / "references" / "fields.md"
    os.link(fields, fields.with_name("copy.md"))
    tools = SkillTools(discover_in([root]).skills)
    assert tools.dispatch("load_skill", {"name": "pdf-forms"}).data["files"] == [
        "scripts/fill.py",
        "assets/logo.png",
    ]
    for path in ("references/fields.md", "references/copy.md"):
        refused = tools.dispatch("read_skill_file", {"name": "pdf-forms", "path": path})
        assert refused.is_error and "SS403" in refused.text


def test_a_skill_folder_swapped_for_a_symlink_is_refused_by_read_skill_file(tmp_path: Path) -> None:
    root = make_skill_tree(tmp_path)
    tools = SkillTools(discover_in([root]).skills)
    os.rename(root / "pdf-forms", tmp_path / "aside")
    os.symlink(tmp_path / "aside", root / "pdf-forms")
    refused = tools.dispatch("read_skill_file", {"name": "pdf-forms", "path": "scripts/fill.py"})
    assert refused.is_error and "SS403" in refused.text


def test_the_resource_list_offers_no_file_of_a_skill_folder_swapped_for_a_symlink(tmp_path: Path) -> None:
    root = make_skill_tree(tmp_path)
    library = SkillLibrary.from_skills(discover_in([root]).skills)
    os.rename(root / "pdf-forms", tmp_path / "aside")
    os.symlink(tmp_path / "aside", root / "pdf-forms")
    offered = {(skill.name, rel) for skill, rel in library.all_files()}
    assert not any(name == "pdf-forms" for name, _rel in offered)
    assert ("release-notes", "SKILL.md") in offered
