"""The MCP sessions of the streamable HTTP transport, bounded.

The SDK holds a session that was opened and never used again for 30 minutes, up to 10,000 of
them, then refuses every new client with ``503``: any local process could use them all up.
:class:`BoundedSessions` expires those within a minute, idle ones after 5, and at its limit
closes the least recently used idle session instead of refusing (:class:`SessionLimits`);
:class:`SessionRequests` tells it which sessions have a request in flight, and
:func:`session_app` puts the two in front of the server, behind the body checks
(:mod:`skillshelf.serve.http_bodies`).
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.routing import Route

from skillshelf.serve.http_bodies import ASGIApp, Message, Receive, Scope, Send, checked_bodies

__all__ = ["BoundedSessions", "SessionLimits", "SessionRequests", "session_app"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionLimits:
    """How many MCP sessions the HTTP server holds and for how long (seconds).

    ``max_sessions``: 256. A session the server holds costs about 46 KB and a task (10,200
    sessions grew the server by 470 MB), so 256 stay near 12 MB; the agents of one machine open
    one session each (their subagents one more), tens at most. Past the limit the least recently
    used idle session is closed to admit the new one, so the limit refuses a client (``503``)
    only while every session has a request in flight.
    ``idle_timeout``: 5 minutes without a request in flight. The SDK's client (and Codex's) keeps
    a GET stream open, which counts as a request in flight, so a connected client does not
    expire; one that comes back later gets ``404`` and opens a new session, as MCP says.
    ``opening_timeout``: 30 seconds for a session no request has named since the one that
    opened it (a client sends ``notifications/initialized`` at once).
    """

    max_sessions: int = 256
    idle_timeout: float = 300.0
    opening_timeout: float = 30.0


class BoundedSessions(StreamableHTTPSessionManager):
    """The SDK's session manager with the :class:`SessionLimits`: a session no request named
    after its opening one expires after ``opening_timeout``, an idle one after ``idle_timeout``,
    and at ``max_sessions`` the least recently used idle session (one never named again first)
    is closed to admit a new one.

    A request is in flight from its headers (:class:`SessionRequests` counts it, the time its
    body is read included) to its answer's last; a session with one in flight is never closed.
    Relies on the SDK (2.3.0): ``_admit_session`` is called under the creation lock to register a
    session and returns None at ``max_sessions``; ``_serve_opening_request`` serves the request
    without a session id; ``_discard_session`` forgets a session however it ended;
    ``_server_instances`` and ``_session_owners`` are its tables; cancelling a transport's
    ``idle_scope`` (or passing its ``deadline``) ends the session, as its idle timeout does.
    """

    def __init__(
        self, app: Any, *, security: TransportSecuritySettings | None, limits: SessionLimits
    ) -> None:
        super().__init__(
            app,
            security_settings=security,
            session_idle_timeout=limits.idle_timeout,
            max_sessions=limits.max_sessions,
        )
        self.limits = limits
        self._recent: dict[str, None] = {}  # the sessions held, least recently used first
        self._named: set[str] = set()  # those a request named after the opening one
        self._in_flight: Counter[str] = Counter()

    def __contains__(self, session_id: object) -> bool:
        """Whether ``session_id`` names a session the server holds."""
        return session_id in self._server_instances

    def hold(self, session_id: str) -> None:
        """A request naming ``session_id`` has begun: the session is in use until :meth:`release`."""
        self._named.add(session_id)
        self._begin(session_id)

    def release(self, session_id: str) -> None:
        """A request naming ``session_id`` has ended."""
        self._in_flight[session_id] -= 1
        if self._in_flight[session_id] > 0:
            return
        del self._in_flight[session_id]
        transport = self._server_instances.get(session_id)
        if transport is None:
            return
        self._recent.pop(session_id, None)
        self._recent[session_id] = None
        scope = transport.idle_scope
        if scope is not None and not scope.cancel_called:
            named = session_id in self._named
            timeout = self.limits.idle_timeout if named else self.limits.opening_timeout
            scope.deadline = anyio.current_time() + timeout

    def _begin(self, session_id: str) -> None:
        self._in_flight[session_id] += 1
        self._recent.pop(session_id, None)
        self._recent[session_id] = None
        transport = self._server_instances.get(session_id)
        if transport is not None and transport.idle_scope is not None:
            transport.idle_scope.deadline = math.inf

    def _admit_session(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        if len(self._server_instances) >= self.limits.max_sessions:
            self._close_least_recent()
        transport = super()._admit_session(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            self._begin(transport.mcp_session_id)  # its opening request is in flight
        return transport

    async def _serve_opening_request(
        self, http_transport: StreamableHTTPServerTransport, scope: Scope, receive: Receive, send: Send
    ) -> None:
        try:
            await super()._serve_opening_request(http_transport, scope, receive, send)
        finally:
            if http_transport.mcp_session_id is not None:
                self.release(http_transport.mcp_session_id)

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        self._recent.pop(session_id, None)
        self._named.discard(session_id)
        await super()._discard_session(session_id, transport)

    def _close_least_recent(self) -> None:
        """Close the least recently used idle session, one never named again first (none: all busy)."""
        idle = [
            sid
            for sid in self._recent
            if not self._in_flight[sid]
            and (transport := self._server_instances.get(sid)) is not None
            and transport.idle_scope is not None
        ]
        unnamed = [sid for sid in idle if sid not in self._named]
        if not idle:
            return
        chosen = (unnamed or idle)[0]
        transport = self._server_instances.pop(chosen)  # its id answers 404 from now on
        self._session_owners.pop(chosen, None)
        self._recent.pop(chosen, None)
        self._named.discard(chosen)
        assert transport.idle_scope is not None
        transport.idle_scope.cancel()  # its server task ends and terminates the transport
        logger.info("closed idle session %s to admit a new one", chosen)


class SessionRequests:
    """ASGI middleware holding the session a request names while it is in flight
    (:meth:`BoundedSessions.hold`), and taking the ``mcp-session-id`` header off an error reply
    to a request that names no session: the SDK's transport puts the id of the session it was
    opening on its refusals (``406``, ``400``, ``405``), and discards that session right after."""

    def __init__(self, app: ASGIApp, sessions: BoundedSessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
        if session is None:
            await self.app(scope, receive, _without_session_on_errors(send))
            return
        if session not in self.sessions:
            await self.app(scope, receive, send)
            return
        self.sessions.hold(session)
        try:
            await self.app(scope, receive, send)
        finally:
            self.sessions.release(session)


def _without_session_on_errors(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start" and message.get("status", 200) >= 400:
            headers = [(k, v) for k, v in message.get("headers", []) if bytes(k).lower() != b"mcp-session-id"]
            message = {**message, "headers": headers}
        await send(message)

    return sending


def session_app(
    server: Any, *, path: str, security: TransportSecuritySettings | None, limits: SessionLimits
) -> ASGIApp:
    """The streamable HTTP app of ``server`` at ``path``: :class:`BoundedSessions` behind
    :class:`SessionRequests` and :func:`checked_bodies` (the SDK's ``streamable_http_app``
    without auth, whose session manager cannot be chosen)."""
    sessions = BoundedSessions(server, security=security, limits=limits)
    starlette = Starlette(
        routes=[Route(path, endpoint=StreamableHTTPASGIApp(sessions))],
        lifespan=lambda _app: sessions.run(),
    )
    checked = checked_bodies(starlette, path=path, security=security, sessions=sessions)
    return SessionRequests(checked, sessions)
