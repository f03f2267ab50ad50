"""When the folder watch of `skillshelf serve` gives up, every MCP client is told once with a
warning log message (the code and the fix): those connected then, and those that connect later.
A 2026-07-28 client is told where that protocol lets a log message go: on each request (a listen
stream included) whose ``_meta`` asks for warnings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.server.subscriptions import SUBSCRIPTION_ID_META_KEY
from serve_helpers import serve_args, stop, write_skill

pytestmark = pytest.mark.usefixtures("isolated_home")

LAUNCHER = Path(__file__).with_name("watch_gives_up.py")


def _warnings(seen: list[object]) -> list[types.LoggingMessageNotificationParams]:
    return [m.params for m in seen if isinstance(m, types.LoggingMessageNotification)]


def _check(warning: types.LoggingMessageNotificationParams) -> None:
    text = str(warning.data)
    assert warning.level == "warning" and text.startswith("SV210:")
    assert "stopped following changes in the skill folders" in text and "(fix: restart" in text


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "first", "A skill.", "Body.")
    return root


def _server_args(trigger: Path, root: Path, *extra: str) -> list[str]:
    return [str(LAUNCHER), str(trigger), *serve_args(root, *extra)[2:]]


def test_a_connected_client_is_warned_once_when_the_watch_gives_up(tmp_path: Path) -> None:
    trigger = tmp_path / "break-the-watch"
    args = _server_args(trigger, _root(tmp_path))
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ), cwd=str(tmp_path))
    seen: list[object] = []

    async def handler(message: object) -> None:
        seen.append(message)

    async def main() -> None:
        async with Client(params, mode="legacy", message_handler=handler) as client:
            await client.list_tools()
            assert _warnings(seen) == []
            trigger.touch()
            with anyio.fail_after(20):
                while not _warnings(seen):
                    await anyio.sleep(0.05)
            await client.list_tools()
            await client.call_tool("list_skills", {})

    anyio.run(main)
    (warning,) = _warnings(seen)
    _check(warning)


def _start_http(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """The server over HTTP, once it has said where it listens and that its watch gave up."""
    proc = subprocess.Popen(
        [sys.executable, *args, "--transport", "http", "--port", "0"],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert proc.stderr is not None
    url, gave_up, lines, deadline = "", False, [], time.monotonic() + 30
    while not (url and gave_up) and time.monotonic() < deadline and (line := proc.stderr.readline()):
        lines.append(line)
        if match := re.search(r"at (http://\S+)", line):
            url = match.group(1)
        gave_up = gave_up or "stopped following changes in the skill folders" in line
    if not (url and gave_up):
        stop(proc)
        raise AssertionError("the server did not start and give up:\n" + "".join(lines))
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe empty
    return proc, url


def test_a_client_connecting_after_the_watch_gave_up_is_warned_on_its_first_request(tmp_path: Path) -> None:
    trigger = tmp_path / "break-the-watch"
    trigger.touch()
    proc, url = _start_http(_server_args(trigger, _root(tmp_path)), tmp_path)
    seen: list[object] = []

    async def handler(message: object) -> None:
        seen.append(message)

    async def main() -> None:
        async with Client(url, mode="legacy", message_handler=handler) as client:
            assert _warnings(seen) == []  # not with the answer to initialize
            await client.list_tools()
            assert len(_warnings(seen)) == 1  # with the answer to the first request
            await client.call_tool("list_skills", {})

    try:
        anyio.run(main)
    finally:
        stop(proc)
    (warning,) = _warnings(seen)
    _check(warning)


def _subscription(warning: types.LoggingMessageNotificationParams) -> object:
    return (warning.meta or {}).get(SUBSCRIPTION_ID_META_KEY)


def test_a_listening_2026_client_that_asks_for_warnings_is_warned_on_its_stream_when_the_watch_gives_up(
    tmp_path: Path,
) -> None:
    trigger = tmp_path / "break-the-watch"
    args = _server_args(trigger, _root(tmp_path))
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ), cwd=str(tmp_path))
    seen: list[object] = []

    async def handler(message: object) -> None:
        seen.append(message)

    async def main() -> None:
        async with Client(params, log_level="warning", message_handler=handler) as client:
            assert client.protocol_version == "2026-07-28"
            async with client.listen(prompts_list_changed=True):
                trigger.touch()
                with anyio.fail_after(20):
                    while not _warnings(seen):  # no request asked: it came on the listen stream
                        await anyio.sleep(0.05)

    anyio.run(main)
    (warning,) = _warnings(seen)
    _check(warning)
    assert _subscription(warning) is not None  # stamped as every frame of that stream


def test_2026_requests_that_ask_for_warnings_are_warned_after_the_watch_gave_up_and_others_are_not(
    tmp_path: Path,
) -> None:
    trigger = tmp_path / "break-the-watch"
    trigger.touch()
    proc, url = _start_http(_server_args(trigger, _root(tmp_path)), tmp_path)
    asking: list[object] = []
    silent: list[object] = []

    async def asks(message: object) -> None:
        asking.append(message)

    async def keeps_silent(message: object) -> None:
        silent.append(message)

    async def main() -> None:
        async with Client(url, log_level="warning", message_handler=asks) as client:
            assert client.protocol_version == "2026-07-28"
            await client.list_tools()
            assert len(_warnings(asking)) == 1  # with the answer (each request stands alone)
            async with client.listen(prompts_list_changed=True):
                with anyio.fail_after(20):
                    while len(_warnings(asking)) < 2:  # right after the acknowledgement
                        await anyio.sleep(0.05)
            await client.call_tool("list_skills", {})
            assert len(_warnings(asking)) == 3
        async with Client(url, message_handler=keeps_silent) as client:  # no log level: no log message
            await client.list_tools()
            async with client.listen(prompts_list_changed=True):
                await client.call_tool("list_skills", {})

    try:
        anyio.run(main)
    finally:
        stop(proc)
    first, listening, last = _warnings(asking)
    for warning in (first, listening, last):
        _check(warning)
    assert _subscription(first) is None and _subscription(listening) is not None
    assert _warnings(silent) == []
