"""A session resumed again soon after: Claude Code (``claude -p --continue`` / ``--resume ID``)
and Codex (``codex exec resume --last``) send its ``SessionStart`` with no turn id, byte for
byte the same each time. The second hook set of the same start (skillshelf at both scopes) is a
duplicate however late it comes, until a call naming a turn is claimed in the session: a resume
after a prompt is answered at once, one with no prompt since after a few seconds; a call naming
its turn or tool call keeps its claim for a minute. The log of a duplicate says what is known."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from hooks_helpers import make_project, set_up

from skillshelf.env import Env
from skillshelf.hooks.claims import MARK_SECONDS, UNTURNED_CLAIM_SECONDS, prune_claims
from skillshelf.hooks.runner import HookRun, log_path, run_hook


def _input(env: Env, event: str, **fields: Any) -> bytes:
    data = {
        "session_id": "4e2c9a6e-0000-4000-8000-000000000001",
        "transcript_path": str(env.home / ".claude" / "projects" / "p" / "s.jsonl"),
        "cwd": str(env.cwd),
        "hook_event_name": event,
        **fields,
    }
    return json.dumps(data, separators=(",", ":")).encode()


def _run(env: Env, event: str, raw: bytes) -> HookRun:
    return run_hook("claude", event, raw, env=env, state_dir=env.dirs.state, deadline=0)


def _age_claims(env: Env, seconds: float) -> None:
    then = time.time() - seconds
    for claim in (env.dirs.state / "hooks" / "claims").iterdir():
        os.utime(claim, (then, then))


def _marks(env: Env) -> list[Path]:
    return sorted((env.dirs.state / "hooks" / "sessions").glob("*/session-*"))


def _turn(env: Env, n: int) -> list[tuple[str, bytes]]:
    """The calls of one prompt of the session, each naming its turn or tool call."""
    prompt = _input(env, "UserPromptSubmit", prompt_id=f"p-{n}", prompt="fill a PDF form")
    tool = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": f"t-{n}"}
    return [("UserPromptSubmit", prompt), ("PostToolUse", _input(env, "PostToolUse", **tool))]


def test_a_session_resumed_after_a_prompt_is_answered_at_once_and_its_second_hook_set_is_not(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    resume = _input(env, "SessionStart", source="resume")
    assert _run(env, "SessionStart", resume).status != "duplicate"
    assert _run(env, "SessionStart", resume).status == "duplicate"  # the other scope's, at once
    calls = _turn(env, 1)
    assert [_run(env, event, raw).status for event, raw in calls] == ["ok", "empty"]

    assert _run(env, "SessionStart", resume).status != "duplicate"  # resumed seconds later
    assert _run(env, "SessionStart", resume).status == "duplicate"  # that resume's other scope
    assert [_run(env, event, raw).status for event, raw in calls] == ["duplicate", "duplicate"]


def test_a_session_resumed_with_no_prompt_since_its_start_is_answered_seconds_later(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    resume = _input(env, "SessionStart", source="resume")
    calls = _turn(env, 1)
    for event, raw in [*calls, ("SessionStart", resume)]:
        assert _run(env, event, raw).status != "duplicate"
    assert _run(env, "SessionStart", resume).status == "duplicate"

    _age_claims(env, UNTURNED_CLAIM_SECONDS + 1)
    assert _run(env, "SessionStart", resume).status != "duplicate"
    assert [_run(env, event, raw).status for event, raw in calls] == ["duplicate", "duplicate"]


def test_the_log_of_a_duplicate_names_two_scopes_only_when_setup_made_both(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    set_up(env, isolated_home, "claude", "project")
    resume = _input(env, "SessionStart", source="resume")
    _run(env, "SessionStart", resume)
    duplicate = _run(env, "SessionStart", resume)
    assert duplicate.status == "duplicate"
    assert "the same input was answered by another hook process" in duplicate.detail
    assert "s ago" in duplicate.detail and "resumed within" in duplicate.detail
    assert "scopes" not in log_path(env.dirs.state).read_text(encoding="utf-8")

    set_up(env, isolated_home, "claude", "user")
    prompt = _input(env, "UserPromptSubmit", prompt_id="p-1", prompt="fill a PDF form")
    _run(env, "UserPromptSubmit", prompt)
    again = _run(env, "UserPromptSubmit", prompt)
    assert "set up at both scopes" in again.detail and "resumed" not in again.detail


def test_pruning_after_a_resume_keeps_the_session_mark_its_second_hook_set_keys_on(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    for event, raw in _turn(env, 1):
        _run(env, event, raw)
    _age_claims(env, 120)  # resumed two minutes later: every claim past its time
    then = time.time() - 120
    for mark in _marks(env):
        os.utime(mark, (then, then))
    resume = _input(env, "SessionStart", source="resume")
    assert _run(env, "SessionStart", resume).status != "duplicate"
    prune_claims(env.dirs.state)  # the first hook set prunes after it answered
    assert _run(env, "SessionStart", resume).status == "duplicate"  # the other scope's, later


def test_a_session_mark_older_than_its_keep_counts_as_none(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    for event, raw in _turn(env, 1):
        _run(env, event, raw)
    old = time.time() - MARK_SECONDS - 5
    assert _marks(env)
    for mark in _marks(env):  # filed as a mark last touched over a week ago is
        week = mark.parent.with_name(str(int(mark.parent.name) - 2))
        week.mkdir(exist_ok=True)
        os.utime(mark.rename(week / mark.name), (old, old))
    resume = _input(env, "SessionStart", source="resume")
    assert _run(env, "SessionStart", resume).status != "duplicate"
    prune_claims(env.dirs.state)
    assert _marks(env) == []  # gone at its age
    assert _run(env, "SessionStart", resume).status == "duplicate"
