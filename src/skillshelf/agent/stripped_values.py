"""The values of the variables left out of the bash tool's environment, kept out of the model's
sight and the transcript.

:func:`~skillshelf.agent.shell_env.shell_environment` leaves ``OPENAI_API_KEY`` and the like
out of the commands' environment, but a command can still read them where this process keeps
them (``/proc/$PPID/environ``), and redaction only finds a value by its shape or context: a
gateway key such as ``my-internal-gateway-key-0001`` has neither. The agent knows the exact
values it left out, so :class:`StrippedValues` replaces each of them with ``[REDACTED_SECRET]``
in every folder tool's output (before redaction and before a long output is cut) and in every
line of the transcript (:class:`ScrubbedTranscript`).

Which values: each line of a left-out value, without the blanks around it, of
:data:`MIN_SCRUB_CHARS` characters or more, unless it is a number of fewer than
:data:`MIN_SCRUB_DIGITS` digits (``TOKEN_LIMIT=4096``, a port, a user id) or a word that is a
setting (``true``, ``disabled``...): replacing those everywhere would take ordinary numbers
and words out of the output, and they protect nothing. Nor is a stand-in made of letters only
and shorter than :data:`ANYWHERE_CHARS` (``test``, ``EMPTY``, ``dummy``, ``none``: what a local
server that checks no key is given): it protects nothing either, as a real key is longer or
holds a digit or a symbol, and replacing it would take ``test`` out of every pytest run. A
value shorter than :data:`ANYWHERE_CHARS` is replaced only where it stands as a word of its own
(no letter, digit or ``_`` beside it), so ``abcd`` does not eat into ``abcdef`` or ``abcd_api``;
a longer one wherever it stands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from skillshelf.memory.redact import REDACTED

__all__ = [
    "ANYWHERE_CHARS",
    "MIN_SCRUB_CHARS",
    "MIN_SCRUB_DIGITS",
    "NO_VALUES",
    "ScrubbedTranscript",
    "StrippedValues",
    "worth_scrubbing",
]

MIN_SCRUB_CHARS = 4
MIN_SCRUB_DIGITS = 6
ANYWHERE_CHARS = 8
_SETTING_WORDS = frozenset(
    {
        "true",
        "false",
        "yes",
        "no",
        "none",
        "null",
        "auto",
        "default",
        "enabled",
        "disabled",
        "always",
        "never",
    }
)


def worth_scrubbing(piece: str) -> bool:
    """Whether ``piece`` (one line of a left-out value) is replaced wherever it stands (see the module)."""
    if len(piece) < MIN_SCRUB_CHARS or piece.lower() in _SETTING_WORDS:
        return False
    if piece.isascii() and piece.isalpha() and len(piece) < ANYWHERE_CHARS:
        return False  # a stand-in such as ``test`` or ``EMPTY`` (see the module)
    return not (piece.isdigit() and len(piece) < MIN_SCRUB_DIGITS)


def _pieces(values: Iterable[str]) -> list[str]:
    """The lines of ``values`` worth scrubbing, longest first (a longer one wins where two overlap)."""
    pieces = {line.strip() for value in values for line in value.splitlines()}
    return sorted((p for p in pieces if worth_scrubbing(p)), key=lambda p: (-len(p), p))


@dataclass(frozen=True)
class StrippedValues:
    """Exact strings to replace with ``[REDACTED_SECRET]`` in tool output and the transcript.
    Held in memory only; never printed or stored."""

    pieces: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"StrippedValues({len(self.pieces)} pieces)"

    @classmethod
    def of(cls, values: Iterable[str]) -> StrippedValues:
        return cls(tuple(_pieces(values)))

    @classmethod
    def left_out(cls, environ: Mapping[str, str], shell: Mapping[str, str]) -> StrippedValues:
        """The values of the variables of ``environ`` that ``shell`` (the commands' environment)
        does not hold as they are."""
        return cls.of(value for name, value in environ.items() if shell.get(name) != value)

    def __bool__(self) -> bool:
        return bool(self.pieces)

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        if not self.pieces:
            return None
        parts = [
            re.escape(p) if len(p) >= ANYWHERE_CHARS else rf"(?<![A-Za-z0-9_]){re.escape(p)}(?![A-Za-z0-9_])"
            for p in self.pieces
        ]
        return re.compile("|".join(parts))

    def scrub(self, text: str) -> str:
        """``text`` with every piece replaced by ``[REDACTED_SECRET]``."""
        pattern = self._pattern
        return text if pattern is None else pattern.sub(REDACTED, text)

    def scrub_value(self, value: Any) -> Any:
        """A JSON value with every string in it scrubbed (keys too: a model may name one)."""
        if not self.pieces:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {self.scrub(str(key)): self.scrub_value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.scrub_value(item) for item in value]
        return value


NO_VALUES = StrippedValues()


class _Sink(Protocol):
    path: Path

    def message(self, role: str, text: str) -> None: ...
    def tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None: ...
    def tool_result(self, call_id: str, output: str, *, is_error: bool = False) -> None: ...
    def close(self) -> None: ...


class ScrubbedTranscript:
    """A transcript that scrubs the left-out values from every message, tool call and result
    before ``inner`` (a :class:`~skillshelf.memory.transcripts.skillshelf.TranscriptWriter`)
    redacts and writes them."""

    def __init__(self, inner: _Sink, values: StrippedValues) -> None:
        self.inner = inner
        self.values = values
        self.path = inner.path

    def message(self, role: str, text: str) -> None:
        self.inner.message(role, self.values.scrub(text))

    def tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        self.inner.tool_call(call_id, name, self.values.scrub_value(arguments))

    def tool_result(self, call_id: str, output: str, *, is_error: bool = False) -> None:
        self.inner.tool_result(call_id, self.values.scrub(output), is_error=is_error)

    def close(self) -> None:
        self.inner.close()

    def __enter__(self) -> ScrubbedTranscript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
