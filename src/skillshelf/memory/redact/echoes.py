"""Secrets a model repeats: the strings redaction removed from a model's input, to take out of
what the model writes back.

The rules find a secret by its context (``mysql -pX``, ``"token": "X"``, a key's armour). A
model that saw such a secret before redaction, or was told it some other way, may write the
bare value into a memory ("the password is X"), where no rule can recognise it. Phase 1
redacts every transcript before the model sees it, so the model should never have the value;
scrubbing its answer of the exact strings removed from its input also covers a model that was
shown them some other way (a tool it could call, text a rule missed in one place and caught in
another).

The values live in memory only, for one run; they are never written anywhere.

    >>> known = KnownSecrets.of(["hunter2curl"])
    >>> known.scrub("log in with hunter2curl")
    'log in with [REDACTED_SECRET]'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
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


@dataclass(frozen=True)
class KnownSecrets:
    """The secret strings removed from a model's input; :meth:`scrub` replaces each one (the
    longest where two start at one place) with ``[REDACTED_SECRET]`` wherever it appears.

    A union is a set union and the lookup table is built on the first scrub, so a run that adds
    each session's secrets in turn stays linear; a scrub reads the text once, whatever the number
    of secrets (a session that printed a lock file may leave thousands)."""

    pieces: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return f"KnownSecrets({len(self.pieces)} pieces)"

    @classmethod
    def of(cls, removed: Iterable[str]) -> KnownSecrets:
        pieces: set[str] = set()
        for value in removed:
            pieces |= _pieces(value)
        return cls(frozenset(pieces))

    def __or__(self, other: KnownSecrets) -> KnownSecrets:
        if other.pieces <= self.pieces:
            return self
        return KnownSecrets(self.pieces | other.pieces)

    def __bool__(self) -> bool:
        return bool(self.pieces)

    @cached_property
    def _by_head(self) -> dict[str, tuple[str, ...]]:
        """Every piece under its first :data:`MIN_ECHO_CHARS` characters, longest first."""
        heads: dict[str, list[str]] = {}
        for piece in self.pieces:
            heads.setdefault(piece[:MIN_ECHO_CHARS], []).append(piece)
        return {head: tuple(sorted(group, key=len, reverse=True)) for head, group in heads.items()}

    def scrub(self, text: str) -> str:
        """``text`` with every known secret replaced by ``[REDACTED_SECRET]``."""
        if not self.pieces or len(text) < MIN_ECHO_CHARS:
            return text
        by_head = self._by_head
        parts: list[str] = []
        done = at = 0
        last = len(text) - MIN_ECHO_CHARS
        while at <= last:
            found = next(
                (p for p in by_head.get(text[at : at + MIN_ECHO_CHARS], ()) if text.startswith(p, at)),
                None,
            )
            if found is None:
                at += 1
                continue
            parts += [text[done:at], REDACTED]
            at = done = at + len(found)
        if not parts:
            return text
        parts.append(text[done:])
        return "".join(parts)

    def scrub_value(self, value: Any) -> Any:
        """A JSON value (dicts, lists, strings, numbers) with every string in it scrubbed; keys
        are kept."""
        if not self.pieces:
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
