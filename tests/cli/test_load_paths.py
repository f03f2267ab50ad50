"""`skillshelf load PATH` says why no skill is at a path it cannot use: nothing there, no
permission, a name too long, a SKILL.md that is not a regular file; and loads a skill whose
folder may be entered but not listed. Run as a process that mode bits bind (root without its
capability to bypass them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from testkit import IsolatedHome, bound_by_file_modes


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    prefix = bound_by_file_modes()
    script = "import sys; from skillshelf.cli.entry import main; sys.exit(main())"
    return subprocess.run(
        [*prefix, sys.executable, "-c", script, "load", *args, "--no-builtin"],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def _skill(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {folder.name}\ndescription: d\n---\nbody\n", "utf-8")
    return folder


@pytest.fixture
def base(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    return tmp_path


def test_a_folder_without_permissions_is_named_as_such_not_as_empty(base: Path) -> None:
    folder = _skill(base / "r" / "locked")
    folder.chmod(0o000)
    try:
        for arg in ("r/locked", "r/locked/SKILL.md"):
            result = _run(base, arg)
            assert result.returncode == 1, result.stderr
            assert "SK408" in result.stderr and "permission denied" in result.stderr, result.stderr
            assert "nothing is there" not in result.stderr and "holds no SKILL.md" not in result.stderr
            assert "fix: check the permissions" in result.stderr
    finally:
        folder.chmod(0o755)


def test_a_skill_md_that_is_a_fifo_is_named_as_such(base: Path) -> None:
    folder = base / "r" / "piped"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "SKILL.md")
    for arg in ("r/piped", "r/piped/SKILL.md"):
        result = _run(base, arg)
        assert result.returncode == 1 and "SK406" in result.stderr, result.stderr
        assert "is a FIFO, not a regular file" in result.stderr and "fix: make SKILL.md a regular file" in (
            result.stderr
        )


def test_a_name_longer_than_file_names_can_be_is_said_to_be_too_long(base: Path) -> None:
    (base / "r").mkdir()
    result = _run(base, f"r/{'x' * 300}/SKILL.md")
    assert result.returncode == 1 and "SK404" in result.stderr, result.stderr
    assert "too long" in result.stderr and "nothing is there" not in result.stderr


def test_a_missing_path_is_still_nothing_there(base: Path) -> None:
    result = _run(base, "r/absent/SKILL.md")
    assert result.returncode == 1 and "SK404" in result.stderr and "nothing is there" in result.stderr


def test_a_skill_whose_folder_can_be_entered_but_not_listed_loads(base: Path) -> None:
    folder = _skill(base / "r" / "enter-only")
    folder.chmod(0o311)
    try:
        result = _run(base, "r/enter-only")
    finally:
        folder.chmod(0o755)
    assert result.returncode == 0, result.stderr
    assert "<name>enter-only</name>" in result.stdout and "body" in result.stdout
