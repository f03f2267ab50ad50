"""An event's essential step (the memory queue's entry of Stop / SessionEnd) is done even when
the hook's deadline passes first; only the rest of the work is given up."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hooks_helpers import hook_input, make_project, run_python

from skillshelf.env import Env
from skillshelf.hooks import deadlines, events
from skillshelf.hooks.runner import log_path, run_hook
from skillshelf.memory.queue import queue_dir, queued
from skillshelf.memory.runner import project_of

ENTRY = "import sys\nfrom skillshelf.cli.entry import main\nsys.exit(main())"


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The work after the queue entry held until the test ends (so the deadline passes while it
    runs, whatever the machine's speed); yields the events whose rest of the work began."""
    release = threading.Event()
    began: list[str] = []

    def slow_drain(*args: object) -> None:
        began.append("drain")
        release.wait(30)

    monkeypatch.setattr(events, "_maybe_drain", slow_drain)
    # the grace is never used up: the wait ends when the step does
    monkeypatch.setattr("skillshelf.hooks.runner.ESSENTIAL_SECONDS", {"SessionEnd": 60.0, "Stop": 60.0})
    yield began
    release.set()


def _slow_project_lookup(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The step before the queue write (the session's memory project) made slow."""
    lookup = events._memory_project

    def slow(cwd: str) -> str:
        time.sleep(seconds)
        return lookup(cwd)

    monkeypatch.setattr(events, "_memory_project", slow)


def _session_end(env: Env) -> bytes:
    return hook_input("SessionEnd", env, session_id="late-1", reason="exit")


def test_a_session_end_past_its_deadline_still_queues_the_session(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, held: list[str]
) -> None:
    env = make_project(isolated_home)
    _slow_project_lookup(monkeypatch, 0.3)
    run = run_hook(
        "claude", "SessionEnd", _session_end(env), env=env, state_dir=env.dirs.state, deadline=0.01
    )
    assert (run.answer, run.status, run.timed_out) == (b"", "timeout", True)
    assert [(q.session_id, q.ended) for q in queued(env.dirs.state)] == [("late-1", True)]
    line = log_path(env.dirs.state).read_text(encoding="utf-8").splitlines()[-1]
    assert " claude SessionEnd timeout " in line and "essential step done" in line


def test_a_stop_past_its_deadline_still_queues_the_session(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, held: list[str]
) -> None:
    env = make_project(isolated_home)
    _slow_project_lookup(monkeypatch, 0.3)
    raw = hook_input("Stop", env, session_id="turn-ended")
    run = run_hook("codex", "Stop", raw, env=env, state_dir=env.dirs.state, deadline=0.01)
    assert run.status in ("timeout", "empty")  # a Stop's work after the queue entry is nothing
    assert [(q.session_id, q.ended) for q in queued(env.dirs.state)] == [("turn-ended", False)]


def test_a_hook_with_no_time_left_queues_the_session_and_does_nothing_else(
    isolated_home: Any, held: list[str]
) -> None:
    env = make_project(isolated_home)
    run = run_hook("claude", "SessionEnd", _session_end(env), env=env, state_dir=env.dirs.state, late=True)
    assert (run.answer, run.status, run.timed_out) == (b"", "timeout", False)
    assert [q.session_id for q in queued(env.dirs.state)] == ["late-1"] and held == []
    assert "no time left for the work; essential step done" in run.detail


def test_a_queue_write_that_fails_past_the_deadline_is_logged_as_the_error_it_is(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, held: list[str]
) -> None:
    env = make_project(isolated_home)
    queue_dir(env.dirs.state).parent.mkdir(parents=True)
    queue_dir(env.dirs.state).write_text("not a folder", encoding="utf-8")
    _slow_project_lookup(monkeypatch, 0.3)
    raw = _session_end(env)
    run = run_hook("claude", "SessionEnd", raw, env=env, state_dir=env.dirs.state, deadline=0.01)
    assert (run.answer, run.status) == (b"", "error") and run.detail.startswith("ME120: ")
    assert held == []


def test_every_event_with_an_essential_step_has_its_time_for_it() -> None:
    assert set(events.ESSENTIAL) == set(deadlines.ESSENTIAL_SECONDS)
    # each deadline is kept a second under the agent's timeout: the wait past it stays inside
    assert all(0 < seconds < 1 for seconds in deadlines.ESSENTIAL_SECONDS.values())


@pytest.mark.parametrize("deadline", ["0.001", "0.3"])
def test_the_hook_command_past_a_tiny_deadline_still_queues_the_session(
    isolated_home: Any, deadline: str
) -> None:
    env = make_project(isolated_home)
    done = run_python(
        ["-c", ENTRY, "hook", "SessionEnd", "--agent", "claude"],
        env.cwd,
        _session_end(env),
        SKILLSHELF_HOOK_DEADLINE=deadline,
        SKILLSHELF_HOOK_SERVER="0",
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    entries = queued(env.dirs.state)
    assert [(q.session_id, q.path, q.ended) for q in entries] == [
        ("late-1", env.home / ".claude" / "projects" / "p" / "sess-1.jsonl", True)
    ]
    assert entries[0].project == project_of(env.cwd)  # as a run finds it, without loading the run
