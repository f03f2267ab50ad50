"""One session model for every agent's transcripts (Codex, Claude Code, skillshelf), and the
:class:`TranscriptFormat` each reader registers (the registry is ``formats.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from skillshelf.env import Env

__all__ = [
    "Item",
    "ItemKind",
    "Session",
    "SessionSource",
    "TranscriptFormat",
    "folder_field",
    "parse_time",
    "text_field",
]

ItemKind = Literal["message", "tool_call", "tool_result"]
SessionSource = str
"""The name of the :class:`TranscriptFormat` a session was read with (``codex``, ``claude``...)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Item:
    """One thing that happened in a session.

    ``parts`` holds the text pieces of a message (Codex sends the AGENTS.md block, the
    environment context and the task as separate parts of one user message), the arguments
    of a tool call (JSON text) or the output of a tool result.
    """

    kind: ItemKind
    role: str  # user | assistant | developer | system | tool
    parts: tuple[str, ...]
    name: str | None = None
    call_id: str | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.parts)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"type": self.kind, "role": self.role}
        if self.name:
            out["name"] = self.name
        if self.call_id:
            out["call_id"] = self.call_id
        if self.kind == "message":
            out["content"] = list(self.parts)
        else:
            out["arguments" if self.kind == "tool_call" else "output"] = self.text
        if self.is_error:
            out["is_error"] = True
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """A whole session, whatever agent wrote it.

    ``origin`` is how the session started as the agent records it (Codex: ``cli``, ``exec``,
    ``vscode``, ``subagent``...; Claude Code: its entrypoint). ``skipped_lines`` counts broken
    or truncated lines that were left out.
    """

    id: str
    source: SessionSource
    path: Path
    cwd: Path | None
    started_at: datetime | None
    ended_at: datetime | None
    items: tuple[Item, ...] = ()
    git_branch: str | None = None
    origin: str = ""
    skipped_lines: int = 0
    subagent: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def first_user_message(self) -> str:
        for item in self.items:
            if item.kind == "message" and item.role == "user":
                for part in item.parts:
                    stripped = part.strip()
                    if (
                        stripped
                        and not stripped.startswith("<environment_context>")
                        and not _is_injected(stripped)
                    ):
                        return stripped
        return ""


def _is_injected(text: str) -> bool:
    lowered = text.lower()
    return (lowered.startswith("# agents.md instructions for ") and lowered.endswith("</instructions>")) or (
        text.startswith("<skill>") and text.endswith("</skill>")
    )


def text_field(value: object) -> str:
    """A string field as read from JSON: the string itself, or "" for a value of any other type."""
    return value if isinstance(value, str) else ""


def folder_field(value: object) -> Path | None:
    """A working folder as read from JSON: an absolute path, else None (never relative to our cwd)."""
    text = text_field(value)
    return Path(text) if text and os.path.isabs(text) and "\x00" not in text else None


def parse_time(value: object) -> datetime | None:
    """ISO-8601 text (with ``Z``) or Unix seconds/milliseconds -> aware datetime; else None."""
    from datetime import UTC

    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=UTC)
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class TranscriptFormat:
    """One agent's transcript format: how to recognise it, read it and where it is kept.

    ``sniff`` looks at one parsed line from the start of a file (the first 20 are tried) and says
    whether it is surely this format; ``fallback`` (optional) is a weaker sign, tried only when no
    format's ``sniff`` matched. ``read`` turns the file into a :class:`Session` whose ``source``
    is ``name``. ``roots`` gives the folders its files are kept in, from the ``Env`` and the
    user state folder.
    """

    name: str
    sniff: Callable[[dict[str, object]], bool]
    read: Callable[[Path], Session]
    roots: Callable[[Env, Path], tuple[Path, ...]]
    fallback: Callable[[dict[str, object]], bool] | None = None
