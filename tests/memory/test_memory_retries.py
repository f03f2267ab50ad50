"""What `memory run` and `memory status` say of a session whose extraction keeps failing."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, default_reply, run_cli, write_skillshelf_transcript


def _run(capsys: pytest.CaptureFixture[str], transcript: Path, url: str) -> tuple[int, str, str]:
    return run_cli(
        capsys,
        *("memory", "run", "--phase", "1", "--sessions", str(transcript), "--min-idle-hours", "0"),
        *("--model", "openai:small", "--base-url", f"{url}/v1", "-c", "memory.retry_delay_seconds=0"),
    )


def test_the_run_that_uses_the_last_retry_says_what_tries_the_session_again(
    project: Path, isolated_home: Any, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = write_skillshelf_transcript(
        isolated_home.home / "t" / "a.jsonl",
        session_id="flaky",
        cwd=project,
        task="tests use make check",
        mtime=time.time() - 3600,
    )
    scripted_model.reply = lambda body, n: "not json"
    for _ in range(2):
        code, _, err = _run(capsys, transcript, scripted_model.url)
        assert code == 1 and "failed jobs are tried again after a backoff" in err
        assert "no retries left" not in err
    code, _, err = _run(capsys, transcript, scripted_model.url)
    assert code == 1 and "after a backoff" not in err
    assert "flaky: no retries left; extracted again once its transcript changes (`touch` it" in err

    code, out, _ = run_cli(capsys, "memory", "status", "--json")
    (row,) = json.loads(out)["session_list"]
    assert row["state"] == "gave_up" and "`touch` it to try again" in row["reason"]
    assert "memory reset" not in row["reason"]

    scripted_model.reply = default_reply
    os.utime(transcript)  # what the note says brings it back
    code, out, err = _run(capsys, transcript, scripted_model.url)
    assert code == 0, err
    assert "1 extracted" in out
