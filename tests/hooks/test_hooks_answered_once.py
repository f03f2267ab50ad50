"""A hook call is answered once: skillshelf set up at both Codex scopes makes Codex run two hook
processes on the same input at the same time; the second answers empty and does nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hooks_helpers import context_text, make_project

from skillshelf.env import Env
from skillshelf.hooks.claims import CLAIM_SECONDS, prune_claims
from skillshelf.hooks.runner import HookRun, log_path, run_hook
from skillshelf.memory.queue import queue_dir, queued
from skillshelf.select.usage import UsageStore

PROMPT = "fill the fields of this PDF form"


def _codex_input(event: str, env: Env, **fields: Any) -> bytes:
    """What Codex 0.171.0 writes on a hook's stdin (captured from ``codex exec``)."""
    data = {
        "session_id": "01a24e92-61db-74c0-bd09-fd8a80228890",
        "turn_id": "01a24e92-6231-7173-84dc-099992ff5f42",
        "transcript_path": str(env.home / ".codex" / "sessions" / "rollout-1.jsonl"),
        "cwd": str(env.cwd),
        "hook_event_name": event,
        "model": "gpt-5",
        "permission_mode": "bypassPermissions",
        **fields,
    }
    return json.dumps(data, separators=(",", ":")).encode()


def _run(env: Env, event: str, raw: bytes) -> HookRun:
    """A Codex hook call answered here, however long the work takes."""
    return run_hook("codex", event, raw, env=env, state_dir=env.dirs.state, deadline=0)


def _statuses(env: Env) -> list[str]:
    return [line.split()[3] for line in log_path(env.dirs.state).read_text(encoding="utf-8").splitlines()]


def _loads(env: Env) -> list[dict[str, object]]:
    return [e for e in UsageStore.in_state_dir(env.dirs.state).events() if e["type"] == "load"]


def test_two_hook_processes_on_the_same_prompt_at_once_give_one_answer(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    stdin = _codex_input("UserPromptSubmit", env, prompt=PROMPT)
    command = [sys.executable, "-m", "skillshelf.cli.main", "hook", "UserPromptSubmit", "--agent", "codex"]
    both = [
        subprocess.Popen(
            command,
            cwd=env.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "SKILLSHELF_HOOK_DEADLINE": "0"},
        )
        for _ in range(2)
    ]
    for process in both:  # both read their input before either answers
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(stdin)
        process.stdin.close()
    answers = sorted(process.stdout.read() for process in both if process.stdout is not None)
    for process in both:
        process.wait(timeout=300)
    assert [process.returncode for process in both] == [0, 0]
    assert answers[0] == b""
    assert "pdf-forms" in context_text(answers[1])
    assert sorted(_statuses(env)) == ["duplicate", "ok"]
    turns = [e for e in UsageStore.in_state_dir(env.dirs.state).events() if e["type"] == "turn"]
    assert len(turns) == 1


def test_the_second_call_of_a_stop_queues_nothing_and_says_so(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    stdin = _codex_input("Stop", env, stop_hook_active=False, last_assistant_message="done")
    first = _run(env, "Stop", stdin)
    assert len(queued(env.dirs.state)) == 1
    for entry in queue_dir(env.dirs.state).iterdir():
        entry.unlink()  # so that a second entry would show
    second = _run(env, "Stop", stdin)
    assert (first.status, second.status, second.answer) == ("empty", "duplicate", b"")
    assert queued(env.dirs.state) == []
    assert "answered by another hook process" in second.detail


def test_a_skill_read_in_one_tool_call_is_counted_once(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    skill = env.cwd / ".agents" / "skills" / "pdf-forms" / "SKILL.md"

    def post(call: str) -> bytes:
        tool = {"tool_name": "Bash", "tool_input": {"command": f"cat {skill}"}, "tool_use_id": call}
        return _codex_input("PostToolUse", env, tool_response="x", **tool)

    for raw in (post("call_0"), post("call_0"), post("call_1")):
        _run(env, "PostToolUse", raw)
    assert [e["path"] for e in _loads(env)] == [str(skill)] * 2
    assert _statuses(env) == ["empty", "duplicate", "empty"]


def test_each_turn_and_each_prompt_is_answered(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    calls = [
        _codex_input("UserPromptSubmit", env, prompt=PROMPT),
        _codex_input("UserPromptSubmit", env, prompt=PROMPT, turn_id="turn-2"),
        _codex_input("UserPromptSubmit", env, prompt=PROMPT, session_id="another-session"),
        _codex_input("UserPromptSubmit", env, prompt=f"{PROMPT}, please", turn_id=""),
        _codex_input("UserPromptSubmit", env, prompt=PROMPT, turn_id=""),
    ]
    runs = [_run(env, "UserPromptSubmit", raw) for raw in calls]
    assert [run.status for run in runs] == ["ok"] * 5


def test_a_call_without_a_session_id_is_always_answered(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    raw = _codex_input("UserPromptSubmit", env, prompt=PROMPT, session_id="")
    runs = [_run(env, "UserPromptSubmit", raw) for _ in range(2)]
    assert [run.status for run in runs] == ["ok", "ok"]


def test_a_claim_that_cannot_be_written_leaves_the_call_answered_as_if_alone(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    (env.dirs.state / "hooks").mkdir(parents=True)
    (env.dirs.state / "hooks" / "claims").write_text("not a folder", encoding="utf-8")
    raw = _codex_input("UserPromptSubmit", env, prompt=PROMPT)
    runs = [_run(env, "UserPromptSubmit", raw) for _ in range(2)]
    assert [run.status for run in runs] == ["ok", "ok"]


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_an_old_claim_holds_no_more_and_old_claims_are_pruned(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    resume = _codex_input("SessionStart", env, source="resume", turn_id="")
    assert _run(env, "SessionStart", resume).status == "empty"
    claims = env.dirs.state / "hooks" / "claims"
    (claim,) = claims.iterdir()
    _age(claim, CLAIM_SECONDS + 1)
    leftover = claims / ("0" * 40)
    leftover.touch()
    _age(leftover, CLAIM_SECONDS + 1)
    again = _run(env, "SessionStart", resume)
    assert again.status == "empty"  # the session resumed once more: answered, not a duplicate
    prune_claims(env.dirs.state)
    assert [p.name for p in claims.iterdir()] == [claim.name]


def test_a_warm_up_claims_nothing(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    for _ in range(2):
        assert _run(env, "warm", b"").status == "empty"
    assert not (env.dirs.state / "hooks" / "claims").exists()


def test_a_claim_left_by_a_hook_server_that_is_gone_holds_no_more(isolated_home: Any) -> None:
    """A hook server stopped while it had the call: the hook answers the call itself, the
    session's queue entry included."""
    env = make_project(isolated_home)
    stdin = _codex_input("Stop", env, stop_hook_active=False, last_assistant_message="done")
    assert _run(env, "Stop", stdin).status == "empty"
    (claim,) = [p for p in (env.dirs.state / "hooks" / "claims").iterdir() if p.name.isalnum()]
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    claim.write_text(f"server {dead.pid}", encoding="ascii")
    for entry in queue_dir(env.dirs.state).iterdir():
        entry.unlink()
    assert _run(env, "Stop", stdin).status == "empty"
    assert len(queued(env.dirs.state)) == 1
    assert claim.read_text(encoding="ascii") == "hook"
