"""`validate`'s note on a PATH over Codex's scan limits: a warning only when Codex skips a skill."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.diagnostics import Severity
from skillshelf.skills import validate_limits
from skillshelf.skills.validate import validate_paths
from testkit import IsolatedHome

SKILL = "---\nname: {name}\ndescription: Formats release notes from merged pull requests.\n---\nSteps.\n"


@pytest.fixture
def small_codex_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex's entry limit as 30 (its 20,000 in a test of a few files)."""
    monkeypatch.setattr(validate_limits, "CODEX_MAX_ENTRIES", 30)


def skill_with_many_references(root: Path) -> Path:
    folder = root / "manyfiles"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(name="manyfiles"), encoding="utf-8")
    for i in range(40):
        (folder / "references" / f"r{i:02d}.md").write_text("x", encoding="utf-8")
    return folder


def test_a_limit_reached_inside_bundled_files_is_an_info_that_no_skill_is_missing(
    tmp_path: Path, isolated_home: IsolatedHome, small_codex_limits: None
) -> None:
    root = tmp_path / "skills"
    skill_with_many_references(root)
    report = validate_paths([root])
    assert report.checked == 1 and report.ok
    assert not [d for d in report.diagnostics if d.code == "SK359"]
    [note] = [d for d in report.diagnostics if d.code == "SK371"]
    assert note.severity is Severity.INFO and "no skill is missing" in note.message
    assert "skip" not in note.message


def test_a_skill_in_a_folder_past_codexs_cut_still_gets_the_warning(
    tmp_path: Path, isolated_home: IsolatedHome, small_codex_limits: None
) -> None:
    root = tmp_path / "skills"
    folder = skill_with_many_references(root)
    late = folder / "references" / "zz"  # listed after the 40 files: Codex's scan never enters it
    late.mkdir()
    (late / "SKILL.md").write_text(SKILL.format(name="late"), encoding="utf-8")
    report = validate_paths([root])
    assert report.checked == 2
    [warning] = [d for d in report.diagnostics if d.code == "SK359"]
    assert warning.severity is Severity.WARNING and "skip some skills silently" in warning.message
    assert "1 of the skills" in warning.message
    assert not [d for d in report.diagnostics if d.code == "SK371"]


def test_a_root_within_codexs_limits_gets_no_note(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    root = tmp_path / "skills"
    skill_with_many_references(root)
    codes = {d.code for d in validate_paths([root]).diagnostics}
    assert not codes & {"SK359", "SK371"}
