"""The conversation as provider-neutral values; providers render it to their wire format.

Keeping one neutral history lets compaction and the guards work the same way for every API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from skillshelf.tokens import approx_tokens

__all__ = [
    "AssistantMessage",
    "Message",
    "ReplyEnding",
    "ToolCall",
    "ToolOutput",
    "ToolResults",
    "UserMessage",
    "clip_to_budget",
    "close_open_calls",
    "compact_history",
    "compaction_keeps",
    "history_tokens",
    "message_text",
    "with_note",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    text: str


ReplyEnding = Literal["end", "cut_off", "empty", "refused"]
"""How a reply ended: ``end`` (the model finished it), ``cut_off`` (at the output limit: OpenAI's
``finish_reason`` ``length``, Anthropic's ``stop_reason`` ``max_tokens``), ``empty`` (no text and
no tool call), ``refused`` (OpenAI's ``message.refusal`` or ``content_filter``, Anthropic's
``refusal``). Only ``end`` can be a final answer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    ending: ReplyEnding = "end"


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


def close_open_calls(history: Sequence[Message], output: str) -> list[Message]:
    """``history`` with an answer to every tool call: when it ends on an assistant message's
    calls (a turn cancelled while they ran), each gets ``output`` as an error result, so the
    next request is one the APIs accept."""
    last = history[-1] if history else None
    if not isinstance(last, AssistantMessage) or not last.tool_calls:
        return list(history)
    cut = tuple(ToolOutput(call_id=c.id, name=c.name, output=output, is_error=True) for c in last.tool_calls)
    return [*history, ToolResults(outputs=cut)]


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


def compact_history(
    history: Sequence[Message], *, keep_last: int, note: str, kept: Sequence[Message] | None = None
) -> list[Message]:
    """Keep the first user message and the last ``keep_last`` messages, with ``note`` between
    (:func:`compaction_keeps`; ``kept``: those messages as :func:`clip_to_budget` clipped them).
    Without a ``note`` when nothing is dropped: the history unchanged, or its clipped form."""
    head, *tail = compaction_keeps(history, keep_last=keep_last) if kept is None else kept
    if len(tail) + 1 == len(history):
        return [head, *tail]
    if tail and isinstance(tail[0], UserMessage):
        tail[0] = UserMessage(text=f"{note}\n\n{tail[0].text}")
        return [head, AssistantMessage(text="(earlier work compacted)"), *tail]
    return [head, AssistantMessage(text="(earlier work compacted)"), UserMessage(text=note), *tail]


def with_note(history: Sequence[Message], note: str) -> list[Message]:
    """``history`` with ``note`` for the model at its end: among the last tool results' notes,
    before the last user message's text, or as a user message of its own."""
    *rest, last = history
    if isinstance(last, ToolResults):
        return [*rest, replace(last, notes=(*last.notes, note))]
    if isinstance(last, UserMessage):
        return [*rest, UserMessage(text=f"{note}\n\n{last.text}")]
    return [*history, UserMessage(text=note)]


MIN_CLIP_TOKENS = 256  # no message is clipped below this


def clip_to_budget(messages: Sequence[Message], budget: int) -> tuple[list[Message], int]:
    """``messages`` with the largest clipped (texts, tool outputs, tool-call arguments: their
    head and tail, with a marker saying how much was cut) until together they fit ``budget``
    tokens, where clipping alone can do it; and how many were clipped."""
    sizes = [_message_tokens(m) for m in messages]
    cap = _water_level(sizes, budget)
    if cap is None:
        return list(messages), 0
    cap = max(cap, MIN_CLIP_TOKENS)
    out = [_clip_message(m, cap) if size > cap else m for m, size in zip(messages, sizes, strict=True)]
    return out, sum(1 for size in sizes if size > cap)


def _water_level(sizes: Sequence[int], budget: int) -> int | None:
    """The largest cap that, applied to each size, brings their sum within ``budget``; None when
    the sum already fits."""
    if sum(sizes) <= budget:
        return None
    ordered = sorted(sizes)
    rest = budget
    for index, size in enumerate(ordered):
        share = max(0, rest) // (len(ordered) - index)
        if size > share:
            return share
        rest -= size
    return None


def _clip_text(text: str, tokens: int) -> str:
    """``text`` within about ``tokens`` tokens (4 UTF-8 bytes each): its head and tail, with
    the count of characters cut between them."""
    data = text.encode("utf-8")
    if len(data) <= tokens * 4:
        return text
    half = max(1, tokens * 2 - 40)
    head = data[:half].decode("utf-8", errors="ignore")
    tail = data[-half:].decode("utf-8", errors="ignore")
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n... [{cut} characters cut from this message to fit the context] ...\n{tail}"


def _clip_arguments(arguments: Mapping[str, Any], tokens: int) -> dict[str, Any]:
    """Tool-call arguments with each oversized value clipped (a value that is not a string
    becomes its JSON text, clipped)."""
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value)
        out[key] = _clip_text(text, tokens) if approx_tokens(text) > tokens else value
    return out


def _clip_message(message: Message, tokens: int) -> Message:
    if isinstance(message, UserMessage):
        return UserMessage(text=_clip_text(message.text, tokens))
    if isinstance(message, AssistantMessage):
        share = max(1, tokens // (1 + len(message.tool_calls)))
        calls = tuple(replace(c, arguments=_clip_arguments(c.arguments, share)) for c in message.tool_calls)
        return AssistantMessage(text=_clip_text(message.text, share), tool_calls=calls)
    share = max(1, tokens // max(1, len(message.outputs) + len(message.notes)))
    outputs = tuple(replace(o, output=_clip_text(o.output, share)) for o in message.outputs)
    return ToolResults(outputs=outputs, notes=tuple(_clip_text(n, share) for n in message.notes))


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
