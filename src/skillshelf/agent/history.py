"""The conversation as provider-neutral values; providers render it to their wire format.

Keeping one neutral history lets compaction and the guards work the same way for every API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillshelf.tokens import approx_tokens

__all__ = [
    "AssistantMessage",
    "Message",
    "ToolCall",
    "ToolOutput",
    "ToolResults",
    "UserMessage",
    "compact_history",
    "compaction_keeps",
    "history_tokens",
    "message_text",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutput:
    call_id: str
    name: str
    output: str
    is_error: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResults:
    """The answers to every tool call of the preceding assistant message, plus harness notes."""

    outputs: tuple[ToolOutput, ...]
    notes: tuple[str, ...] = ()


Message = UserMessage | AssistantMessage | ToolResults


def _message_tokens(message: Message) -> int:
    if isinstance(message, UserMessage):
        return approx_tokens(message.text)
    if isinstance(message, AssistantMessage):
        calls = sum(approx_tokens(c.name + json.dumps(dict(c.arguments))) for c in message.tool_calls)
        return approx_tokens(message.text) + calls
    return sum(approx_tokens(o.output) for o in message.outputs) + sum(
        approx_tokens(n) for n in message.notes
    )


def history_tokens(history: Sequence[Message]) -> int:
    """Codex's 4-bytes-per-token estimate over the whole history."""
    return sum(_message_tokens(m) for m in history)


def compact_history(history: Sequence[Message], *, keep_last: int, note: str) -> list[Message]:
    """Keep the first user message and the last ``keep_last`` messages, with ``note`` between
    (:func:`compaction_keeps`). Returns the history unchanged when there is nothing to drop."""
    if len(history) <= keep_last + 1:
        return list(history)
    head, *tail = compaction_keeps(history, keep_last=keep_last)
    if tail and isinstance(tail[0], UserMessage):
        tail[0] = UserMessage(text=f"{note}\n\n{tail[0].text}")
        return [head, AssistantMessage(text="(earlier work compacted)"), *tail]
    return [head, AssistantMessage(text="(earlier work compacted)"), UserMessage(text=note), *tail]


def compaction_keeps(history: Sequence[Message], *, keep_last: int) -> list[Message]:
    """The messages a compaction keeps: the first and the last ``keep_last``, the tail moved
    forward past tool results (their calls would be gone); every message when none is dropped."""
    if len(history) <= keep_last + 1:
        return list(history)
    start = len(history) - keep_last
    while start < len(history) and isinstance(history[start], ToolResults):
        start += 1
    return [history[0], *history[start:]]


def message_text(message: Message) -> str:
    """The text of ``message`` that the model reads: its words, tool outputs and notes."""
    if isinstance(message, UserMessage):
        return message.text
    if isinstance(message, AssistantMessage):
        return message.text
    return "\n".join([*(o.output for o in message.outputs), *message.notes])
