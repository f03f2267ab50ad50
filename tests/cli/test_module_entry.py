"""`python -m skillshelf.cli.main` ends with the exit code the console script ends with."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.usefixtures("isolated_home")
def test_a_command_that_finds_problems_exits_1_when_run_as_a_module(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "bad"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: Not A Name\n---\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", "validate", str(skill.parent)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error(s)" in proc.stdout
