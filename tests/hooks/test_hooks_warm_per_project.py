"""A background warm-up is limited to one a minute per folder, not per machine: sessions that
start in two projects within a minute each get their own. The hook server and a memory run,
which serve the whole state folder, stay one a minute; the warm-ups' markers stay few."""

from __future__ import annotations

import dataclasses
import itertools
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import hook_input, make_project, write_skill

from skillshelf.env import Env
from skillshelf.hooks import events, runner
from skillshelf.hooks.runner import MAX_WARM_MARKERS, WARM_MARKERS, run_hook

Spawned = list[tuple[list[str], Path]]


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> Spawned:
    """The detached jobs the hooks start (args, folder), recorded instead of run."""
    jobs: Spawned = []
    monkeypatch.setattr(
        runner, "spawn_detached", lambda args, *, env, state_dir: jobs.append((args, env.cwd))
    )
    return jobs


def _two_projects(box: Any) -> tuple[Env, Env]:
    first = make_project(box)
    other = box.home / "other"
    (other / ".git").mkdir(parents=True)
    write_skill(other / ".agents" / "skills", "kube-rollout", "Roll out Kubernetes deployments safely.")
    return first, dataclasses.replace(first, cwd=other)


_SESSIONS = itertools.count(1)  # each start is a session of its own


def _session_start(env: Env, agent: str = "claude") -> None:
    raw = hook_input("SessionStart", env, source="startup", session_id=f"sess-{next(_SESSIONS)}")
    run = run_hook(agent, "SessionStart", raw, env=env, state_dir=env.dirs.state)  # type: ignore[arg-type]
    assert run.status in ("ok", "empty"), run.detail


def _warm_ups(jobs: Spawned) -> list[tuple[str, Path]]:
    return [(args[-1], folder) for args, folder in jobs if args[:2] == ["hook", "warm"]]


def test_sessions_starting_in_two_projects_within_a_minute_each_warm_their_own_index(
    isolated_home: Any, spawned: Spawned
) -> None:
    first, second = _two_projects(isolated_home)
    _session_start(first)
    _session_start(second)
    _session_start(first)  # the same project again within the minute: no second warm-up
    _session_start(first, agent="codex")  # another agent's skills make another index
    assert _warm_ups(spawned) == [
        ("claude", first.cwd.absolute()),
        ("claude", second.cwd.absolute()),
        ("codex", first.cwd.absolute()),
    ]


def test_late_prompts_in_two_projects_each_start_a_warm_up_in_the_sessions_folder(
    isolated_home: Any, spawned: Spawned, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _two_projects(isolated_home)
    release = threading.Event()
    monkeypatch.setitem(events.HANDLERS, "UserPromptSubmit", lambda *args: str(release.wait(30)))
    inside = first.cwd / "src"
    inside.mkdir()
    in_subfolder = dataclasses.replace(
        first, cwd=inside, environ={**first.environ, "CLAUDE_PROJECT_DIR": str(first.cwd)}
    )
    try:
        for env in (in_subfolder, second):
            raw = hook_input("UserPromptSubmit", env, prompt="anything")
            run = run_hook(
                "claude", "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state, deadline=0.05
            )
            assert run.timed_out
    finally:
        release.set()
    assert _warm_ups(spawned) == [("claude", first.cwd.absolute()), ("claude", second.cwd.absolute())]


def test_the_hook_server_and_memory_runs_stay_one_a_minute_for_the_whole_state_folder(
    isolated_home: Any, spawned: Spawned
) -> None:
    first, second = _two_projects(isolated_home)
    for args in (["hook-server", "start"], ["memory", "run", "--queued", "--phase", "1"]):
        for env in (first, second):
            runner._spawn(args, env=env, state_dir=env.dirs.state)
    assert [args[0] for args, _ in spawned] == ["hook-server", "memory"]
    for env in (first, second):
        runner._spawn(["hook", "warm", "--agent", "codex"], env=env, state_dir=env.dirs.state)
    assert len(_warm_ups(spawned)) == 2


def test_the_warm_up_markers_are_capped_and_the_stale_ones_pruned(
    isolated_home: Any, spawned: Spawned
) -> None:
    env = make_project(isolated_home)
    folders = [isolated_home.home / f"p{n}" for n in range(MAX_WARM_MARKERS + 20)]
    for folder in folders:
        folder.mkdir()
        runner._spawn(
            ["hook", "warm", "--agent", "codex"],
            env=dataclasses.replace(env, cwd=folder),
            state_dir=env.dirs.state,
        )
    markers = env.dirs.state / "hooks" / WARM_MARKERS
    assert len(_warm_ups(spawned)) == len(folders)
    assert len(os.listdir(markers)) == MAX_WARM_MARKERS
    past = time.time() - 120
    for name in os.listdir(markers):
        os.utime(markers / name, (past, past))
    runner._spawn(
        ["hook", "warm", "--agent", "codex"],
        env=dataclasses.replace(env, cwd=folders[0]),
        state_dir=env.dirs.state,
    )
    assert len(os.listdir(markers)) == 1  # the others throttle nothing any more
    assert len(_warm_ups(spawned)) == len(folders) + 1
