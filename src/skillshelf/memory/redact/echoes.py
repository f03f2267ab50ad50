"""Secrets that stand bare: the strings redaction removed, to take out wherever they stand
again, in the same text (:func:`skillshelf.memory.redact.redact`'s second pass) or in what a
model writes back.

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

import bisect
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from skillshelf.memory.redact.values import REDACTED, is_code_like, is_placeholder

__all__ = ["FEW_PIECES", "MIN_ECHO_CHARS", "NO_SECRETS", "KnownSecrets", "is_distinct"]

MIN_ECHO_CHARS = 8
"""Shorter pieces are not scrubbed when they appear bare: a six-letter value such as a word or
a number would take every occurrence of it out of ordinary prose. The rules still redact short
secrets in their context."""

FEW_PIECES = 512
"""Up to this many pieces a ``str.find`` per piece beats one pass over the text. Measured with
``bench/redact.py`` (``echoes``): about 0.33 s per MB for the pass, 0.37 ms per MB and piece for
the finds, so they cost the same near 900 pieces."""

_LINE_BREAK = re.compile(r"\r?\n|\\r\\n|\\n")
_TRIM = " \t'\"`,;.:!?*()[]{}<>"
_NAME_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")  # a word or an identifier: DEMO_KEY, api.token
_SUBSCRIPT = re.compile(r"[A-Za-z_][\w.]*\s*[\[(]")  # config['key ... , get_secret( ...
_PASSPHRASE_WORDS = 3
_MIN_NUMBER_DIGITS = 12


def is_distinct(piece: str) -> bool:
    """Whether ``piece`` is safe to replace wherever it stands: a value that holds a digit or a
    symbol besides letters (``hunter2curl``, ``S3cret!``, a key's base64 line), or a phrase of
    three words or more (a passphrase). Not a word, an identifier without a digit or an
    environment variable's name (``password``, ``REQUIRED``, ``PARALLEL_API_KEY``), two words, an
    expression or a placeholder: the rules' rare false positives are such values, and replacing
    every occurrence of one would take it out of the whole text. Chosen by reading what the rules
    remove from the skill corpora (``bench/redact.py``'s ``prose``): before this test the repeats
    replaced "password" 203 times there."""
    if len(piece) < MIN_ECHO_CHARS or is_placeholder(piece) or is_code_like(piece):
        return False
    if _SUBSCRIPT.match(piece):
        return False
    words = piece.split()
    return len(words) >= _PASSPHRASE_WORDS or any(_token_like(word) for word in words)


def _token_like(word: str) -> bool:
    """A word with a symbol (a password, a token with / + = @ $ ...), with both letters and
    digits (``hunter2curl``), or of 12 digits or more (a date or a port is not a secret)."""
    if word.isdigit():
        return len(word) >= _MIN_NUMBER_DIGITS
    if not _NAME_LIKE.fullmatch(word):
        return True
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def _pieces(value: str) -> set[str]:
    """The lines of one removed value that are safe to scrub (:func:`is_distinct`), with the
    spellings a model may use for them: as decoded, JSON-escaped and (for a value that holds
    escapes) unescaped."""
    pieces: set[str] = set()
    for line in _LINE_BREAK.split(value):
        piece = line.strip(_TRIM)
        if not is_distinct(piece):
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
    each session's secrets in turn stays linear. Up to :data:`FEW_PIECES` pieces a scrub runs
    ``str.find`` once per piece; above, it reads the text once through a table of the pieces'
    first characters, whatever their number (a session that printed a lock file may leave
    thousands). Both give the same spans."""

    pieces: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return f"KnownSecrets({len(self.pieces)} pieces)"

    @classmethod
    def of(cls, removed: Iterable[str]) -> KnownSecrets:
        pieces: set[str] = set()
        for value in dict.fromkeys(removed):  # a secret often stands many times
            pieces |= _pieces(value)
        return cls(frozenset(pieces))

    def __or__(self, other: KnownSecrets) -> KnownSecrets:
        if other.pieces <= self.pieces:
            return self
        return KnownSecrets(self.pieces | other.pieces)

    def __bool__(self) -> bool:
        return bool(self.pieces)

    @cached_property
    def _any_escaped(self) -> bool:
        """Some piece is spelled otherwise inside JSON (quotes, backslashes, non-ASCII)."""
        return any(json.dumps(piece)[1:-1] != piece for piece in self.pieces)

    @cached_property
    def _by_head(self) -> dict[str, tuple[str, ...]]:
        """Every piece under its first :data:`MIN_ECHO_CHARS` characters, longest first."""
        heads: dict[str, list[str]] = {}
        for piece in self.pieces:
            heads.setdefault(piece[:MIN_ECHO_CHARS], []).append(piece)
        return {head: tuple(sorted(group, key=len, reverse=True)) for head, group in heads.items()}

    def scrub(self, text: str) -> str:
        """``text`` with every known secret replaced by ``[REDACTED_SECRET]``."""
        spans = self.spans(text)
        if not spans:
            return text
        parts: list[str] = []
        done = 0
        for start, end in spans:
            parts += [text[done:start], REDACTED]
            done = end
        parts.append(text[done:])
        return "".join(parts)

    def may_stand_in(self, text: str) -> bool:
        """Whether a known secret may still stand in ``text`` (a JSON text too, whatever its
        depth of escaping): one is found, or one holds a character JSON escapes. False means
        :meth:`spans` finds nothing in any string of it."""
        if not self.pieces:
            return False
        if self._any_escaped:
            return True
        if len(self.pieces) <= FEW_PIECES:
            return any(piece in text for piece in self.pieces)
        return bool(self._scanned(text))

    def spans(self, text: str, outside: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
        """Where the known secrets stand in ``text``: ``(start, end)`` pairs, in order, without
        overlaps (the leftmost first, then the longest). None starts inside an ``outside`` span
        (sorted, not overlapping: what is already redacted), which a long scan skips."""
        if not self.pieces or len(text) < MIN_ECHO_CHARS:
            return []
        if len(self.pieces) <= FEW_PIECES:
            return self._found(text, outside)
        return self._scanned(text, outside)

    def _found(self, text: str, outside: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
        """The spans from ``str.find`` per piece (fast for a few pieces)."""
        hits: list[tuple[int, int]] = []
        for piece in self.pieces:
            at = text.find(piece)
            while at >= 0:
                hits.append((at, -len(piece)))
                at = text.find(piece, at + 1)
        starts = [a for a, _ in outside]
        spans: list[tuple[int, int]] = []
        for start, negative_length in sorted(hits):  # leftmost first, then longest
            index = bisect.bisect_right(starts, start) - 1
            if index >= 0 and start < outside[index][1]:
                continue
            if not spans or start >= spans[-1][1]:
                spans.append((start, start - negative_length))
        return spans

    def _scanned(self, text: str, outside: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
        """The same spans from one pass over ``text`` with the table of heads (for many pieces)."""
        by_head = self._by_head
        spans: list[tuple[int, int]] = []
        skips = iter(outside)
        skip = next(skips, None)
        at, last = 0, len(text) - MIN_ECHO_CHARS
        while at <= last:
            while skip is not None and skip[1] <= at:
                skip = next(skips, None)
            if skip is not None and skip[0] <= at:
                at = skip[1]
                continue
            candidates = by_head.get(text[at : at + MIN_ECHO_CHARS], ())
            found = next((p for p in candidates if text.startswith(p, at)), None)
            if found is None:
                at += 1
                continue
            spans.append((at, at + len(found)))
            at += len(found)
        return spans

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
