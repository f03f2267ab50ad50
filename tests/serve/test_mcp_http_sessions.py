"""The HTTP server's sessions (serve/http_sessions.py): a session no request named after its
opening one expires, at the limit the least recently used idle one makes room, one with a
request in flight is never closed, and a reply that opens no session names none; a client
that goes away mid-upload, with a session or opening one, leaves no trace."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from serve_helpers import INITIALIZE, MCP_HEADERS, make_skill_tree, post_mcp, serve_args, start_http, stop

from skillshelf.serve.http import bind_socket, http_app
from skillshelf.serve.http_sessions import BoundedSessions, SessionLimits, SessionRequests
from skillshelf.serve.mcp_server import ServeOptions, build_server

pytestmark = pytest.mark.usefixtures("isolated_home")

INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
TOOLS_LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
HANG_GUARD = 30.0


@contextlib.contextmanager
def _served(limits: SessionLimits) -> Iterator[tuple[str, BoundedSessions]]:
    """A real HTTP server in this process with ``limits``: its URL and its sessions."""
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = http_app(build_server([], ServeOptions(watch=False)), host="127.0.0.1", port=port, limits=limits)
    assert isinstance(app, SessionRequests)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_GUARD
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp", app.sessions
    finally:
        server.should_exit = True
        thread.join(HANG_GUARD)
        sock.close()


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    proc, address, _log = start_http(make_skill_tree(tmp_path), tmp_path, "--no-watch")
    yield address
    stop(proc)


def _open(url: str) -> str:
    response = post_mcp(url, INITIALIZE)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def _name(url: str, session: str, body: str = INITIALIZED) -> int:
    named = {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    return post_mcp(url, body, **named).status_code


def _until_gone(sessions: BoundedSessions, session: str) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while session in sessions:
        assert time.monotonic() < deadline, "the session was never closed"
        time.sleep(0.02)


def test_a_session_no_request_named_after_its_opening_one_expires_after_the_opening_timeout() -> None:
    with _served(SessionLimits(max_sessions=10, idle_timeout=600, opening_timeout=600)) as (url, sessions):
        used = _open(url)
        assert _name(url, used) == 202
        sessions.limits = dataclasses.replace(sessions.limits, opening_timeout=0.2)  # from now on
        opened = _open(url)
        _until_gone(sessions, opened)
        assert _name(url, opened) == 404  # the client starts a new session
        assert used in sessions and _name(url, used, TOOLS_LIST) == 200  # on the idle timeout


def test_at_the_limit_the_least_recently_used_idle_session_is_closed_one_never_named_first() -> None:
    with _served(SessionLimits(max_sessions=3, idle_timeout=600, opening_timeout=600)) as (url, sessions):
        first, second = _open(url), _open(url)
        assert _name(url, first) == 202 and _name(url, second) == 202
        unnamed = _open(url)
        assert _name(url, first, TOOLS_LIST) == 200  # second is now the least recently used
        fourth = _open(url)  # admitted, not refused with 503
        assert unnamed not in sessions and _name(url, unnamed) == 404
        assert _name(url, fourth) == 202
        _open(url)
        assert second not in sessions and _name(url, second) == 404
        assert first in sessions and fourth in sessions


def _slow_post(url: str, session: str | None) -> socket.socket:
    """A POST naming ``session`` (None: opening one) whose body is half sent: a request in
    flight until it ends."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    body = TOOLS_LIST.encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n"
        + ("" if session is None else f"Mcp-Session-Id: {session}\r\n")
        + f"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD)
    sock.sendall(head.encode() + body[: len(body) // 2])
    return sock


def _in_flight(sessions: BoundedSessions, session: str) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not sessions._in_flight[session]:
        assert time.monotonic() < deadline, "the request never reached the server"
        time.sleep(0.01)


def test_a_session_with_a_request_in_flight_is_never_closed_to_admit_another() -> None:
    with _served(SessionLimits(max_sessions=2, idle_timeout=600, opening_timeout=600)) as (url, sessions):
        busy, idle = _open(url), _open(url)
        assert _name(url, busy) == 202 and _name(url, idle) == 202
        with _slow_post(url, busy) as uploading:
            _in_flight(sessions, busy)
            assert _name(url, idle, TOOLS_LIST) == 200  # busy is the least recently used
            third = _open(url)
            assert idle not in sessions and busy in sessions
            with _slow_post(url, third) as also_uploading:
                _in_flight(sessions, third)
                refused = post_mcp(url, INITIALIZE)  # every session is busy: the SDK's refusal
                assert refused.status_code == 503 and "mcp-session-id" not in refused.headers
                body = TOOLS_LIST.encode()
                also_uploading.sendall(body[len(body) // 2 :])
                assert also_uploading.recv(4096).startswith(b"HTTP/1.1 200")
            body = TOOLS_LIST.encode()
            uploading.sendall(body[len(body) // 2 :])
            assert uploading.recv(4096).startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    ("method", "body", "headers", "status"),
    [
        ("POST", INITIALIZE, {"Accept": ""}, 406),
        ("POST", TOOLS_LIST, {}, 400),  # Missing session ID
        ("OPTIONS", "", {}, 405),
        ("GET", "", {"Accept": "text/event-stream"}, 400),
    ],
)
def test_a_reply_that_opens_no_session_carries_no_session_id(
    url: str, method: str, body: str, headers: dict[str, str], status: int
) -> None:
    response = httpx.request(method, url, content=body, headers={**MCP_HEADERS, **headers}, timeout=30)
    assert response.status_code == status
    assert "mcp-session-id" not in response.headers
    assert post_mcp(url, INITIALIZE).headers["mcp-session-id"]  # one that opens a session does


def test_a_client_going_away_mid_upload_leaves_no_traceback(tmp_path: Path, isolated_home: object) -> None:
    log = tmp_path / "stderr.log"
    with log.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                *serve_args(make_skill_tree(tmp_path), "--transport", "http", "--port", "0", "--no-watch"),
            ],
            cwd=tmp_path,
            env=dict(os.environ),
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + HANG_GUARD
        while "/mcp" not in log.read_text(encoding="utf-8"):
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text(encoding="utf-8")
            time.sleep(0.05)
        url = log.read_text(encoding="utf-8").split(" at ", 1)[1].split()[0]
        session = _open(url)
        assert _name(url, session) == 202
        for _ in range(5):
            _slow_post(url, session).close()  # with a session
            _slow_post(url, None).close()  # opening one
        assert _name(url, session, TOOLS_LIST) == 200
    finally:
        stop(proc)
    written = log.read_text(encoding="utf-8")
    assert (
        "Traceback" not in written and "ClientDisconnect" not in written and "Error handling" not in written
    )
    assert len(written.splitlines()) <= 1 + 10, written
