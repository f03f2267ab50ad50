"""Running the rules fast, finding exactly what ``rule.regex.finditer`` finds.

Python's ``re`` cannot skip ahead when a pattern opens with a boundary test (``\\b``, a
lookbehind) or with a case-insensitive word, so it tries every rule at every position (about
0.5 MB/s for the whole rule set). Each rule therefore runs the fastest way that finds exactly
what its pattern finds: the boundary is checked in Python after a search for the rest of the
pattern (which then starts with a literal ``re`` skips to), or the pattern is only tried where
one of its ``anchors`` occurs (found with ``bytes.find`` in a case-folded copy for
case-insensitive rules). Both give the matches ``finditer`` gives. After a body whose boundary
fails, the search goes on after the next char that would pass it: inside a long run of word
chars (``AATBB...AATBB...``) trying every position would take quadratic time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from skillshelf.memory.redact.rule import FLAG_LEAD, B, Rule, compiled

__all__ = ["Views", "anchor_starts", "folded", "rule_matches"]

_ASCII_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
#: Leading boundary tests a rule's pattern may open with: (prefix, test on the char before the match).
#: Every pattern that opens with ``\\b`` starts with a word character, so ``\\b`` there means "the
#: char before is no word character" (``re``'s Unicode notion: alphanumeric or ``_``).
_LEADS: tuple[tuple[str, Callable[[str], bool], re.Pattern[str]], ...] = (
    # (prefix, test on the char before the match, the chars that pass that test)
    (B, lambda before: before not in _ASCII_WORD, re.compile(r"[^A-Za-z0-9_]")),
    (FLAG_LEAD, lambda before: before.isspace() or before in "\"'=", re.compile(r"[\s\"'=]")),
    (r"\b", lambda before: not (before.isalnum() or before == "_"), re.compile(r"\W")),
)


@dataclass(frozen=True, slots=True)
class _Plan:
    """How one rule runs fast: a search for the pattern's body and a boundary test, or anchors."""

    full: re.Pattern[str]
    body: re.Pattern[str] | None
    lead: Callable[[str], bool] | None
    passes: re.Pattern[str] | None  # the chars that pass ``lead``
    folded: bool  # anchors are looked up in the case-folded view


@cache
def _plan(rule: Rule) -> _Plan:
    for prefix, test, passes in _LEADS:
        if not rule.anchors and rule.pattern.startswith(prefix):
            body = compiled(rule.pattern[len(prefix) :], rule.flags)
            return _Plan(full=rule.regex, body=body, lead=test, passes=passes, folded=False)
    return _Plan(full=rule.regex, body=None, lead=None, passes=None, folded=bool(rule.flags & re.IGNORECASE))


#: The non-ASCII chars ``re.IGNORECASE`` equates to an ASCII letter (found by trying every code point).
_IGNORECASE_ODD = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))


def folded(text: str) -> bytes:
    """``text`` as ASCII bytes, position for position, where each char ``re.IGNORECASE`` equates to an
    ASCII letter is that letter in lower case, and every other non-ASCII char is ``?``."""
    for odd, letter in _IGNORECASE_ODD:
        if odd in text:
            text = text.replace(odd, letter)
    return text.encode("ascii", errors="replace").lower()


class Views:
    """Byte views of one text, made on first use, position for position: ``ascii`` (every non-ASCII
    char a ``?``) and ``folded`` (see :func:`folded`). An ASCII string without ``?`` occurs in
    ``ascii`` exactly where it occurs in the text, and bytes are searched far faster than text."""

    __slots__ = ("_ascii", "_folded", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii: bytes | None = None
        self._folded: bytes | None = None

    @property
    def ascii(self) -> bytes:
        if self._ascii is None:
            self._ascii = self.text.encode("ascii", errors="replace")
        return self._ascii

    @property
    def folded(self) -> bytes:
        if self._folded is None:
            self._folded = folded(self.text)
        return self._folded


@cache
def as_bytes(strings: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(item.encode("ascii") for item in strings)


def anchor_starts(anchors: tuple[str, ...], back: tuple[int, int], haystack: bytes) -> list[int]:
    """Every position ``back`` chars before an occurrence of one of ``anchors``, in order."""
    starts: set[int] = set()
    low, high = back
    for anchor in as_bytes(anchors):
        at = haystack.find(anchor)
        while at >= 0:
            starts.update(range(max(at - high, 0), at - low + 1))
            at = haystack.find(anchor, at + 1)
    return sorted(starts)


def rule_matches(rule: Rule, views: Views) -> Iterator[re.Match[str]]:
    """Exactly the matches ``rule.regex.finditer(views.text)`` gives (no pattern here can match empty)."""
    text = views.text
    if rule.needles and not any(needle in views.ascii for needle in as_bytes(rule.needles)):
        return
    plan = _plan(rule)
    if rule.anchors:
        pos = 0
        haystack = views.folded if plan.folded else views.ascii
        for start in anchor_starts(rule.anchors, rule.back, haystack):
            if start >= pos and (match := plan.full.match(text, start)) is not None:
                pos = match.end()
                yield match
        return
    if plan.body is None or plan.lead is None or plan.passes is None:
        yield from plan.full.finditer(text)
        return
    pos = 0
    search, lead, passes = plan.body.search, plan.lead, plan.passes.search
    while (match := search(text, pos)) is not None:
        start = match.start()
        if start == 0 or lead(text[start - 1]):
            yield match
            pos = match.end()
        elif (after := passes(text, start)) is not None:
            pos = after.start() + 1  # no match starts before the next char that passes the lead
        else:
            return
