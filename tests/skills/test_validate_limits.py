"""`validate`'s note on a PATH over Codex's scan limits: a warning only when Codex skips a skill."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.diagnostics import Severity
from skillshelf.skills import validate_limits
from skillshelf.skills.validate import validate_paths
from skillshelf.skills.validate_walk import WalkLimits
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


def test_a_skill_codexs_scan_misses_is_not_counted_as_loaded(
    tmp_path: Path, isolated_home: IsolatedHome, small_codex_limits: None
) -> None:
    root = tmp_path / "skills"
    folder = skill_with_many_references(root)
    (folder / "references" / "zz").mkdir()
    (folder / "references" / "zz" / "SKILL.md").write_text(SKILL.format(name="late"), encoding="utf-8")
    report = validate_paths([root])
    assert {check.name: check.loaded for check in report.skills} == {"manyfiles": True, "late": False}
    assert not [check for check in report.skills if check.listed and not check.loaded]


@pytest.mark.parametrize("late_folder", [False, True], ids=["bundled-files-only", "a-folder-past-the-cut"])
def test_a_cut_of_validates_own_walk_is_told_in_codexs_note_once(
    tmp_path: Path, isolated_home: IsolatedHome, small_codex_limits: None, late_folder: bool
) -> None:
    root = tmp_path / "skills"
    folder = skill_with_many_references(root)
    if late_folder:
        (folder / "references" / "zz").mkdir()
    report = validate_paths([root], limits=WalkLimits(max_entries=35))
    [note] = [d for d in report.diagnostics if d.code in {"SK359", "SK371"}]
    assert note.code == ("SK359" if late_folder else "SK371")
    assert "Codex's scan limits" in note.message
    assert "validate's own walk stopped at the 35-entry limit too" in note.message


def test_a_walk_cut_by_its_depth_limit_keeps_its_own_note_beside_codexs(
    tmp_path: Path, isolated_home: IsolatedHome, small_codex_limits: None
) -> None:
    root = tmp_path / "skills"
    skill_with_many_references(root)
    (root / "a" / "b" / "c").mkdir(parents=True)
    report = validate_paths([root], limits=WalkLimits(max_depth=2))
    [codex, cut] = sorted(
        (d for d in report.diagnostics if d.code in {"SK359", "SK371"}), key=lambda d: d.message
    )
    assert "Codex's scan limits" in codex.message and "validate's own walk" not in codex.message
    assert cut.message.startswith("the walk stopped at the depth limit of 2")


def test_a_walk_cut_leaving_folders_codex_never_enters_keeps_the_walks_warning(
    tmp_path: Path, isolated_home: IsolatedHome, small_codex_limits: None
) -> None:
    root = tmp_path / "skills"
    skill_with_many_references(root)
    (root / ".hidden" / "x" / "y").mkdir(parents=True)  # the walk lists hidden folders; Codex does not
    report = validate_paths([root], limits=WalkLimits(max_entries=35))
    [note] = [d for d in report.diagnostics if d.code in {"SK359", "SK371"}]
    assert note.code == "SK359" and note.message.startswith("the walk stopped at the 35-entry limit")
    assert "Codex stops earlier" in note.message
