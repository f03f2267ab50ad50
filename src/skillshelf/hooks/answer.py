"""What a hook prints: each agent's answer format, and the empty answer.

Both pinned CLIs read the same shape for added context (checked against ``model-standin``):
``{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}}`` on stdout,
exit 0. Codex puts the text in a ``developer`` message right after the user's prompt (it
accepts only the keys its output schema names, and spills text over its
``additionalContextLimit``, 2,500 tokens by default); Claude Code appends ``EVENT hook
additional context: TEXT`` to the system part of the request. Only ``SessionStart`` and
``UserPromptSubmit`` answers carry context here.

The empty answer, nothing on stdout and exit 0, is valid for every event of both agents: the
agent goes on as if there were no hook. It is what a hook gives whenever something fails.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from skillshelf.hooks.agents import Agent

__all__ = ["CONTEXT_EVENTS", "CONTEXT_TOKEN_LIMIT", "EMPTY", "context_answer"]

EMPTY = b""
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})
#: Tokens (4 bytes each) a context answer may carry: under Codex's default additionalContextLimit
#: of 2,500, so Codex never spills it; Claude Code takes the same.
CONTEXT_TOKEN_LIMIT: Mapping[Agent, int] = {"codex": 2400, "claude": 2400}


def context_answer(agent: Agent, event: str, text: str) -> bytes:
    """The answer that adds ``text`` to the model's context, cut at a line end to the agent's
    limit (:data:`EMPTY` for no text, or for an event whose answer cannot carry context)."""
    text = _capped(text, CONTEXT_TOKEN_LIMIT[agent] * 4)
    if not text.strip() or event not in CONTEXT_EVENTS:
        return EMPTY
    payload = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def _capped(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    head = data[:max_bytes].decode("utf-8", errors="ignore")
    return head[: head.rfind("\n")] if "\n" in head else ""
