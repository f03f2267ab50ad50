"""The body of ``skillshelf hook EVENT``: read the agent's JSON, answer, never fail.

Shared by the click command (:mod:`skillshelf.cli.hook_cmds`) and the console entry point's
lean path (:mod:`skillshelf.cli.entry`), which calls it without loading click at all.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from skillshelf.hooks.agents import Agent

__all__ = ["EVENTS", "answer_hook"]

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd", "warm")


def answer_hook(event: str, agent: str, deadline: float | None) -> None:
    """Answer one agent hook call: the agent's JSON on stdin, its answer on stdout. Whatever
    goes wrong, it answers nothing and exits 0 (the problem goes to skillshelf's hook log)."""
    from skillshelf.env import Env
    from skillshelf.hooks.runner import exit_now, run_hook

    try:
        raw = sys.stdin.buffer.read() if event != "warm" else b""
        env = Env.from_os()
    except Exception:  # no folder to work in, no state folder: answer nothing
        exit_now()
    who = cast("Agent", agent)  # codex or claude: the caller checked it
    run = run_hook(who, event, raw, env=env, state_dir=env.dirs.state, deadline=deadline)
    try:
        sys.stdout.buffer.write(run.answer)
        sys.stdout.buffer.flush()
    except OSError:
        pass
    if run.timed_out:
        exit_now()
