"""Telling connected MCP clients that the skills changed, in both protocol eras.

Clients on the handshake protocols (2025-11-25 and earlier: Claude Code, Codex, most
clients today) get ``notifications/*/list_changed`` on their connection's standalone channel;
the :class:`SessionTracker` middleware remembers each such connection when it sends a request.
Clients on 2026-07-28 opt in with ``subscriptions/listen``; they are reached through the
SDK's subscription bus.

A warning the server has for every client (:meth:`ChangeNotifier.warn`: the folder watch gave up)
goes out as an MCP logging message (``notifications/message``, level ``warning``) to every
handshake-era connection, and to each one that connects later, on its first request after
``initialize``, on that request's stream. Clients on 2026-07-28 receive log messages only on a
request that asks for them (the SDK sends none otherwise), so they are not told this way.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, PromptsListChanged, ResourcesListChanged
from mcp.types import RequestId
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["ChangeNotifier"]

log = logging.getLogger(__name__)


class ChangeNotifier:
    """Fan-out of list-changed events to every connected client (legacy sessions and listen streams)."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._sessions: dict[int, ServerSession] = {}
        self._warned: set[int] = set()
        self.warning: str | None = None
        """The warning every client is sent (once per connection), once there is one."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Server middleware: remember the connection of every handshake-era request.

        The entry is dropped when the connection closes (its exit stack unwinds), so a long
        running HTTP server does not keep sessions of clients that are gone.
        """
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            connection = getattr(ctx.session, "_connection", None)
            key = id(connection)
            if connection is not None and key not in self._sessions:
                self._sessions[key] = ctx.session
                connection.exit_stack.callback(self._sessions.pop, key, None)
                connection.exit_stack.callback(self._warned.discard, key)
            asked = ctx.request_id is not None and ctx.method != "initialize"  # not a notification
            if self.warning is not None and asked and key in self._sessions:
                await self._send_warning(key, ctx.session, ctx.request_id)  # before the answer, with it
        return await call_next(ctx)

    async def warn(self, text: str) -> None:
        """Send ``text`` as a warning to every connected client, and to each that connects later."""
        self.warning = text
        for key, session in list(self._sessions.items()):
            await self._send_warning(key, session)

    async def _send_warning(self, key: int, session: ServerSession, request: RequestId | None = None) -> None:
        """Send the warning on ``session``'s connection once: on the stream of ``request`` when
        given (over HTTP the one stream sure to be open), else on the connection's own."""
        if key in self._warned or self.warning is None:
            return
        self._warned.add(key)
        params = types.LoggingMessageNotificationParams(
            level="warning", logger="skillshelf", data=self.warning
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
