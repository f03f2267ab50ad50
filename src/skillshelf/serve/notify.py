"""Telling connected MCP clients that the skills changed, in both protocol eras.

Clients on the handshake protocols (2025-11-25 and earlier: Claude Code, Codex, most
clients today) get ``notifications/*/list_changed`` on their connection's standalone channel;
the :class:`SessionTracker` middleware remembers each such connection when it sends a request.
Clients on 2026-07-28 opt in with ``subscriptions/listen``; they are reached through the
SDK's subscription bus.

A warning the server has for every client (:meth:`ChangeNotifier.warn`: the folder watch gave up)
goes out as an MCP logging message (``notifications/message``, level ``warning``), once per
connection. Every handshake-era connection gets it on its own channel, and each one that connects
later on its first request after ``initialize``, on that request's stream. On 2026-07-28 a log
message may only ride the stream of a request whose ``_meta`` asked for that level
(``io.modelcontextprotocol/logLevel``, ``warning`` or below): an open ``subscriptions/listen``
stream that asked gets it when the watch gives up (one opened later, right after its
acknowledgement), and any other request that asked gets it before its answer. A 2026-07-28 client
that asks for no log messages is not told: the protocol gives no channel for it. A 2026-07-28
request is a connection of its own (the SDK makes one per request, on every transport; nothing
ties two requests to one client), so each request that asks is told, and each listen stream once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, cast

import mcp.types as types
from mcp.server.connection import allowed_log_levels
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourcesListChanged,
)
from mcp.types import RequestId
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["ChangeNotifier"]

log = logging.getLogger(__name__)


class ChangeNotifier:
    """Fan-out of list-changed events to every connected client (legacy sessions and listen streams)."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._sessions: dict[int, ServerSession] = {}
        self._connections: set[int] = set()
        self._warned: set[int] = set()
        self._listens: dict[object, _Listen] = {}
        self.warning: str | None = None
        """The warning every client is sent (once per connection), once there is one."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Server middleware: remember the connection of every handshake-era request, and warn
        the clients that can be warned (see the module's docstring).

        The entries are dropped when the connection closes (its exit stack unwinds), so a long
        running HTTP server does not keep sessions of clients that are gone.
        """
        connection = getattr(ctx.session, "_connection", None)
        key = id(connection)
        if connection is not None and key not in self._connections:
            self._connections.add(key)
            connection.exit_stack.callback(self._forget, key)
        asked = connection is not None and ctx.request_id is not None and ctx.method != "initialize"
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            if connection is not None:
                self._sessions.setdefault(key, ctx.session)
            if self.warning is not None and asked:
                await self._send_warning(key, ctx.session, ctx.request_id)  # before the answer, with it
        elif asked and "warning" in allowed_log_levels(ctx.protocol_version, ctx.meta):
            if ctx.method == "subscriptions/listen":
                return await self._listen(ctx, call_next, key)
            if self.warning is not None:
                await self._send_warning(key, ctx.session, ctx.request_id)
        return await call_next(ctx)

    def _forget(self, key: int) -> None:
        self._sessions.pop(key, None)
        self._warned.discard(key)
        self._connections.discard(key)

    async def _listen(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext, key: int
    ) -> HandlerResult:
        """Serve a 2026-07-28 listen stream that asked for warnings: warn on it once it is
        acknowledged (the acknowledgement is its first frame), now or when the watch gives up."""
        token = object()
        listen = _Listen(key, ctx.session, ctx.request_id)

        async def acknowledged() -> None:
            self._listens[token] = listen
            await self._warn_listen(listen)

        try:
            return await call_next(
                replace(ctx, session=cast(ServerSession, _AckSpy(ctx.session, acknowledged)))
            )
        finally:
            self._listens.pop(token, None)

    async def _warn_listen(self, listen: _Listen) -> None:
        meta = {SUBSCRIPTION_ID_META_KEY: listen.request}  # as on every frame of the stream
        await self._send_warning(listen.key, listen.session, listen.request, meta)

    async def warn(self, text: str) -> None:
        """Send ``text`` as a warning to every client that can be warned now, and to each later
        (see the module's docstring)."""
        self.warning = text
        for key, session in list(self._sessions.items()):
            await self._send_warning(key, session)
        for listen in list(self._listens.values()):
            await self._warn_listen(listen)

    async def _send_warning(
        self,
        key: int,
        session: ServerSession,
        request: RequestId | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Send the warning on ``session``'s connection once: on the stream of ``request`` when
        given (over HTTP the one stream sure to be open), else on the connection's own."""
        if key in self._warned or self.warning is None:
            return
        self._warned.add(key)
        params = types.LoggingMessageNotificationParams(
            level="warning", logger="skillshelf", data=self.warning, _meta=meta
        )
        try:
            await session.send_notification(types.LoggingMessageNotification(params=params), request)
        except Exception as exc:  # a client that went away must not break the others
            log.debug("could not warn a client: %s", exc)

    @property
    def legacy_sessions(self) -> int:
        return len(self._sessions)

    async def publish(self, *, prompts: bool, resources: bool) -> None:
        """Send the list-changed notifications that apply; failures on one client never stop the rest."""
        if resources:
            await self.bus.publish(ResourcesListChanged())
        if prompts:
            await self.bus.publish(PromptsListChanged())
        for session in list(self._sessions.values()):
            try:
                if resources:
                    await session.send_resource_list_changed()
                if prompts:
                    await session.send_prompt_list_changed()
            except Exception as exc:  # a client that went away must not break the others
                log.debug("could not notify a client: %s", exc)


class _Listen:
    """An open listen stream that asked for warnings: its connection's key, session and request."""

    __slots__ = ("key", "request", "session")

    def __init__(self, key: int, session: ServerSession, request: RequestId | None) -> None:
        self.key, self.session, self.request = key, session, request


class _AckSpy:
    """A listen request's session that awaits ``acknowledged`` once the stream's acknowledgement
    is sent (in the stream's own task: nothing can come before it); the rest is the session's."""

    def __init__(self, session: ServerSession, acknowledged: Callable[[], Awaitable[None]]) -> None:
        self._session, self._acknowledged = session, acknowledged

    async def send_notification(
        self, notification: types.ServerNotification, related_request_id: RequestId | None = None
    ) -> None:
        await self._session.send_notification(notification, related_request_id)
        if isinstance(notification, types.SubscriptionsAcknowledgedNotification):
            await self._acknowledged()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)
