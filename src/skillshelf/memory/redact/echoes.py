"""Secrets a model repeats: the strings redaction removed from a model's input, to take out of
what the model writes back.

The rules find a secret by its context (``mysql -pX``, ``"token": "X"``, a key's armour). A
model that saw such a secret before redaction, or was told it some other way, may write the
bare value into a memory ("the password is X"), where no rule can recognise it. Phase 1
redacts every transcript before the model sees it, so a well-behaved model never has the value;
scrubbing its answer of the exact strings removed from its input also covers a model that
guesses or was shown them elsewhere, and memories built by an older, weaker redactor.

The values live in memory only, for one run; they are never written anywhere.

    >>> known = KnownSecrets.of(["hunter2curl"])
    >>> known.scrub("log in with hunter2curl")
    'log in with [REDACTED_SECRET]'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from skillshelf.memory.redact.values import REDACTED

__all__ = ["MIN_ECHO_CHARS", "NO_SECRETS", "KnownSecrets"]

MIN_ECHO_CHARS = 8
"""Shorter pieces are not scrubbed when they appear bare: a six-letter value such as a word or
a number would take every occurrence of it out of ordinary prose. The rules still redact short
secrets in their context."""

_LINE_BREAK = re.compile(r"\r?\n|\\r\\n|\\n")
_TRIM = " \t'\"`,;"


def _pieces(value: str) -> set[str]:
    """The lines of one removed value long enough to scrub, with the spellings a model may use
    for them: as decoded, JSON-escaped and (for a value that holds escapes) unescaped."""
    pieces: set[str] = set()
    for line in _LINE_BREAK.split(value):
        piece = line.strip(_TRIM)
        if len(piece) < MIN_ECHO_CHARS or piece == REDACTED:
            continue
        pieces.add(piece)
        pieces.add(json.dumps(piece, ensure_ascii=False)[1:-1])
        if "\\" in piece:
            pieces.add(piece.replace('\\"', '"').replace("\\\\", "\\"))
    return {p for p in pieces if len(p) >= MIN_ECHO_CHARS}


@dataclass(frozen=True, slots=True)
class KnownSecrets:
    """The secret strings removed from a model's input; :meth:`scrub` replaces each one (longest
    first) with ``[REDACTED_SECRET]`` wherever it appears."""

    pieces: frozenset[str] = frozenset()
    _pattern: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.pieces:
            ordered = sorted(self.pieces, key=lambda p: (-len(p), p))
            pattern = re.compile("|".join(re.escape(p) for p in ordered))
            object.__setattr__(self, "_pattern", pattern)

    def __repr__(self) -> str:
        return f"KnownSecrets({len(self.pieces)} pieces)"

    @classmethod
    def of(cls, removed: Iterable[str]) -> KnownSecrets:
        pieces: set[str] = set()
        for value in removed:
            pieces |= _pieces(value)
        return cls(frozenset(pieces))

    def __or__(self, other: KnownSecrets) -> KnownSecrets:
        if not other.pieces or other.pieces <= self.pieces:
            return self
        return KnownSecrets(self.pieces | other.pieces)

    def __bool__(self) -> bool:
        return bool(self.pieces)

    def scrub(self, text: str) -> str:
        """``text`` with every known secret replaced by ``[REDACTED_SECRET]``."""
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

    def scrub_value(self, value: Any) -> Any:
        """A JSON value (dicts, lists, strings, numbers) with every string in it scrubbed; keys
        are kept."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {key: self.scrub_value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.scrub_value(item) for item in value]
        return value


NO_SECRETS = KnownSecrets()
"""Nothing to scrub (the default for callers that redacted no input)."""
