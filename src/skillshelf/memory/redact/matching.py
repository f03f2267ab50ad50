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

The anchors and needles of every rule (the :func:`lexicon`) are found in one Aho-Corasick pass
over each view (``ahocorasick_rs``), not one ``find`` per string: a few hundred MB/s for the
whole set instead of about 10.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from ahocorasick_rs import BytesAhoCorasick

from skillshelf.memory.redact.rule import FLAG_LEAD, B, Rule, compiled

__all__ = ["Lexicon", "RuleSet", "Views", "anchor_starts", "folded", "lexicon", "rule_matches"]

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


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The strings the rules look for, each found in one pass over a view: ``plain`` in the
    ASCII view (anchors of case-sensitive rules, every needle), ``folded`` in the folded one."""

    plain: tuple[bytes, ...]
    folded: tuple[bytes, ...]

    def automaton(self, folded_view: bool) -> BytesAhoCorasick:
        return _automaton(self.folded if folded_view else self.plain)

    def words(self, folded_view: bool) -> frozenset[bytes]:
        return _word_set(self.folded if folded_view else self.plain)


@cache
def _automaton(strings: tuple[bytes, ...]) -> BytesAhoCorasick:
    return BytesAhoCorasick(list(strings))


@cache
def _word_set(strings: tuple[bytes, ...]) -> frozenset[bytes]:
    return frozenset(strings)


@cache
def lexicon() -> Lexicon:
    """Every anchor and needle of :data:`~.rules.RULES`, and the key words the config-line scan
    looks for (:data:`~.rules.KEY_WORD_STARTS`, folded)."""
    from skillshelf.memory.redact.rules import KEY_WORD_STARTS, RULES

    plain = {n for rule in RULES for n in rule.needles}
    plain |= {a for rule in RULES if not rule.flags & re.IGNORECASE for a in rule.anchors}
    folded_words = {a for rule in RULES if rule.flags & re.IGNORECASE for a in rule.anchors}
    folded_words |= set(KEY_WORD_STARTS)
    return Lexicon(plain=as_bytes(tuple(sorted(plain))), folded=as_bytes(tuple(sorted(folded_words))))


class Views:
    """Byte views of one text, made on first use, position for position: ``ascii`` (every non-ASCII
    char a ``?``) and ``folded`` (see :func:`folded`). An ASCII string without ``?`` occurs in
    ``ascii`` exactly where it occurs in the text, and bytes are searched far faster than text.
    :meth:`occurrences` says where a string occurs in either (found for the whole lexicon at once)."""

    __slots__ = ("_ascii", "_folded", "_found", "_present", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii: bytes | None = None
        self._folded: bytes | None = None
        self._found: dict[bool, dict[bytes, list[int]]] = {}  # by view: folded or not
        self._present: dict[bool, frozenset[bytes]] = {}

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

    def occurrences(self, string: bytes, *, folded_view: bool) -> Sequence[int]:
        """Every position where ``string`` starts in the folded or the ASCII view, in order
        (overlapping ones too)."""
        found = self._find_lexicon(folded_view)
        if string not in found:
            if string in lexicon().words(folded_view):
                return ()
            found[string] = _find_all(self.folded if folded_view else self.ascii, string)  # once
        return found[string]

    def present(self, *, folded_view: bool) -> frozenset[bytes]:
        """The lexicon strings that occur in the folded or the ASCII view."""
        if folded_view not in self._present:
            found = frozenset(self._find_lexicon(folded_view))
            self._present[folded_view] = found & lexicon().words(folded_view)
        return self._present[folded_view]

    def _find_lexicon(self, folded_view: bool) -> dict[bytes, list[int]]:
        """Where each lexicon string that occurs in the view starts, in order (the automaton reports
        matches by where they end, and one string's matches all have its length)."""
        if (known := self._found.get(folded_view)) is not None:
            return known
        words = lexicon().folded if folded_view else lexicon().plain
        found: dict[bytes, list[int]] = {}
        haystack = self.folded if folded_view else self.ascii
        for index, start, _end in (
            lexicon().automaton(folded_view).find_matches_as_indexes(haystack, overlapping=True)
        ):
            found.setdefault(words[index], []).append(start)
        self._found[folded_view] = found
        return found


def _find_all(haystack: bytes, string: bytes) -> list[int]:
    starts = []
    at = haystack.find(string)
    while at >= 0:
        starts.append(at)
        at = haystack.find(string, at + 1)
    return starts


@cache
def as_bytes(strings: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(item.encode("ascii") for item in strings)


def anchor_starts(
    anchors: tuple[str, ...], back: tuple[int, int], views: Views, *, folded_view: bool
) -> list[int]:
    """Every position ``back`` chars before an occurrence of one of ``anchors`` in the folded or
    the ASCII view, in order."""
    low, high = back
    starts: set[int] = set()
    for anchor in as_bytes(anchors):
        for at in views.occurrences(anchor, folded_view=folded_view):
            starts.update(range(max(at - high, 0), at - low + 1))
    return sorted(starts)


_Gate = tuple[frozenset[bytes], frozenset[bytes], bool]  # needles, anchors, anchors folded


class RuleSet:
    """Rules, each with the lexicon strings one of which its every match holds: on a text where
    none occurs the rule is not tried at all (a rule with a string outside the lexicon always is)."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self._gates = tuple(_gate(rule, lexicon()) for rule in self.rules)

    def may_match(self, views: Views) -> Iterator[Rule]:
        """The rules that may match ``views.text``, in order."""
        for rule, gate in zip(self.rules, self._gates, strict=True):
            if gate is not None:
                needles, anchors, folded_view = gate
                if needles and needles.isdisjoint(views.present(folded_view=False)):
                    continue
                if anchors and anchors.isdisjoint(views.present(folded_view=folded_view)):
                    continue
            yield rule


def _gate(rule: Rule, words: Lexicon) -> _Gate | None:
    needles, anchors = frozenset(as_bytes(rule.needles)), frozenset(as_bytes(rule.anchors))
    folded_view = _plan(rule).folded
    if not needles <= words.words(False) or not anchors <= words.words(folded_view):
        return None
    return needles, anchors, folded_view


def rule_matches(rule: Rule, views: Views) -> Iterator[re.Match[str]]:
    """Exactly the matches ``rule.regex.finditer(views.text)`` gives (no pattern here can match empty)."""
    text = views.text
    if rule.needles and not any(views.occurrences(n, folded_view=False) for n in as_bytes(rule.needles)):
        return
    plan = _plan(rule)
    if rule.anchors:
        pos = 0
        for start in anchor_starts(rule.anchors, rule.back, views, folded_view=plan.folded):
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
