"""One hook call from start to answer, never breaking the agent.

:func:`run_hook` reads the agent's input, runs the event's handler (:mod:`.events`) in a
worker thread and waits at most the event's deadline. Whatever goes wrong (input that is not
JSON or names another event, a broken config, a missing or damaged index, the model server
gone, a bug), the answer is the empty one, the exit code 0, and one line goes to the hook log
(:mod:`.hooklog`). Past the deadline the hook answers empty at once; a prompt's hook
starts the same work detached (``hook warm``), so that the next prompt finds the index built,
unless the cache folder cannot be written: a warm-up would build an index it cannot keep (the
log line says so).

An event's essential step (``events.ESSENTIAL``: the memory queue's entry of ``Stop`` /
``SessionEnd``) runs first and is never given up at the deadline: the hook waits for it
``deadlines.ESSENTIAL_SECONDS`` longer, and runs it even when no time was left at all
(``late``); only the rest of the work is abandoned with the worker.

Deadlines (:mod:`.deadlines`) stay well under the timeouts ``setup`` writes into the agents'
configuration, so the agent never has to kill the hook.

A call is answered once (:mod:`.claims`): Codex runs every hook set that names the event (both
scopes set up: two) on the same input at the same time; the first process to claim the call
answers it, another answers empty and does nothing else (no second queue entry, no usage
counted twice; the log says ``duplicate``, how long ago the same input was answered, and
what sends an input twice: the agent's two scopes when setup's record has skillshelf's hook
for the event at both, else a second hook set for the event, or for a call naming no turn
a session resumed with no prompt since its last start). A session resumed after a prompt is
answered again (:mod:`.claims` says how it is told from a duplicate). A call without a
session id, or a claim that cannot be written, is answered as if it were the only one. Old
claims are pruned by the caller once the answer is out
(:func:`~skillshelf.hooks.claims.prune_claims`), never before it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from skillshelf.dirs import private_dir, unwritable
from skillshelf.env import Env
from skillshelf.hooks.agents import Agent, SetupScope, agent_files
from skillshelf.hooks.answer import EMPTY, context_answer
from skillshelf.hooks.claims import UNTURNED_CLAIM_SECONDS, claim_call, prune
from skillshelf.hooks.deadlines import ESSENTIAL_SECONDS, work_limit
from skillshelf.hooks.hooklog import log_path, open_jobs_log, write_log_line

__all__ = ["HookRun", "log_path", "run_hook", "spawn_detached"]

SPAWN_QUIET_SECONDS = 60.0  # one detached job of a kind per minute at most (a warm-up: per folder)
WARM_MARKERS = "spawned-warm-ups"  # one marker per folder warmed, under the state folder's hooks/
MAX_WARM_MARKERS = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class HookRun:
    """The answer to print (always valid) and what happened, for the log."""

    answer: bytes
    status: str  # ok | empty | error | timeout | duplicate (another process answers the same call)
    seconds: float
    detail: str = ""
    timed_out: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class _Duplicate:
    """Another hook process answered the same input ``age`` seconds ago."""

    age: float
    turned: bool  # the input names its turn or tool call


def run_hook(
    agent: Agent,
    event: str,
    raw: bytes,
    *,
    env: Env,
    state_dir: Path,
    deadline: float | None = None,
    served: bool = False,
    late: bool = False,
) -> HookRun:
    """Answer one hook call; never raises (see the module docstring). ``deadline`` overrides the
    event's (kept under the agent's timeout); 0 waits as long as the work takes (warm-ups).
    ``served``: the hook server answers (it starts no other server; the log says so). ``late``:
    no time is left (the hook's start took it): only the essential step runs, the answer is empty."""
    start = time.perf_counter()
    limit = work_limit(event, deadline)
    grace = ESSENTIAL_SECONDS.get(event, 0.0)
    text: list[str | _Duplicate] = []
    failed: list[BaseException] = []
    settled = threading.Event()  # the essential step is over, or the work ended before it

    def work() -> None:
        try:
            text.append(_handle(agent, event, raw, env, state_dir, served=served, settled=settled, late=late))
        except BaseException as exc:  # a hook reports every failure and answers empty
            failed.append(exc)
        finally:
            settled.set()

    worker = threading.Thread(target=work, name=f"hook-{event}", daemon=True)
    worker.start()
    _wait(worker, settled, limit=limit, grace=grace, late=late)
    seconds = time.perf_counter() - start
    if failed:
        run = HookRun(answer=EMPTY, status="error", seconds=seconds, detail=_describe(failed[0]))
    elif text and isinstance(text[0], _Duplicate):
        detail = _duplicate_detail(text[0], agent, event, _in_session_folder(agent, env), state_dir)
        run = HookRun(answer=EMPTY, status="duplicate", seconds=seconds, detail=detail)
    elif worker.is_alive() or late:
        detail = "no time left for the work" if late else f"over {limit:g} s"
        if grace:
            done = settled.is_set()
            detail += "; essential step done" if done else f"; essential step unfinished {grace:g} s past it"
        if event == "UserPromptSubmit" and not late:
            unusable = unwritable(env.dirs.cache / "index")
            if unusable is None:
                _spawn(
                    ["hook", "warm", "--agent", agent],
                    env=_in_session_folder(agent, env),
                    state_dir=state_dir,
                )
            else:
                detail += f"; no warm-up: the cache folder {unusable} cannot be written"
        timed_out = worker.is_alive()
        run = HookRun(answer=EMPTY, status="timeout", seconds=seconds, detail=detail, timed_out=timed_out)
    else:
        answer = context_answer(agent, event, text[0] if text and isinstance(text[0], str) else "")
        run = HookRun(
            answer=answer, status="ok" if answer else "empty", seconds=seconds, detail=f"{len(answer)} bytes"
        )
    _log(
        state_dir, agent, event, dataclasses.replace(run, detail=f"{run.detail} (server)") if served else run
    )
    return run


def _wait(
    worker: threading.Thread, settled: threading.Event, *, limit: float, grace: float, late: bool
) -> None:
    """Wait for the work until ``limit`` (0: its end), then while its essential step is not
    over up to ``grace`` more; ``late``: for the essential step alone (the work ends there)."""
    if late:
        worker.join(grace)
        return
    worker.join(limit or None)
    if worker.is_alive():
        settled.wait(grace)


def _handle(
    agent: Agent,
    event: str,
    raw: bytes,
    env: Env,
    state_dir: Path,
    *,
    served: bool,
    settled: threading.Event,
    late: bool,
) -> str | _Duplicate:
    """The event's essential step (then ``settled`` is set), then, unless ``late``, its handler;
    a :class:`_Duplicate` when another hook process has the call
    (:func:`~skillshelf.hooks.claims.claim_call`)."""
    from skillshelf.hooks.events import ESSENTIAL, HANDLERS
    from skillshelf.hooks.payload import HookInputError, parse_input

    handler = HANDLERS.get(event)
    if handler is None:
        raise HookInputError(f"skillshelf has no hook for the event {event!r}")
    inp = parse_input(raw, event) if event != "warm" else parse_input(b"{}", event)
    if inp.session_id:
        turned = bool(inp.turn_id or inp.tool_use_id)
        age = claim_call(agent, event, raw, state_dir, served=served, session=inp.session_id, turned=turned)
        if age is not None:
            return _Duplicate(age=age, turned=turned)
    here = _in_session_folder(agent, env, inp.cwd)
    essential = ESSENTIAL.get(event)
    if essential is not None:
        essential(agent, inp, here)
    settled.set()
    if late:
        return ""

    def spawn(args: list[str]) -> None:
        if not (served and args[:1] == ["hook-server"]):
            _spawn(args, env=here, state_dir=state_dir)

    return handler(agent, inp, here, spawn)


def _duplicate_detail(duplicate: _Duplicate, agent: Agent, event: str, env: Env, state_dir: Path) -> str:
    """The log's words for a duplicate: when the same input was answered, and what sends it
    twice, as far as setup's record tells (:func:`_set_up_at_both_scopes`)."""
    said = f"the same input was answered by another hook process {duplicate.age:.1f} s ago"
    try:
        both = _set_up_at_both_scopes(agent, event, env, state_dir)
    except Exception:  # the log line never breaks the hook
        both = False
    if both:
        return f"{said} (skillshelf's {event} hook is set up at both scopes: the agent runs both)"
    if duplicate.turned:
        return f"{said} (another hook set for {event} runs skillshelf on it)"
    return (
        f"{said} (another hook set for {event} runs skillshelf on it, or the session was resumed "
        f"within {UNTURNED_CLAIM_SECONDS:g} s with no prompt since its last start)"
    )


def _set_up_at_both_scopes(agent: Agent, event: str, env: Env, state_dir: Path) -> bool:
    """Whether setup's record has skillshelf's hook for ``event`` in the hooks files of both
    scopes of ``agent`` (the project's: of ``env``'s folder)."""
    from skillshelf.hooks.setup_model import load_record

    record = load_record(state_dir)

    def recorded(scope: SetupScope) -> bool:
        hooks = record.get(str(agent_files(agent, scope, env).hooks), {}).get("hooks")
        return isinstance(hooks, list) and any(isinstance(h, list) and h[:1] == [event] for h in hooks)

    return recorded("project") and recorded("user")


def _in_session_folder(agent: Agent, env: Env, cwd: str | None = None) -> Env:
    """``env`` moved to the session's folder (:func:`_session_folder`; ``cwd``: the hook
    input's, by default the process's): where a warm-up started with it builds its index."""
    folder = _session_folder(agent, str(env.cwd) if cwd is None else cwd, env)
    return dataclasses.replace(env, cwd=folder.absolute()) if folder is not None else env


def _session_folder(agent: Agent, cwd: str, env: Env) -> Path | None:
    """The folder whose skills, settings and instructions the agent's session has: Claude Code's
    ``$CLAUDE_PROJECT_DIR`` (where it started; the model's ``cd`` moves the hook's ``cwd``
    but not what Claude Code lists or reads), else the hook's ``cwd``. A ``PostToolUse`` command
    is still read from the ``cwd`` it ran in (``HookInput.cwd``)."""
    project = env.environ.get("CLAUDE_PROJECT_DIR", "") if agent == "claude" else ""
    for given in (project, cwd):
        folder = Path(given) if given and "\x00" not in given else None
        if folder is not None and (given == cwd or folder.is_absolute()) and folder.is_dir():
            return folder
    return None


def _describe(exc: BaseException) -> str:
    from skillshelf.errors import SkillshelfError

    if isinstance(exc, SkillshelfError):
        text = f"{exc.code}: {exc.message}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    from skillshelf.memory.redact import redact_secrets

    return redact_secrets(" ".join(text.split()))[:500]


def _log(state_dir: Path, agent: str, event: str, run: HookRun) -> None:
    write_log_line(state_dir, f"{agent} {event} {run.status} {run.seconds * 1000:.0f}ms {run.detail}")


def _spawn(args: list[str], *, env: Env, state_dir: Path) -> None:
    """``spawn_detached`` at most once a minute per kind of job (the first word after ``hook``
    or ``memory``), so a burst of sessions starts one job, not one each. The hook server and a
    memory run serve the whole state folder; a warm-up builds one folder's index, so its
    minute is counted per folder and agent (:func:`_marker`)."""
    marker = _marker(args, env, state_dir)
    try:
        if time.time() - marker.stat().st_mtime < SPAWN_QUIET_SECONDS:
            return
    except OSError:
        pass
    try:
        private_dir(marker.parent)
        marker.touch(mode=0o600)
    except OSError:
        return
    if args[:2] == ["hook", "warm"]:
        prune(marker.parent, keep=marker, max_age=SPAWN_QUIET_SECONDS, max_count=MAX_WARM_MARKERS)
    spawn_detached(args, env=env, state_dir=state_dir)


def _marker(args: list[str], env: Env, state_dir: Path) -> Path:
    """The file whose time says when a job like ``args`` was last started: one per kind, and
    for a warm-up one per folder it runs in (with the agent, whose skills it indexes)."""
    hooks = state_dir / "hooks"
    if args[:2] != ["hook", "warm"]:
        return hooks / f"spawned-{'-'.join(args[:2])}"
    job = "\0".join([*args, str(env.cwd.absolute())])
    tag = hashlib.sha256(job.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return hooks / WARM_MARKERS / tag


def spawn_detached(args: list[str], *, env: Env, state_dir: Path) -> None:
    """Start ``skillshelf ARGS`` in ``env.cwd`` in its own session, its error output to the
    jobs log (:func:`~skillshelf.hooks.hooklog.open_jobs_log`); the hook does not wait for it."""
    import subprocess

    command = [sys.executable, "-m", "skillshelf.cli.main", *args]
    try:
        with open_jobs_log(state_dir) as err:
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
