"""`skillshelf list` on a root whose scan was cut: one note for the cut, and a claim of missing
skills only when folders were left."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from skillshelf.cli.main import cli
from testkit import IsolatedHome

NOT_VISITED = "folder(s) were not visited"


def _list(cwd: Path) -> Result:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(
            cli,
            ["list", "--no-builtin", "--no-cache"],
            env={"SKILLSHELF_SCAN_MAX_ENTRIES": "20"},
            catch_exceptions=False,
        )
    assert result.exit_code == 0, result.stderr
    return result


@pytest.fixture
def skill_with_many_files(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    folder = repo / ".agents" / "skills" / "manyfiles"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: manyfiles\ndescription: okapi.\n---\nx\n", "utf-8")
    for i in range(40):  # twice the entry limit, all bundled files
        (folder / "references" / f"r{i:02d}.md").write_text("x", "utf-8")
    return repo


def test_a_scan_cut_inside_bundled_files_prints_no_folders_not_visited_line(
    skill_with_many_files: Path,
) -> None:
    result = _list(skill_with_many_files)
    assert result.stdout.startswith("manyfiles\t")
    assert NOT_VISITED not in result.stderr
    assert "SK215" in result.stderr and "no skill is missing" in result.stderr


def test_a_scan_cut_with_a_folder_left_is_told_once_by_its_finding(skill_with_many_files: Path) -> None:
    late = skill_with_many_files / ".agents" / "skills" / "manyfiles" / "references" / "zz"
    late.mkdir()
    result = _list(skill_with_many_files)
    assert result.stderr.count("SK213") == 1 and "1 folder(s) were left unscanned" in result.stderr
    assert NOT_VISITED not in result.stderr
