"""scripts/make_transcript_fixtures.py drives the real Codex and Claude Code CLIs offline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skillshelf.memory.transcripts import read_transcript
from testkit import SHARED, missing, shared_path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "make_transcript_fixtures.py"


@pytest.mark.oracle
def test_the_script_writes_real_transcripts_both_readers_understand(tmp_path: Path) -> None:
    shared_path("tools/model-standin")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path), "--shared", str(SHARED)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    if proc.returncode == 3:
        missing("the Codex / Claude Code CLIs are not installed (run the oracles once)")
    assert proc.returncode == 0, proc.stderr
    sessions = [read_transcript(p) for p in sorted(tmp_path.rglob("*.jsonl"))]
    assert sorted(s.source for s in sessions if s) == ["claude", "claude", "codex", "codex"]
    for session in sessions:
        assert session is not None and session.skipped_lines == 0
        assert any(i.kind == "tool_result" for i in session.items)
