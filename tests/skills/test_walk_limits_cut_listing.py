"""An entry limit reached inside one folder's listing: what was left unread decides whether
skills are reported missing (folders and SKILL.md files among it), not the cut itself."""

from __future__ import annotations

import os
from pathlib import Path

from skill_tree_helpers import repo_root, write_skill

from skillshelf.diagnostics import Severity
from skillshelf.skills.walk import ScanLimits, WalkResult, walk_claude_root, walk_root
from skillshelf.skills.walk_limits import limit_diagnostics

LIMITS = ScanLimits(max_entries=20)


def _many_files(folder: Path, count: int, prefix: str = "f") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"{prefix}{i:03d}.md").touch()


def _walk(root: Path) -> WalkResult:
    return walk_root(str(root), follow_symlinks=True, limits=LIMITS)


def _names(result: WalkResult, root: Path) -> list[str]:
    return sorted(os.path.relpath(f.path, root) for f in result.files)


def test_a_cut_among_bundled_files_alone_claims_no_missing_skill(tmp_path: Path) -> None:
    for name in ("aa", "many", "zz"):
        write_skill(tmp_path / name, name)
    _many_files(tmp_path / "many" / "references", 40)
    result = _walk(tmp_path)
    assert _names(result, tmp_path) == ["aa/SKILL.md", "many/SKILL.md", "zz/SKILL.md"]
    assert result.truncated and result.stopped_in == str(tmp_path / "many" / "references")
    assert result.unvisited_dirs == 0
    (note,) = limit_diagnostics(repo_root(tmp_path), result, LIMITS)
    assert note.code == "SK215" and note.severity is Severity.INFO
    assert "no skill is missing" in note.message and "skills in them are missing" not in note.message
    assert "SKILLSHELF_SCAN_MAX_ENTRIES" in note.fix


def test_a_skill_folder_after_the_cut_counts_as_unscanned_and_is_reported_missing(tmp_path: Path) -> None:
    for name in ("aa", "many", "zz"):
        write_skill(tmp_path / name, name)
    _many_files(tmp_path / "many" / "references", 40)
    write_skill(tmp_path / "many" / "references" / "zzz-nested", "nested")
    result = _walk(tmp_path)
    assert "many/references/zzz-nested/SKILL.md" not in _names(result, tmp_path)
    assert result.unvisited_dirs == 1
    (warning,) = limit_diagnostics(repo_root(tmp_path), result, LIMITS)
    assert warning.code == "SK213" and warning.severity is Severity.WARNING
    assert "1 folder(s) were left unscanned" in warning.message and "missing" in warning.message


def test_an_unread_skill_file_of_the_cut_folder_counts_it_as_unscanned(tmp_path: Path) -> None:
    write_skill(tmp_path / "late", "late")
    _many_files(tmp_path / "late", 30, prefix="A")  # sorted before SKILL.md
    result = _walk(tmp_path)
    assert result.files == [] and result.stopped_in == str(tmp_path / "late")
    assert result.unvisited_dirs == 1
    assert [d.code for d in limit_diagnostics(repo_root(tmp_path), result, LIMITS)] == ["SK213"]


def test_hidden_folders_after_the_cut_are_not_counted_as_unscanned(tmp_path: Path) -> None:
    write_skill(tmp_path / "many", "many")
    _many_files(tmp_path / "many" / "references", 40, prefix=".a")  # sorted before `.zz`
    (tmp_path / "many" / "references" / ".zz").mkdir()
    (tmp_path / "many" / "references" / "zz-shown").mkdir()
    result = _walk(tmp_path)
    assert result.unvisited_dirs == 1  # zz-shown; the walk never enters `.zz`


def test_a_claude_root_cut_short_counts_the_skill_folders_it_did_not_look_at(tmp_path: Path) -> None:
    for i in range(4):
        write_skill(tmp_path / f"s{i}", f"s{i}")
    result = walk_claude_root(str(tmp_path), limits=ScanLimits(max_entries=2))
    assert _names(result, tmp_path) == ["s0/SKILL.md", "s1/SKILL.md"]
    assert result.unvisited_dirs == 2 and result.stopped_in == str(tmp_path)
    (warning,) = limit_diagnostics(repo_root(tmp_path), result, ScanLimits(max_entries=2))
    assert warning.code == "SK213" and "2 folder(s) were left unscanned" in warning.message
