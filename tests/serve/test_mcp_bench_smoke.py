"""bench/mcp_load.py keeps working: a tiny run on a fixture tree (figures are not checked here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from serve_helpers import make_skill_tree

BENCH = Path(__file__).resolve().parents[2] / "bench" / "mcp_load.py"


def test_the_load_bench_runs_end_to_end_on_a_small_tree(tmp_path: Path, isolated_home: object) -> None:
    root = make_skill_tree(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--root",
            str(root),
            "--clients",
            "3",
            "--calls",
            "4",
            "--startup-runs",
            "1",
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=240,
        env=dict(os.environ),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "tools/list: tools                               4" in out
    assert "3 concurrent clients x 4 calls = 12 calls" in out and ", 0 tool errors" in out
    assert "load_skill" in out and "search_skills" in out and "p99" in out
