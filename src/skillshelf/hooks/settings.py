"""The ``[hooks]`` table of skillshelf's config: what the agents' hooks add.

::

    [hooks]
    suggestions = true          # UserPromptSubmit: skills ranked for the prompt (and mentions)
    memory = true               # UserPromptSubmit: memory lines that match the prompt
    session_memory = "auto"     # SessionStart: the memory summary; "auto" = on, except in Codex
                                #   when Codex's own memories are on (features.memories)
    memory_run = "auto"         # after SessionEnd (and at the next SessionStart), start a detached
                                #   `memory run --queued` when the memory model's API key is set
    usage = true                # PostToolUse: record skills used through the shell / Read / Skill
    suggestion_tokens = 1500    # budget of the suggestion fragment
    memory_tokens = 400         # budget of the memory lines
    server = true               # keep a hook server warm in the background (see hooks.server);
                                #   SKILLSHELF_HOOK_SERVER=0 in the environment also turns it off
    server_idle_minutes = 30    # the server leaves after this long without a hook

The config loader has already dropped values of the wrong type (with a ``CF102`` finding), so
whatever is left is used as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from skillshelf.config import Config

__all__ = ["HookSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HookSettings:
    """Defaults as in the module docstring."""

    suggestions: bool = True
    memory: bool = True
    session_memory: Literal["auto", "on", "off"] = "auto"
    memory_run: Literal["auto", "off"] = "auto"
    usage: bool = True
    suggestion_tokens: int = 1500
    memory_tokens: int = 400
    server: bool = True
    server_idle_minutes: int = 30

    @classmethod
    def from_config(cls, config: Config) -> HookSettings:
        table = config.get("hooks", {})
        values = table if isinstance(table, dict) else {}
        defaults = cls()
        return cls(
            suggestions=bool(values.get("suggestions", defaults.suggestions)),
            memory=bool(values.get("memory", defaults.memory)),
            session_memory=values.get("session_memory", defaults.session_memory),
            memory_run=values.get("memory_run", defaults.memory_run),
            usage=bool(values.get("usage", defaults.usage)),
            suggestion_tokens=int(values.get("suggestion_tokens", defaults.suggestion_tokens)),
            memory_tokens=int(values.get("memory_tokens", defaults.memory_tokens)),
            server=bool(values.get("server", defaults.server)),
            server_idle_minutes=int(values.get("server_idle_minutes", defaults.server_idle_minutes)),
        )
