"""One hook call from start to answer, never breaking the agent.

:func:`run_hook` reads the agent's input, runs the event's handler (:mod:`.events`) in a
worker thread and waits at most the event's deadline. Whatever goes wrong (input that is not
JSON or names another event, a broken config, a missing or damaged index, the model server
gone, a bug), the answer is the empty one, the exit code 0, and one line goes to the hook log
(``<state dir>/hooks/hooks.log``). Past the deadline the hook answers empty at once and
starts the same work detached (``hook warm``), so that the next prompt finds the index built.

Deadlines stay well under the timeouts ``setup`` writes into the agents' configuration
(10 s, 3 s for ``SessionEnd``), so the agent never has to kill the hook.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf.env import Env
from skillshelf.hooks.agents import Agent
from skillshelf.hooks.answer import EMPTY, context_answer

__all__ = ["DEADLINES", "HookRun", "log_path", "run_hook", "spawn_detached"]

DEADLINES: Mapping[str, float] = {"SessionEnd": 2.0, "Stop": 2.0}
DEFAULT_DEADLINE = 5.0
#: A deadline asked for is kept a second under the timeout ``setup`` gives the agent (10 s; 3 s
#: for SessionEnd, which Codex clamps to 3 s anyway).
MAX_DEADLINES: Mapping[str, float] = {"SessionEnd": 2.0}
MAX_DEADLINE = 9.0
MAX_LOG_BYTES = 1024 * 1024
SPAWN_QUIET_SECONDS = 60.0  # one detached job of a kind per minute at most


@dataclass(frozen=True, slots=True, kw_only=True)
class HookRun:
    """The answer to print (always valid) and what happened, for the log."""

    answer: bytes
    status: str  # ok | empty | error | timeout
    seconds: float
    detail: str = ""
    timed_out: bool = False


def log_path(state_dir: Path) -> Path:
    return state_dir / "hooks" / "hooks.log"


def run_hook(
    agent: Agent, event: str, raw: bytes, *, env: Env, state_dir: Path, deadline: float | None = None
) -> HookRun:
    """Answer one hook call; never raises (see the module docstring). ``deadline`` overrides the
    event's (kept under the agent's timeout); 0 waits as long as the work takes (warm-ups)."""
    start = time.perf_counter()
    limit = _limit(event, deadline)
    text: list[str] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            text.append(_handle(agent, event, raw, env, state_dir))
        except BaseException as exc:  # a hook reports every failure and answers empty
            failed.append(exc)

    worker = threading.Thread(target=work, name=f"hook-{event}", daemon=True)
    worker.start()
    worker.join(limit or None)
    seconds = time.perf_counter() - start
    if worker.is_alive():
        if event == "UserPromptSubmit":
            _spawn(["hook", "warm", "--agent", agent], env=env, state_dir=state_dir)
        run = HookRun(
            answer=EMPTY, status="timeout", seconds=seconds, detail=f"over {limit:g} s", timed_out=True
        )
    elif failed:
        run = HookRun(answer=EMPTY, status="error", seconds=seconds, detail=_describe(failed[0]))
    else:
        answer = context_answer(agent, event, text[0] if text else "")
        run = HookRun(
            answer=answer, status="ok" if answer else "empty", seconds=seconds, detail=f"{len(answer)} bytes"
        )
    _log(state_dir, agent, event, run)
    return run


def _limit(event: str, asked: float | None) -> float:
    """Seconds to wait for the work (0: as long as it takes). A warm-up is never cut short, even
    when it inherits ``SKILLSHELF_HOOK_DEADLINE`` from the hook that started it."""
    if event == "warm" or asked == 0:
        return 0.0
    if asked is None:
        return DEADLINES.get(event, DEFAULT_DEADLINE)
    return min(asked, MAX_DEADLINES.get(event, MAX_DEADLINE))


def _handle(agent: Agent, event: str, raw: bytes, env: Env, state_dir: Path) -> str:
    from skillshelf.hooks.events import HANDLERS
    from skillshelf.hooks.payload import HookInputError, parse_input

    handler = HANDLERS.get(event)
    if handler is None:
        raise HookInputError(f"skillshelf has no hook for the event {event!r}")
    inp = parse_input(raw, event) if event != "warm" else parse_input(b"{}", event)
    folder = Path(inp.cwd) if inp.cwd else None
    here = dataclasses.replace(env, cwd=folder.absolute()) if folder is not None and folder.is_dir() else env
    return handler(agent, inp, here, lambda args: _spawn(args, env=here, state_dir=state_dir))


def _describe(exc: BaseException) -> str:
    from skillshelf.errors import SkillshelfError

    if isinstance(exc, SkillshelfError):
        text = f"{exc.code}: {exc.message}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(" ".join(text.split()))[:500]


def _log(state_dir: Path, agent: str, event: str, run: HookRun) -> None:
    """One line per call; the log keeps its newer half past 1 MB. A log that cannot be written
    is given up silently (the hook's answer matters more)."""
    path = log_path(state_dir)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    line = f"{stamp}Z {agent} {event} {run.status} {run.seconds * 1000:.0f}ms {run.detail}\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
            path.write_text("".join(lines[len(lines) // 2 :]), encoding="utf-8")
        with path.open("a", encoding="utf-8") as out:
            out.write(line)
    except OSError:
        return


def _spawn(args: list[str], *, env: Env, state_dir: Path) -> None:
    """``spawn_detached`` at most once a minute per kind of job (the first word after ``hook``
    or ``memory``), so a burst of sessions starts one warm-up, not one each."""
    marker = state_dir / "hooks" / f"spawned-{'-'.join(args[:2])}"
    try:
        if time.time() - marker.stat().st_mtime < SPAWN_QUIET_SECONDS:
            return
    except OSError:
        pass
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        return
    spawn_detached(args, env=env, log=log_path(state_dir))


def spawn_detached(args: list[str], *, env: Env, log: Path) -> None:
    """Start ``skillshelf ARGS`` in ``env.cwd`` in its own session, output to ``log``; the hook
    does not wait for it."""
    import subprocess

    command = [sys.executable, "-m", "skillshelf.cli.main", *args]
    try:
        with log.open("a", encoding="utf-8") as err:
            subprocess.Popen(
                command,
                cwd=env.cwd,
                env=dict(env.environ) or None,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
                close_fds=True,
            )
    except OSError:
        return


def exit_now() -> None:
    """Leave at once (a timed-out worker thread may still hold locks)."""
    sys.stdout.flush()
    os._exit(0)
