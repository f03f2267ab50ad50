"""The MCP server over streamable HTTP: loopback by default, optional bearer token.

With a token, every HTTP request must carry ``Authorization: Bearer TOKEN``; anything else
gets ``401`` with a ``WWW-Authenticate`` header and never reaches the MCP layer. The token is
compared in constant time. Binding another address than loopback without a token prints a
warning, since anyone who can reach the port could then read every skill.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from skillshelf.errors import UsageError

__all__ = ["BearerTokenMiddleware", "bind_socket", "is_loopback", "run_http"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MCP_PATH = "/mcp"


class BearerTokenMiddleware:
    """ASGI middleware answering 401 to any HTTP request without the right bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise UsageError("the bearer token is empty", hint="pass a non-empty --token", code="SV400")
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._authorised(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "message": "missing or wrong bearer token"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="skillshelf"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorised(self, scope: Scope) -> bool:
        for key, value in scope.get("headers", []):
            if key.lower() == b"authorization":
                return hmac.compare_digest(bytes(value), self._expected)
        return False


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets whose proto
    # says TCP, and without it small responses wait ~40 ms for a delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        in_use = exc.errno == errno.EADDRINUSE
        hint = (
            "choose another --port, or stop the program using it"
            if in_use
            else ("--host must be an address of this machine (127.0.0.1 by default)")
        )
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}", hint=hint, code="SV410") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def run_http(
    server: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve ``server`` (an SDK ``Server``) over streamable HTTP until interrupted."""
    import anyio
    import uvicorn

    if not is_loopback(host) and not token:
        print(
            f"skillshelf: warning SV420: serving on {host} without --token: anyone who can reach this "
            "port can read every skill",
            file=sys.stderr,
        )
    app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    if token:
        app = BearerTokenMiddleware(app, token)
    sock = bind_socket(host, port)
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}{MCP_PATH}"
    if announce is not None:
        announce(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    anyio.run(uvicorn.Server(config).serve, [sock])
