"""The MCP server over streamable HTTP: loopback by default, optional bearer token.

With a token, every HTTP request must carry ``Authorization: Bearer TOKEN``; anything else
gets ``401`` with a ``WWW-Authenticate`` header and never reaches the MCP layer. The token is
compared in constant time. Binding another address than loopback without a token prints a
warning, since anyone who can reach the port could then read every skill.

On a loopback address, however it is spelt (``127.0.0.2``, ``[::1]``, ``0:0:0:0:0:0:0:1``),
requests are checked against DNS rebinding: a ``Host`` header that is not a loopback name
gets ``421`` and an ``Origin`` that is not a loopback page (on any port) gets ``403``
(:func:`loopback_security`). The SDK turns this on by itself only for the exact strings
``127.0.0.1``, ``localhost`` and ``::1``, so the host is normalised and the settings are always
passed.

A POST body the SDK's validation refuses (not JSON, a lone surrogate, no JSON-RPC message) gets
``400`` with the JSON-RPC error stdio answers the same line with, and sessions are bounded in
number and idle time (:mod:`.http_sessions`).
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from skillshelf.errors import UsageError

if TYPE_CHECKING:
    from skillshelf.serve.http_sessions import SessionLimits

__all__ = [
    "BearerTokenMiddleware",
    "bind_socket",
    "http_app",
    "is_loopback",
    "loopback_security",
    "normalise_host",
    "run_http",
    "url_host",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MCP_PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")  # what the SDK accepts for its loopback hosts


class BearerTokenMiddleware:
    """ASGI middleware answering 401 to any HTTP request without the right bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise UsageError("the bearer token is empty", hint="pass a non-empty --token", code="SV400")
        self.app = app
        self._expected = token.encode()

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
        """Whether the ``Authorization`` header holds ``Bearer TOKEN``: the scheme in any case
        and one or more spaces after it (RFC 9110 §11.1, §11.4), the token exactly."""
        for key, value in scope.get("headers", []):
            if key.lower() == b"authorization":
                scheme, _, credentials = bytes(value).strip(b" \t").partition(b" ")
                is_bearer = scheme.lower() == b"bearer"
                return hmac.compare_digest(credentials.lstrip(b" "), self._expected) and is_bearer
        return False


def _unbracketed(host: str) -> str:
    bare = host.strip()
    return bare[1:-1] if bare.startswith("[") and bare.endswith("]") else bare


def normalise_host(host: str) -> str:
    """``host`` as it is bound: one pair of brackets taken off, an IP address in its canonical
    form (``0:0:0:0:0:0:0:1`` is ``::1``), a name in lower case."""
    bare = _unbracketed(host)
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        return bare.lower()


def url_host(host: str) -> str:
    """``host`` (normalised) as a URL or a Host header writes it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    bare = normalise_host(host)
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def loopback_security(host: str, port: int) -> tuple[list[str], list[str]]:
    """The ``Host`` and ``Origin`` values a server on loopback ``host:port`` accepts: its address
    as given and in canonical form, and the names the SDK accepts on loopback, on any port (a
    tunnel may forward another); without a port too when ``port`` is 80, where clients leave
    it out. An Origin on another loopback port is no way in for a browser: no reply carries
    CORS headers, so a JSON POST's preflight gets ``405``, and a ``text/plain`` or form body,
    which needs none, gets ``400``."""
    given = (url_host(_unbracketed(host)), url_host(normalise_host(host)))
    names = list(dict.fromkeys((*given, *LOOPBACK_NAMES)))
    hosts = [f"{name}:*" for name in names] + (names if port == 80 else [])
    origins = [f"http://{name}" for name in hosts]
    return hosts, origins


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


def http_app(
    server: Any,
    *,
    host: str,
    port: int,
    token: str | None = None,
    limits: SessionLimits | None = None,
) -> ASGIApp:
    """The ASGI app serving ``server`` (an SDK ``Server``) over streamable HTTP at
    ``MCP_PATH`` on ``host:port`` (as given, ``port`` bound): the loopback checks, the body
    checks, the session limits and the bearer token."""
    from mcp.server.transport_security import TransportSecuritySettings

    from skillshelf.serve.http_sessions import SessionLimits, session_app

    security = None
    if is_loopback(host):
        hosts, origins = loopback_security(host, port)
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        )
    app = session_app(server, path=MCP_PATH, security=security, limits=limits or SessionLimits())
    if token:
        app = BearerTokenMiddleware(app, token)
    return app


def run_http(
    server: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    announce: Callable[[str], None] | None = None,
    limits: SessionLimits | None = None,
) -> None:
    """Serve ``server`` (an SDK ``Server``) over streamable HTTP until interrupted."""
    import anyio
    import uvicorn

    given, host = host, normalise_host(host)
    if not is_loopback(host) and not token:
        print(
            f"skillshelf: warning SV420: serving on {host} without --token: anyone who can reach this "
            "port can read every skill",
            file=sys.stderr,
        )
    sock = bind_socket(host, port)
    bound_port = sock.getsockname()[1]
    app = http_app(server, host=given, port=bound_port, token=token, limits=limits)
    url = f"http://{url_host(host)}:{bound_port}{MCP_PATH}"
    if announce is not None:
        announce(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    anyio.run(uvicorn.Server(config).serve, [sock])
