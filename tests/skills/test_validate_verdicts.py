"""`validate`'s verdicts agree with its findings: a file no agent can load is checked and not loaded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.skills.validate import validate_paths
from testkit import IsolatedHome

SKILL = "---\nname: {name}\ndescription: Formats release notes from merged pull requests.\n---\nSteps.\n"


@pytest.mark.parametrize("profile", ["codex", "claude", "spec"])
def test_a_skill_md_that_is_a_fifo_is_checked_and_loaded_by_no_agent(
    tmp_path: Path, isolated_home: IsolatedHome, profile: str
) -> None:
    root = tmp_path / "skills"
    (root / "good").mkdir(parents=True)
    (root / "good" / "SKILL.md").write_text(SKILL.format(name="good"), encoding="utf-8")
    (root / "pipe").mkdir()
    os.mkfifo(root / "pipe" / "SKILL.md")
    report = validate_paths([root], profile=profile)  # type: ignore[arg-type]
    assert report.checked == 2
    verdicts = {check.path: (check.loaded, check.listed) for check in report.skills}
    assert verdicts[root / "pipe" / "SKILL.md"] == (False, False)
    assert [d.code for d in report.diagnostics if d.path == root / "pipe" / "SKILL.md"] == ["SK351"]


def test_a_folder_holding_only_a_broken_skill_md_link_counts_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    skill = tmp_path / "skills" / "gone"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to(tmp_path / "nowhere.md")
    report = validate_paths([tmp_path / "skills"])
    assert report.checked == 1 and not report.skills[0].loaded
    assert "SK350" in {d.code for d in report.diagnostics}


def test_a_skill_md_link_that_loops_is_called_a_loop_not_a_broken_link(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    skill = tmp_path / "skills" / "loop"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to("SKILL.md")
    for target in (tmp_path / "skills", skill / "SKILL.md"):
        [note] = [d for d in validate_paths([target]).diagnostics if d.code == "SK350"]
        assert "a loop of symbolic links" in note.message and "broken" not in note.message


def test_a_path_that_loops_is_called_a_loop_and_a_dangling_one_broken(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    report = validate_paths([tmp_path / "loop", tmp_path / "dangling"])
    messages = {d.path.name: d.message for d in report.diagnostics if d.code == "SK350" and d.path}
    assert messages == {
        "loop": "the path cannot be followed (a loop of symbolic links)",
        "dangling": "the path does not exist (a broken symbolic link)",
    }
