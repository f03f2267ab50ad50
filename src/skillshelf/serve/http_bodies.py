"""Requests of the streamable HTTP transport before the SDK handles them: bodies checked.

The SDK answers a body its validation refuses with its parser's or validator's own words
(``Parse error: unexpected end of hex escape`` for a lone surrogate, a pydantic dump for JSON
that is no JSON-RPC message). :class:`CheckedBodies` reads each POST body to the MCP path first
and answers such a body itself, ``400`` with the JSON-RPC error stdio answers the same line
with (:mod:`skillshelf.serve.jsonrpc_check`); no session is opened for it. Every other request,
and every request the Host/Origin/Content-Type checks refuse, goes on to the SDK as it came,
so it keeps answering those (``421``, ``403``, ...) first, and so does a request naming a session
the server does not hold (the SDK's ``404``, which tells a client to start a new session, comes
before what its body holds). Bodies are read under the SDK's own size cap (``413`` past it), as
the SDK reads them. A client that goes away before its body ends gets no answer and leaves no
trace: the SDK would log its ``ClientDisconnect`` with a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Container, MutableMapping
from typing import Any

from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    RequestBodyLimitMiddleware,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from starlette.requests import Request

from skillshelf.serve.jsonrpc_check import refusal

__all__ = ["ASGIApp", "CheckedBodies", "Message", "Receive", "Scope", "Send", "checked_bodies"]

logger = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def _read_body(receive: Receive) -> tuple[bytes, list[Message]]:
    """The request body and the messages read to get it, to hand on unchanged; the body is
    only whole when the last message says no more follows."""
    messages: list[Message] = []
    body = bytearray()
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return bytes(body), messages
        body.extend(message.get("body", b""))
        if not message.get("more_body", False):
            return bytes(body), messages


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives ``messages`` again, then what ``receive`` gives."""
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


class CheckedBodies:
    """ASGI middleware answering a POST to ``path`` whose body the SDK would refuse with the
    JSON-RPC error of :func:`skillshelf.serve.jsonrpc_check.refusal` (``400``)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        path: str,
        security: TransportSecuritySettings | None,
        sessions: Container[str] | None = None,
    ) -> None:
        """``sessions``: the session ids the server holds (None: not known, every body is checked)."""
        self.app = app
        self._path = path
        self._security = TransportSecurityMiddleware(security)
        self._sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != self._path:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if await self._security.validate_request(request, is_post=True) is not None:
            await self.app(scope, receive, send)  # the SDK answers the refusal itself
            return
        session = request.headers.get("mcp-session-id")
        if session is not None and self._sessions is not None and session not in self._sessions:
            await self.app(scope, receive, send)  # the SDK's 404: start a new session
            return
        body, messages = await _read_body(receive)
        if messages[-1]["type"] != "http.request":
            return  # the client went away before its body ended: nobody to answer
        refused = refusal(body)
        if refused is None:
            await self.app(scope, _replaying(messages, receive), send)
            return
        payload = refused.error.model_dump_json(by_alias=True, exclude_unset=True).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def checked_bodies(
    app: ASGIApp,
    *,
    path: str,
    security: TransportSecuritySettings | None,
    sessions: Container[str] | None = None,
) -> ASGIApp:
    """``app`` behind :class:`CheckedBodies`, which reads no body past the SDK's size cap."""
    checked = CheckedBodies(app, path=path, security=security, sessions=sessions)
    limited: ASGIApp = RequestBodyLimitMiddleware(checked, DEFAULT_MAX_REQUEST_BODY_SIZE)
    return limited
