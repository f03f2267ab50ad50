"""A hook's side of the hook server (:mod:`skillshelf.hooks.server`): hand the call over and
print what comes back.

Light on purpose (sockets, JSON and the address rules only): when the server answers, this is
all the hook process loads besides the interpreter.

:func:`ask_server` returns the answer, or None when the hook must answer by itself: no server
is listening (none started yet, it left, it is turned off), it declined the call, or the
connection broke. A server that takes longer than the event's deadline gets the answer a late
hook gives anyway: the empty one. A hook that answers by itself after asking has only the time
left of its deadline (:func:`time_left`), so the agent never waits for two deadlines.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from pathlib import Path

from skillshelf.hooks.address import server_address, server_off
from skillshelf.hooks.deadlines import work_limit

__all__ = ["CONNECT_SECONDS", "ask_server", "server_call", "time_left"]

CONNECT_SECONDS = 0.5
SLACK_SECONDS = 1.0  # beyond the event's deadline, for the hand-over itself
PROTOCOL = 1
EMPTY = b""
TIMED_OUT = b"timeout"  # server_call's word for a server that did not answer in time


def ask_server(
    event: str, agent: str, deadline: float | None, raw: bytes, *, environ: Mapping[str, str], cwd: Path
) -> bytes | None:
    """The server's answer to this hook call, or None (see the module docstring)."""
    if server_off(environ) or event == "warm":
        return None
    header = {
        "protocol": PROTOCOL,
        "event": event,
        "agent": agent,
        "deadline": deadline,
        "cwd": str(cwd),
        "environ": dict(environ),
    }
    limit = work_limit(event, deadline)
    reply = server_call(header, raw, environ=environ, wait=limit + SLACK_SECONDS if limit else None)
    if reply is None or reply == TIMED_OUT:
        return EMPTY if reply == TIMED_OUT else None
    status, _, answer = reply.partition(b"\n")
    return answer if status == b"ok" else None


def time_left(event: str, deadline: float | None, elapsed: float) -> float | None:
    """The deadline a hook that answers by itself ``elapsed`` seconds after it started passes
    on: what is left of the event's (0: as long as the work takes, as asked), None when nothing
    is left (the hook then answers empty)."""
    limit = work_limit(event, deadline)
    if not limit:
        return 0.0
    left = limit - max(elapsed, 0.0)
    return left if left > 0 else None


def server_call(
    header: Mapping[str, object], raw: bytes, *, environ: Mapping[str, str], wait: float | None
) -> bytes | None:
    """The server's whole reply to one call, :data:`TIMED_OUT` when it did not finish within
    ``wait`` seconds (None: no limit), None when no server took the call."""
    from skillshelf.env import Env

    try:
        state = Env.from_environ(environ, cwd=Path("/")).dirs.state
        address = server_address(state, environ)
    except (OSError, RuntimeError, ValueError):
        return None
    if address is None:
        return None
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except (OSError, AttributeError):  # no Unix sockets here
        return None
    with conn:
        try:
            conn.settimeout(CONNECT_SECONDS)
            conn.connect(str(address.socket))
        except OSError:
            return None
        try:
            conn.settimeout(wait)
            conn.sendall(json.dumps(header).encode("ascii") + b"\n" + raw)
            conn.shutdown(socket.SHUT_WR)
            return _read_all(conn)
        except TimeoutError:
            return TIMED_OUT
        except OSError:
            return None


def _read_all(conn: socket.socket) -> bytes | None:
    chunks: list[bytes] = []
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
    return b"".join(chunks) or None
