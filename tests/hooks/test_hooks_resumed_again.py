"""A session resumed again soon after: Claude Code (``claude -p --resume ID``) and Codex
(``codex exec resume --last``) send its ``SessionStart`` with no turn id, byte for byte the same
each time. Such a call is claimed for a few seconds only (the two hook sets Codex runs for one
call start together), so the next resume is answered; a call naming its turn or tool call keeps
its claim for a minute."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from hooks_helpers import make_project

from skillshelf.env import Env
from skillshelf.hooks.claims import UNTURNED_CLAIM_SECONDS
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


def test_a_session_resumed_again_seconds_later_is_answered_but_a_turns_call_stays_claimed(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    resume = _input(env, "SessionStart", source="resume")
    calls = [
        ("UserPromptSubmit", _input(env, "UserPromptSubmit", prompt_id="p-1", prompt="fill a PDF form")),
        (
            "PostToolUse",
            _input(env, "PostToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t-1"),
        ),
    ]
    for event, raw in [("SessionStart", resume), *calls]:
        assert _run(env, event, raw).status != "duplicate"
    assert _run(env, "SessionStart", resume).status == "duplicate"  # the other scope's, at once

    _age_claims(env, UNTURNED_CLAIM_SECONDS + 1)
    assert _run(env, "SessionStart", resume).status != "duplicate"
    assert [_run(env, event, raw).status for event, raw in calls] == ["duplicate", "duplicate"]


def test_the_log_of_a_duplicate_does_not_claim_setup_ran_twice(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    resume = _input(env, "SessionStart", source="resume")
    _run(env, "SessionStart", resume)
    duplicate = _run(env, "SessionStart", resume)
    assert duplicate.status == "duplicate"
    assert "set up twice" not in duplicate.detail and "another hook process" in duplicate.detail
    assert "two scopes?" in Path(log_path(env.dirs.state)).read_text(encoding="utf-8")
