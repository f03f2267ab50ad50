"""One secret format, :class:`Rule`: a regular expression, which part of a match is secret and
how to find its matches fast (see :mod:`.matching`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

__all__ = ["B", "E", "FLAG_LEAD", "Rule", "argument_rule", "compiled"]

B = r"(?<![A-Za-z0-9_])"  # start boundary that also treats "_" as part of a word
E = r"(?![A-Za-z0-9_])"
#: Start boundary of a command-line option: start of text, whitespace, a quote or ``=``.
FLAG_LEAD = r"(?<![^\s\"'=])"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One secret format. ``group`` names the part that is secret (0: the whole match; a tuple:
    alternatives, the first that took part in the match). ``vet`` says how a found value is
    checked before it counts: ``value`` (placeholders, and code for group rules), ``argument``
    (those, and a name in capitals standing for the value: ``-p PASSWORD``, ``echo "API_TOKEN" |``),
    ``key`` (a key body: only emptiness; key bodies hold runs like ``AAAAAAAA``) or ``credential``
    (a word after the name of a secret in prose: :func:`~.values.looks_like_credential`) or ``env``
    (the value of a variable named for a secret: :func:`~.rules_env.is_env_secret_value`); shorter than
    ``min_len`` chars, it does not count. ``each``: every group that took part is a secret, not
    only the first (a command that takes several: ``--from-literal=a=X --from-literal=b=Y``).

    For speed only (neither changes what is found): ``needles``, strings one of which every
    match contains (the rule is skipped when none is in the text); ``anchors``, strings every
    match holds ``back`` chars (a ``(min, max)`` range) after its start, lower case when the
    rule ignores case: the pattern is then tried only there.
    """

    kind: str
    category: str
    pattern: str
    group: int | str | tuple[str, ...] = 0
    flags: int = 0
    anchors: tuple[str, ...] = ()
    back: tuple[int, int] = (0, 0)
    needles: tuple[str, ...] = ()
    vet: Literal["value", "argument", "key", "credential", "env"] = "value"
    min_len: int = 1
    each: bool = False

    @property
    def regex(self) -> re.Pattern[str]:
        return compiled(self.pattern, self.flags)

    @property
    def groups(self) -> tuple[int | str, ...]:
        return self.group if isinstance(self.group, tuple) else (self.group,)

    def spans(self, match: re.Match[str]) -> tuple[tuple[int, int], ...]:
        """Where the secrets of ``match`` are: the first group that took part, or with ``each``
        every one; none when no secret group took part."""
        taken = tuple(match.span(group) for group in self.groups if match.start(group) >= 0)
        return taken if self.each else taken[:1]


def argument_rule(kind: str, category: str, group: tuple[str, ...], pattern: str, **speed: Any) -> Rule:
    """A rule for an argument that is a secret (of a command, of a call): 4 chars or more, and no
    name in capitals standing for it. ``speed``: ``needles``, ``anchors``, ``back``, ``flags``."""
    return Rule(
        kind=kind, category=category, group=group, min_len=4, vet="argument", pattern=pattern, **speed
    )


@cache
def compiled(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)
