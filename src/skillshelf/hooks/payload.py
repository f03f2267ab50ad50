"""The JSON an agent writes on a hook's stdin, read into one value for both agents.

Fields seen from the pinned CLIs (every event: ``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``):

- Codex 0.171.0 adds ``model``, ``permission_mode`` and, on turn events, ``turn_id``;
- Claude Code 2.1.197 adds ``prompt_id`` (the turn) on turn events and ``permission_mode``;
- ``UserPromptSubmit``: ``prompt``; ``SessionStart``: ``source`` (``startup``, ``resume``...);
  ``PostToolUse``: ``tool_name``, ``tool_input`` (Codex reports its shell as ``Bash`` with
  ``{"command": ...}`` like Claude Code), ``tool_response``; ``Stop``: ``stop_hook_active``,
  ``last_assistant_message``; ``SessionEnd``: ``reason``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from skillshelf.errors import reason

__all__ = ["HookInput", "HookInputError", "MAX_INPUT_BYTES", "parse_input"]

MAX_INPUT_BYTES = 32 * 1024 * 1024  # a tool's whole output can ride along on PostToolUse


class HookInputError(ValueError):
    """The agent's hook input cannot be used (not JSON, not an object, the wrong event)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HookInput:
    """One hook call, as both agents describe it."""

    event: str
    session_id: str = ""
    turn_id: str = ""  # Codex ``turn_id`` / Claude Code ``prompt_id``
    transcript_path: str = ""
    cwd: str = ""
    prompt: str = ""
    source: str = ""
    tool_name: str = ""
    tool_use_id: str = ""  # the tool call a ``PreToolUse`` / ``PostToolUse`` input is about
    tool_input: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


def _text(data: Mapping[str, object], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def parse_input(raw: bytes, event: str) -> HookInput:
    """Read the hook JSON for ``event``.

    Raises:
        HookInputError: empty, not JSON, not an object, too big, or named another event.
    """
    if len(raw) > MAX_INPUT_BYTES:
        raise HookInputError(f"hook input of {len(raw)} bytes is over the {MAX_INPUT_BYTES} byte limit")
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise HookInputError("hook input is empty: the agent wrote no JSON on stdin")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise HookInputError(f"hook input is not JSON: {reason(exc)}") from exc
    if not isinstance(data, dict):
        raise HookInputError(f"hook input is a JSON {type(data).__name__}, not an object")
    named = data.get("hook_event_name")
    if isinstance(named, str) and named and named != event:
        raise HookInputError(f"hook input is for {named!r}, but the hook was set up for {event!r}")
    tool_input = data.get("tool_input")
    return HookInput(
        event=event,
        session_id=_text(data, "session_id"),
        turn_id=_text(data, "turn_id") or _text(data, "prompt_id"),
        transcript_path=_text(data, "transcript_path"),
        cwd=_text(data, "cwd"),
        prompt=_text(data, "prompt"),
        source=_text(data, "source"),
        tool_name=_text(data, "tool_name"),
        tool_use_id=_text(data, "tool_use_id"),
        tool_input=MappingProxyType(dict(tool_input))
        if isinstance(tool_input, dict)
        else MappingProxyType({}),
    )
