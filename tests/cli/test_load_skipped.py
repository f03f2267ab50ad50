"""`skillshelf load NAME` of a skill discovery skipped says it exists but was skipped, and why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from testkit import IsolatedHome


def test_load_of_a_skill_with_broken_yaml_says_it_was_skipped_and_why(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    path = repo / ".agents" / "skills" / "broken-yaml" / "SKILL.md"
    path.parent.mkdir(parents=True)
    broken = "---\nname: broken-yaml\ndescription: ok\n  bad: : x\n   - y\n---\nbody\n"
    path.write_text(broken, encoding="utf-8")
    script = "import sys; from skillshelf.cli.entry import main; sys.exit(main())"
    result = subprocess.run(
        [sys.executable, "-c", script, "load", "broken-yaml", "--no-builtin"],
        cwd=repo,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "error SK407: skill 'broken-yaml' exists but was skipped" in result.stderr
    assert f"{path}:4: SK104" in result.stderr and f"skillshelf validate {path.parent}" in result.stderr
