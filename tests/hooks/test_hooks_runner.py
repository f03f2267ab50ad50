"""A hook never breaks the agent: bad input, failures and slowness give the empty answer,
exit 0, and a line in the hook log."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import context_text, hook_input, make_project, run_python

from skillshelf.env import Env
from skillshelf.hooks import events
from skillshelf.hooks.hooklog import jobs_log_path
from skillshelf.hooks.runner import HookRun, log_path, run_hook, spawn_detached


def _log_lines(state: Path) -> list[str]:
    return log_path(state).read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"garbage", "not JSON"),
        (b"", "hook input is empty: the agent wrote no JSON on stdin"),
        (b" \r\n", "hook input is empty"),
        (b"null", "is a JSON NoneType"),
        (b"[1, 2]", "is a JSON list"),
        (b'{"hook_event_name": "Stop", "prompt": "x"}', "is for 'Stop'"),
        (b"\xff\xfe{", "not JSON"),
    ],
)
def test_bad_input_gives_the_empty_answer_and_a_log_line(isolated_home: Any, raw: bytes, why: str) -> None:
    env = make_project(isolated_home)
    run = run_hook("codex", "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state)
    assert (run.answer, run.status) == (b"", "error")
    line = _log_lines(env.dirs.state)[-1]
    assert " codex UserPromptSubmit error " in line and why in line


def test_an_unknown_event_is_answered_empty(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    run = run_hook("claude", "PreCompact", b"{}", env=env, state_dir=env.dirs.state)
    assert (run.answer, run.status) == (b"", "error") and "no hook for the event 'PreCompact'" in run.detail


def test_a_failure_inside_the_work_is_logged_with_its_code_and_secrets_redacted(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.errors import StoreError

    def broken(*args: object) -> str:
        raise StoreError("db at postgresql://u:hunter2hunter2@h/db is gone", code="ME012")

    monkeypatch.setitem(events.HANDLERS, "Stop", broken)
    env = make_project(isolated_home)
    run = run_hook("codex", "Stop", hook_input("Stop", env), env=env, state_dir=env.dirs.state)
    assert (run.answer, run.status) == (b"", "error")
    assert run.detail.startswith("ME012: db at") and "hunter2hunter2" not in run.detail


def _late_prompt(env: Env, monkeypatch: pytest.MonkeyPatch) -> tuple[HookRun, list[list[str]]]:
    """A prompt hook whose work outlasts its 0.2 s deadline, and the jobs it started detached."""
    release = threading.Event()
    spawned: list[list[str]] = []
    monkeypatch.setitem(events.HANDLERS, "UserPromptSubmit", lambda *args: str(release.wait(30)))
    monkeypatch.setattr("skillshelf.hooks.runner.spawn_detached", lambda args, **kw: spawned.append(args))
    raw = hook_input("UserPromptSubmit", env, prompt="anything")
    run = run_hook("claude", "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state, deadline=0.2)
    release.set()
    return run, spawned


def test_work_past_the_deadline_answers_empty_at_once_and_warms_in_the_background(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, spawned = _late_prompt(make_project(isolated_home), monkeypatch)
    assert (run.answer, run.status, run.timed_out) == (b"", "timeout", True)
    assert spawned == [["hook", "warm", "--agent", "claude"]]


def test_work_past_the_deadline_starts_no_warm_up_when_the_cache_cannot_be_written(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = isolated_home.home / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    env = make_project(isolated_home)
    env = dataclasses.replace(env, dirs=dataclasses.replace(env.dirs, cache=blocker / "cache"))
    run, spawned = _late_prompt(env, monkeypatch)
    assert (run.status, run.timed_out, spawned) == ("timeout", True, [])
    assert "no warm-up: the cache folder" in _log_lines(env.dirs.state)[-1]


def test_a_damaged_index_cache_is_rebuilt_and_the_answer_still_comes(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    raw = hook_input("UserPromptSubmit", env, prompt="fill in the PDF form fields")
    first = run_hook("claude", "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state)
    caches = list((isolated_home.cache / "skillshelf").rglob("index-*.bin"))
    assert first.status == "ok" and caches
    for cache in caches:
        cache.write_bytes(os.urandom(512))
    raw = hook_input("UserPromptSubmit", env, prompt="fill in the PDF form fields")  # the next turn
    again = run_hook("claude", "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state)
    assert again.answer == first.answer


def _hook_process(event: str, stdin: bytes, cwd: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    return run_python(["-m", "skillshelf.cli.main", "hook", event, "--agent", "codex"], cwd, stdin, **env)


def test_the_hook_command_exits_0_with_no_output_on_garbage(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    done = _hook_process("UserPromptSubmit", b"\x00not json at all", env.cwd)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_the_hook_command_answers_in_the_agents_format(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    done = _hook_process(
        "UserPromptSubmit", hook_input("UserPromptSubmit", env, prompt="write the release notes"), env.cwd
    )
    assert done.returncode == 0 and done.stderr == b""
    assert "- release-notes: " in context_text(done.stdout)


def test_the_hook_command_exits_0_when_the_state_folder_cannot_be_made(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    blocker = isolated_home.home / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    done = _hook_process(
        "Stop", hook_input("Stop", env), env.cwd, SKILLSHELF_STATE_DIR=str(blocker / "state")
    )
    assert (done.returncode, done.stdout) == (0, b"")


@pytest.mark.parametrize(
    ("event", "asked", "limit"),
    [
        ("UserPromptSubmit", None, 5.0),
        ("Stop", None, 2.0),
        ("UserPromptSubmit", 30.0, 9.0),  # kept under the 10 s the agents allow
        ("SessionEnd", 9.0, 2.0),  # Codex clamps SessionEnd to 3 s
        ("UserPromptSubmit", 0.0, 0.0),
        ("warm", 9.0, 0.0),  # a detached warm-up inherits the variable but is never cut short
    ],
)
def test_deadlines_stay_under_the_agents_timeouts(event: str, asked: float | None, limit: float) -> None:
    from skillshelf.hooks.deadlines import work_limit

    assert work_limit(event, asked) == limit


def test_a_detached_job_writes_its_errors_to_the_jobs_log_and_the_hook_log_stays_the_hooks(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    state = env.dirs.state
    jobs = jobs_log_path(state)
    jobs.parent.mkdir(parents=True, exist_ok=True)
    jobs.write_text("earlier job\n" * 100_000, encoding="utf-8")  # past the 1 MB cap: moved aside
    spawn_detached(["no-such-command"], env=env, state_dir=state)
    deadline = time.monotonic() + 60
    while "no-such-command" not in jobs.read_text(encoding="utf-8") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "skillshelf: error" in jobs.read_text(encoding="utf-8")
    assert jobs.with_name("jobs.log.1").read_text(encoding="utf-8") == "earlier job\n" * 100_000
    assert not log_path(state).exists()
