"""The body of ``skillshelf hook EVENT``: read the agent's JSON, answer, never fail.

Shared by the click command (:mod:`skillshelf.cli.hook_cmds`) and the console entry point's
lean path (:mod:`skillshelf.cli.entry`), which calls it without loading click at all.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, NoReturn, cast

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillshelf.env import Env
    from skillshelf.hooks.agents import Agent

__all__ = ["EVENTS", "answer_hook"]

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd", "warm")


def answer_hook(
    event: str, agent: str, deadline: float | None, *, clock: Callable[[], float] = time.monotonic
) -> None:
    """Answer one agent hook call: the agent's JSON on stdin, its answer on stdout. The hook
    server answers when one is running (:mod:`skillshelf.cli.hook_client`); otherwise the work
    is done here, within what is left of the deadline (a server that left while it had the
    call took some). When nothing is left, only the event's essential step runs (the memory
    queue's entry of ``Stop`` / ``SessionEnd``, within ``deadlines.ESSENTIAL_SECONDS``). Old
    hook-call claims are pruned after the answer is written, unless the deadline passed. Whatever
    goes wrong, it answers nothing and exits 0 (the problem goes to skillshelf's hook log)."""
    from pathlib import Path

    from skillshelf.cli.hook_client import ask_server, time_left
    from skillshelf.hooks.deadlines import ESSENTIAL_SECONDS
    from skillshelf.hooks.payload import MAX_INPUT_BYTES

    started = clock()
    try:  # one byte past the limit is enough to refuse it: an endless stdin is never read whole
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1) if event != "warm" else b""
        cwd = Path.cwd()
    except Exception:  # no stdin, no folder to work in: answer nothing
        exit_now()
    served = ask_server(event, agent, deadline, raw, environ=os.environ, cwd=cwd)
    if served is not None:
        _write(served)
        return
    from skillshelf.env import Env
    from skillshelf.hooks.runner import run_hook

    try:
        env = Env.from_os(cwd=cwd)
    except Exception:  # no state folder: answer nothing
        exit_now()
    who = cast("Agent", agent)  # codex or claude: the caller checked it
    left = time_left(event, deadline, clock() - started)
    if left is None and event not in ESSENTIAL_SECONDS:
        _log_late(env, who, event, clock() - started)
        return
    run = run_hook(who, event, raw, env=env, state_dir=env.dirs.state, deadline=left, late=left is None)
    _write(run.answer)
    if run.timed_out:
        exit_now()
    if run.status != "timeout":
        from skillshelf.hooks.claims import prune_claims

        prune_claims(env.dirs.state)  # bounded, once the answer is out


def _log_late(env: Env, agent: Agent, event: str, seconds: float) -> None:
    """The hook log's line for a call whose deadline passed before it could be answered here."""
    from skillshelf.hooks.hooklog import write_log_line

    detail = "no time left to answer without the hook server"
    write_log_line(env.dirs.state, f"{agent} {event} timeout {seconds * 1000:.0f}ms {detail}")


def _write(answer: bytes) -> None:
    """``answer`` on stdout; when it cannot be written (stdout closed, a full disk, the agent gone),
    nothing: the hook exits 0 whatever goes wrong."""
    try:
        sys.stdout.buffer.write(answer)
        sys.stdout.buffer.flush()
    except Exception:  # OSError, no stdout at all (None), or the CLI's guarded stdout's StdoutFailed
        pass


def exit_now() -> NoReturn:
    """Leave at once (a timed-out worker thread may still hold locks)."""
    try:
        sys.stdout.flush()
    finally:
        os._exit(0)
