"""After a crash: a SIGKILLed `memory run` is rerun at once and every session is extracted exactly
once; `memory status` shows sessions, stuck and stale leases; `memory recover` frees them;
`-c memory.lease_seconds` applies to leases already taken; `memory reset` clears this project's
stuck jobs and refuses to guess without a terminal; sessions too recent to extract say so."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import ScriptedModel, run_cli, write_skillshelf_transcript

from skillshelf.memory.store import STAGE1, open_store

PHASE1 = "Session to analyse"
OLD = time.time() - 10 * 3600


_cli = run_cli


def _sessions(folder: Path, project: Path, n: int, mtime: float = OLD) -> Path:
    for i in range(n):
        write_skillshelf_transcript(
            folder / f"{i:03d}.jsonl", session_id=f"sess-{i:03d}", cwd=project, task=f"task {i}", mtime=mtime
        )
    return folder


def _run_args(folder: Path, db: str, model: ScriptedModel, *extra: str) -> list[str]:
    return [
        "memory",
        "run",
        "--sessions",
        str(folder),
        "--db",
        db,
        "--model",
        "openai:small",
        "--base-url",
        model.url + "/v1",
        "--phase",
        "1",
        "--json",
        *extra,
    ]


def _wait(condition: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _outputs(db: str) -> dict[str, str]:
    with open_store(db) as store:
        return {o.session_id: o.raw_memory for o in store.outputs()}


def test_a_sigkilled_memory_run_rerun_at_once_extracts_every_session_exactly_once(
    project: Path,
    tmp_path: Path,
    store_url: str,
    scripted_model: ScriptedModel,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _sessions(tmp_path / "sessions", project, 6)
    slow = {"on": True}  # the first two sessions claimed (newest id first) answer, the rest hang
    fast = ("sessions/005.jsonl", "sessions/004.jsonl")
    scripted_model.delay = lambda body: (
        0.0 if not slow["on"] or any(f in json.dumps(body) for f in fast) else 60.0
    )
    argv = _run_args(folder, store_url, scripted_model, "-c", "memory.concurrency=3")  # default 1 h leases
    killed = subprocess.Popen(
        [sys.executable, "-c", "from skillshelf.cli.main import main; main()", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        _wait(lambda: scripted_model.count(PHASE1) >= 5, "the run never had 3 extractions in flight")
        _wait(lambda: len(_outputs(store_url)) == 2, "the first two extractions were not stored")
    finally:
        os.kill(killed.pid, signal.SIGKILL)
        killed.communicate()
    assert killed.returncode == -signal.SIGKILL
    done_before = _outputs(store_url)
    slow["on"] = False

    code, out, err = _cli(capsys, *argv)  # at once: no waiting for the hour-long leases

    assert code == 0, err
    report = json.loads(out)
    assert report["claimed"] == 4 and report["phase1"] == {"extracted": 4}
    assert sorted(r["key"] for r in report["recovered"]) == sorted(
        f"sess-{i:03d}" for i in range(6) if f"sess-{i:03d}" not in done_before
    )
    assert {r["state"] for r in report["recovered"]} == {"stuck"}
    outputs = _outputs(store_url)
    assert sorted(outputs) == [f"sess-{i:03d}" for i in range(6)]  # none lost
    assert all(outputs[key] == raw for key, raw in done_before.items())  # the finished ones kept
    later = [json.dumps(r["body"]) for r in scripted_model.requests[5:]]
    redone = [m for body in later for m in re.findall(r"sessions/(\d{3})\.jsonl", body)]
    assert sorted(redone) == sorted(k[-3:] for k in outputs if k not in done_before)  # each once
    with open_store(store_url) as store:
        assert all((store.job(STAGE1, key) or {}).get("status") == "done" for key in outputs)


def test_status_lists_sessions_and_a_stuck_lease_and_recover_frees_it(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _sessions(tmp_path / "sessions", project, 3)
    db = f"sqlite:///{tmp_path / 'state.sqlite'}"
    code, _, err = _cli(capsys, *_run_args(folder, db, scripted_model))
    assert code == 0, err
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    dead_pid = int(gone.stdout)  # a process that has ended (pids are not reused this fast)
    with open_store(db) as store:
        store.execute_for_tests(
            "UPDATE jobs SET status = 'running', ownership_token = 't', lease_until_ms = ?, holder_host = ?, "
            "holder_pid = ?, holder_start = '', last_success_watermark = NULL WHERE job_key = 'sess-001'",
            (int(time.time() * 1000) + 3_600_000, socket.gethostname(), dead_pid),
        )
        store.execute_for_tests("DELETE FROM stage1_outputs WHERE session_id = 'sess-001'")

    code, out, _ = _cli(capsys, "memory", "status", "--db", db, "--json")
    status = json.loads(out)
    assert code == 0 and status["stuck_leases"] == 1 and status["stale_leases"] == 0
    states = {s["id"]: s["state"] for s in status["session_list"]}
    assert states == {"sess-000": "extracted", "sess-001": "stuck", "sess-002": "extracted"}
    [lease] = status["leases"]
    assert lease["key"] == "sess-001" and lease["pid"] == dead_pid and "ME050" in lease["reason"]
    code, out, _ = _cli(capsys, "memory", "status", "--db", db)
    assert code == 0 and "1 stuck" in out and "sess-001" in out and "memory recover" in out

    code, out, _ = _cli(capsys, "memory", "recover", "--db", db, "--json")
    freed = json.loads(out)["freed"]
    assert code == 0 and [f["key"] for f in freed] == ["sess-001"]
    code, out, _ = _cli(capsys, "memory", "status", "--db", db, "--json")
    status = json.loads(out)
    assert (
        status["leases"] == []
        and {s["id"]: s["state"] for s in status["session_list"]}["sess-001"] == "pending"
    )
    code, out, _ = _cli(capsys, *_run_args(folder, db, scripted_model))
    assert json.loads(out)["phase1"] == {"extracted": 1}


def test_lease_seconds_override_frees_a_silent_lease_of_another_host_only(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _sessions(tmp_path / "sessions", project, 2)
    db = f"sqlite:///{tmp_path / 'state.sqlite'}"
    _cli(capsys, *_run_args(folder, db, scripted_model))
    now = int(time.time() * 1000)
    with open_store(db) as store:
        store.execute_for_tests("DELETE FROM stage1_outputs")
        for key, beat_ago in (("sess-000", 30_000), ("sess-001", 500)):  # another host: cannot be probed
            store.execute_for_tests(
                "UPDATE jobs SET status = 'running', ownership_token = 't', lease_until_ms = ?, "
                "holder_host = 'elsewhere', holder_pid = 1, beat_every_ms = 2000, beat_at_ms = ? "
                "WHERE job_key = ?",
                (now + 3_600_000, now - beat_ago, key),
            )
    code, out, _ = _cli(capsys, "memory", "status", "--db", db, "--json")
    assert json.loads(out)["stale_leases"] == 0  # with the default hour, both are live
    code, out, _ = _cli(capsys, "memory", "recover", "--db", db, "--json", "-c", "memory.lease_seconds=1")
    assert [f["key"] for f in json.loads(out)["freed"]] == ["sess-000"]  # silent 30 s > max(1 s, 2 beats)
    assert [f["key"] for f in json.loads(out)["live"]] == ["sess-001"]  # beat 0.5 s ago: still held


def test_reset_yes_clears_this_projects_stuck_jobs(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _sessions(tmp_path / "sessions", project, 2)
    db = f"sqlite:///{tmp_path / 'state.sqlite'}"
    _cli(capsys, *_run_args(folder, db, scripted_model))
    with open_store(db) as store:
        store.execute_for_tests("DELETE FROM stage1_outputs WHERE session_id = 'sess-001'")
        store.execute_for_tests(
            "UPDATE jobs SET status = 'running', ownership_token = 't', lease_until_ms = ?, "
            "last_success_watermark = NULL WHERE job_key = 'sess-001'",
            (int(time.time() * 1000) + 3_600_000,),
        )
    code, out, err = _cli(capsys, "memory", "reset", "--yes", "--db", db, "--json")
    assert code == 0, err
    with open_store(db) as store:
        assert store.job(STAGE1, "sess-001") is None  # the stuck job is gone with the memories
    assert json.loads(out)["rows"] == 1 and json.loads(out)["jobs"] == 1
    code, out, _ = _cli(capsys, *_run_args(folder, db, scripted_model))
    assert json.loads(out)["phase1"] == {"extracted": 2}


def test_reset_without_a_terminal_says_use_yes_and_exits_2(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, _, err = _cli(capsys, "memory", "reset", "--db", str(tmp_path / "s.sqlite"))
    assert code == 2 and "ME017" in err and "--yes" in err


def test_sessions_too_recent_to_extract_are_reported_with_the_reason(
    project: Path, tmp_path: Path, scripted_model: ScriptedModel, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _sessions(tmp_path / "sessions", project, 1)
    write_skillshelf_transcript(folder / "new.jsonl", session_id="fresh", cwd=project, task="just now")
    db = f"sqlite:///{tmp_path / 'state.sqlite'}"
    argv = [a for a in _run_args(folder, db, scripted_model) if a != "--json"]
    code, out, err = _cli(capsys, *argv, "--min-idle-hours", "2")
    assert code == 0, err
    assert "skipped fresh (too recent): last written" in out and "idle for 2 h" in out
    code, out, _ = _cli(capsys, *argv, "--min-idle-hours", "2", "--json")
    [skipped] = json.loads(out)["skipped"]
    assert (
        skipped["id"] == "fresh"
        and skipped["state"] == "too_recent"
        and "--min-idle-hours" in skipped["reason"]
    )
    code, out, _ = _cli(capsys, *argv, "--min-idle-hours", "2", "--json", "--dry-run")
    assert [s["id"] for s in json.loads(out)["skipped"]] == ["fresh"]
