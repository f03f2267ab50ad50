"""A hook call in flight when the hook server leaves is still answered by it, and a hook that
answers by itself after asking has only what is left of its deadline.

The server here is a real process whose prompt handler waits for the test: it touches
``started-PROMPT`` in a gate folder and answers ``ANSWER-PROMPT`` once ``release-PROMPT``
exists, so every step happens in order without timing guesses.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import hook_input, make_project, wait_for

from skillshelf.cli import hook_answer
from skillshelf.cli.hook_client import PROTOCOL, TIMED_OUT, server_call, time_left
from skillshelf.hooks.address import server_address
from skillshelf.hooks.runner import HookRun, log_path

SERVER_ON = {"SKILLSHELF_HOOK_SERVER": "1"}
ENTRY = "import sys\nfrom skillshelf.cli.entry import main\nsys.exit(main())"
GATED_SERVER = """
import sys, time
from pathlib import Path
from skillshelf.hooks import events
gate = Path(sys.argv.pop(1))
def held(agent, inp, env, spawn):
    (gate / f"started-{inp.prompt}").touch()
    end = time.monotonic() + 120
    while not (gate / f"release-{inp.prompt}").exists() and time.monotonic() < end:
        time.sleep(0.01)
    return f"ANSWER-{inp.prompt}"
events.HANDLERS["UserPromptSubmit"] = held
from skillshelf.cli.main import main
sys.exit(main())
"""


def _environ() -> dict[str, str]:
    return {**os.environ, **SERVER_ON}


def _status() -> dict[str, Any] | None:
    reply = server_call({"protocol": PROTOCOL, "command": "status"}, b"", environ=_environ(), wait=5)
    return None if reply in (None, TIMED_OUT) else json.loads(reply or b"{}")


def _stop() -> None:
    server_call({"protocol": PROTOCOL, "command": "stop"}, b"", environ=_environ(), wait=5)


def _popen(args: list[str], cwd: Path, *, stdin: bool = False) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd,
        env=_environ(),
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _ask(env: Any, prompt: str, deadline: str) -> subprocess.Popen[bytes]:
    """A prompt hook run as the agent runs it, its stdin written and closed."""
    hook = _popen(
        ["-c", ENTRY, "hook", "UserPromptSubmit", "--agent", "codex", "--deadline", deadline],
        env.cwd,
        stdin=True,
    )
    assert hook.stdin is not None
    hook.stdin.write(hook_input("UserPromptSubmit", env, prompt=prompt))
    hook.stdin.close()
    return hook


def _output(hook: subprocess.Popen[bytes]) -> bytes:
    """What a hook printed, once it exited 0."""
    assert hook.stdout is not None
    out = hook.stdout.read()
    assert _finish(hook) == 0
    return out


def _finish(process: subprocess.Popen[bytes]) -> int:
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


@pytest.fixture
def gated(isolated_home: Any, tmp_path: Path) -> Iterator[tuple[Any, Path, subprocess.Popen[bytes]]]:
    """A project, the gate folder and a running server whose prompts wait at the gate."""
    env = make_project(isolated_home)
    gate = tmp_path / "gate"
    gate.mkdir()
    server = _popen(["-c", GATED_SERVER, str(gate), "hook-server", "start"], env.cwd)
    try:
        wait_for(_status)
        yield env, gate, server
    finally:
        for prompt in ("A", "B"):
            (gate / f"release-{prompt}").touch()
        _stop()
        _finish(server)


def _leave_with_call_a_past_its_deadline(env: Any, gate: Path, server: subprocess.Popen[bytes]) -> None:
    late = _ask(env, "A", "0.5")
    assert _output(late) == b""  # the server answered it empty and leaves


def _leave_on_stop(env: Any, gate: Path, server: subprocess.Popen[bytes]) -> None:
    _stop()


def _leave_on_sigterm(env: Any, gate: Path, server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)


@pytest.mark.slow
@pytest.mark.parametrize("leave", [_leave_with_call_a_past_its_deadline, _leave_on_stop, _leave_on_sigterm])
def test_a_call_in_flight_when_the_server_leaves_gets_the_servers_answer(gated: Any, leave: Any) -> None:
    env, gate, server = gated
    address = server_address(env.dirs.state, _environ())
    assert address is not None
    first_pid = _status()["pid"]  # type: ignore[index]
    waiting = _ask(env, "B", "0")  # no deadline of its own: the server's leaving is all it meets
    wait_for(lambda: (gate / "started-B").exists())
    leave(env, gate, server)
    wait_for(lambda: not address.socket.exists())  # no longer listening, B still in flight
    successor = _popen(["-m", "skillshelf.cli.main", "hook-server", "start"], env.cwd)
    try:
        assert wait_for(lambda: (_status() or {}).get("pid") not in (None, first_pid))  # address free
        (gate / "release-B").touch()
        assert b"ANSWER-B" in _output(waiting)
        assert _finish(server) == 0
    finally:
        _stop()
        _finish(successor)


@pytest.mark.parametrize(
    ("event", "asked", "elapsed", "left"),
    [
        ("UserPromptSubmit", None, 3.0, 2.0),
        ("Stop", None, 0.5, 1.5),
        ("UserPromptSubmit", 30.0, 4.0, 5.0),  # what is left of the 9 s it is kept to
        ("UserPromptSubmit", None, 5.0, None),
        ("UserPromptSubmit", None, 7.5, None),
        ("UserPromptSubmit", 0.0, 100.0, 0.0),  # asked to wait as long as the work takes
        ("warm", None, 100.0, 0.0),
    ],
)
def test_a_hook_answering_by_itself_has_only_the_rest_of_its_deadline(
    event: str, asked: float | None, elapsed: float, left: float | None
) -> None:
    assert time_left(event, asked, elapsed) == (pytest.approx(left) if left else left)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _answer_after_a_broken_server(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsysbinary: Any, *, lost: float
) -> tuple[bytes, list[float | None], Any]:
    """``answer_hook`` for a prompt whose server took ``lost`` seconds (on a fake clock) and
    then broke off: what it printed and the deadlines it gave ``run_hook``."""
    env = make_project(isolated_home)
    clock = _Clock()
    given: list[float | None] = []

    def broken_server(*args: Any, **kwargs: Any) -> None:
        clock.now += lost
        return None

    def run_hook(*args: Any, deadline: float | None = None, **kwargs: Any) -> HookRun:
        given.append(deadline)
        return HookRun(answer=b"ANSWERED", status="ok", seconds=0.0)

    stdin = hook_input("UserPromptSubmit", env, prompt="write the release notes")
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(stdin)))
    monkeypatch.setattr("skillshelf.cli.hook_client.ask_server", broken_server)
    monkeypatch.setattr("skillshelf.hooks.runner.run_hook", run_hook)
    monkeypatch.chdir(env.cwd)
    hook_answer.answer_hook("UserPromptSubmit", "codex", None, clock=clock)
    return capsysbinary.readouterr().out, given, env


def test_a_hook_whose_server_broke_off_works_only_for_the_time_left(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsysbinary: Any
) -> None:
    out, given, _ = _answer_after_a_broken_server(isolated_home, monkeypatch, capsysbinary, lost=3.5)
    assert out == b"ANSWERED"
    assert given == [pytest.approx(1.5)]


def test_a_hook_whose_server_broke_off_past_the_deadline_answers_empty_at_once(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsysbinary: Any
) -> None:
    out, given, env = _answer_after_a_broken_server(isolated_home, monkeypatch, capsysbinary, lost=6.0)
    assert (out, given) == (b"", [])
    line = log_path(env.dirs.state).read_text(encoding="utf-8").splitlines()[-1]
    assert " codex UserPromptSubmit timeout 6000ms no time left" in line
