"""Telling connected MCP clients that the skills changed, in both protocol eras.

Clients on the handshake protocols (2025-11-25 and earlier: Claude Code, Codex, most
clients today) get ``notifications/*/list_changed`` on their connection's standalone channel;
the :class:`SessionTracker` middleware remembers each such connection when it sends a request.
Clients on 2026-07-28 opt in with ``subscriptions/listen``; they are reached through the
SDK's subscription bus.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, PromptsListChanged, ResourcesListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["ChangeNotifier"]

log = logging.getLogger(__name__)


class ChangeNotifier:
    """Fan-out of list-changed events to every connected client (legacy sessions and listen streams)."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._sessions: dict[int, ServerSession] = {}

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
        return await call_next(ctx)

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
