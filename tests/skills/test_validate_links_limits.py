"""Validation over links it cannot follow, folders it cannot list, and how far its walk goes."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillshelf.diagnostics import Diagnostic
from skillshelf.skills.validate import validate_paths
from skillshelf.skills.validate_walk import WalkLimits
from testkit import IsolatedHome

SKILL = "---\nname: {name}\ndescription: Formats release notes from merged pull requests.\n---\nSteps.\n"


def skill_at(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(SKILL.format(name=name), encoding="utf-8")
    return path


def findings(diagnostics: tuple[Diagnostic, ...], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


def test_a_link_whose_target_cannot_be_read_is_a_finding_not_a_crash(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    skill_at(root / "a", "a")
    refused = root / "a" / "cwd.md"
    os.symlink(tmp_path / "elsewhere", refused)  # as /proc/1/cwd: stat and readlink both refused
    real_readlink = os.readlink

    def refusing(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) == str(refused):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_readlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", refusing)
    report = validate_paths([root])
    assert report.checked == 1 and report.ok
    assert [d.path for d in findings(report.diagnostics, "SK205")] == [refused]


def test_a_broken_link_in_a_skill_is_reported_once_by_the_codex_profile(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = tmp_path / "project"
    skill_at(project / ".agents" / "skills" / "a", "a")
    skill_at(project / "loose", "loose")  # the PATH is scanned as a root too, nested root included
    broken = project / ".agents" / "skills" / "a" / "gone.md"
    os.symlink(tmp_path / "nothing", broken)
    report = validate_paths([project])
    assert [d.path for d in findings(report.diagnostics, "SK205")] == [broken]


def test_the_codex_scan_goes_no_further_than_the_walk(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.skills import discover

    asked: list[Any] = []
    real_discover_in = discover.discover_in

    def recording(roots: Any, **kwargs: Any) -> Any:
        asked.append(kwargs["limits"])
        return real_discover_in(roots, **kwargs)

    monkeypatch.setattr(discover, "discover_in", recording)
    root = tmp_path / "skills"
    skill_at(root / "a", "a")
    for i in range(60):  # a tree far larger than the walk may see, linked in (as a link to / would be)
        (tmp_path / "elsewhere" / f"d{i:02d}" / "inner").mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere", root / "everything")
    walk = WalkLimits(max_dirs=40, max_entries=400)
    report = validate_paths([root], limits=walk)
    assert [(lim.max_dirs, lim.max_entries) for lim in asked] == [(40, 400)]
    assert any("the walk stopped at" in d.message for d in findings(report.diagnostics, "SK359"))
    default = WalkLimits()
    codex = discover.ScanLimits()
    assert default.max_dirs <= 5 * codex.max_dirs and default.max_entries <= 5 * codex.max_entries


def _mkdirs_beneath(top: Path, names: list[str]) -> Iterator[int]:
    """Create ``names`` one inside the other below ``top`` through folder descriptors (their
    path may pass PATH_MAX), giving each one's descriptor."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
            yield fd
    finally:
        os.close(fd)


def test_a_folder_past_path_max_is_reported_with_the_systems_reason(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    base = tmp_path.joinpath(*(f"p{i:02d}" + "x" * 250 for i in range(14)))
    base.mkdir(parents=True)
    root = base / "skills"
    skill_at(root / "short", "short")
    names = ["L" * 200, "M" * 250, "N" * 250]
    for depth, fd in enumerate(_mkdirs_beneath(root, names)):
        if depth == len(names) - 1:
            with open(
                os.open("SKILL.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w", encoding="utf-8"
            ) as f:
                f.write(SKILL.format(name="toolong"))
    too_long = root.joinpath(*names)
    assert len(str(too_long)) > os.pathconf("/", "PC_PATH_MAX")
    report = validate_paths([root])
    [finding] = [d for d in findings(report.diagnostics, "SK359") if d.path == too_long]
    assert os.strerror(errno.ENAMETOOLONG) in finding.message
    assert "permissions" not in finding.fix and "shorten the path" in finding.fix


def test_an_unlisted_folder_says_why(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.skills import validate_walk

    root = tmp_path / "skills"
    skill_at(root / "one", "one")
    odd = root / "odd"
    skill_at(odd, "odd")
    real_list = validate_walk._list

    def failing(path: Path) -> object:
        return OSError(errno.EIO, os.strerror(errno.EIO), str(path)) if path == odd else real_list(path)

    monkeypatch.setattr(validate_walk, "_list", failing)
    [finding] = [d for d in findings(validate_paths([root]).diagnostics, "SK359") if d.path == odd]
    assert os.strerror(errno.EIO) in finding.message and "permissions" not in finding.fix
