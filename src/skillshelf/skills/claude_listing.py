"""Which skills Claude Code lists with their description, and which by name alone.

Claude Code 2.1.197 sends the model one listing of its skills, each entry ``- NAME: TEXT``, and
keeps the listing within a budget. Read from the pinned CLI's code and checked against it with
``claude-oracle`` (``tests/skills/test_claude_listing_oracle.py``):

- TEXT is the description, with `` - `` and ``when_to_use`` after it when that is set, cut at
  ``skillListingMaxDescChars`` (settings; default :data:`ENTRY_CAP`) characters, the last one
  an ellipsis. Skills with ``disable-model-invocation`` or ``paths`` are not in it, nor those
  ``skillOverrides`` (settings) sets ``off`` or ``user-invocable-only``; ``name-only`` ones are
  a name alone.
- The budget, in display columns: ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` when set, else
  ``skillListingBudgetFraction`` (default 0.01) of the model's context window in characters
  (:mod:`skillshelf.skills.claude_models`). The default model of the pinned release has a
  1,000,000-token window at 3 characters per token: :data:`DEFAULT_BUDGET`.
- The entries go in this order: the user's skills, then each ``.claude/skills`` from the cwd
  up to the project root, each folder's by name; then the ``.claude/commands`` files
  (:mod:`skillshelf.skills.claude_commands`), all by name; then Claude Code's own.
- Claude Code's own skills (:data:`OWN_KEPT`) come last, but for one that a skill or command of
  the listing shares its name with: that one is left out.
- When every entry fits whole (entries joined by newlines), all are shown whole. Otherwise
  Claude Code's own skills keep their text and the others start as names alone; then, the
  most used first (``skillUsage`` in ``~/.claude.json``: uses × ``max(0.5 ** (days since the
  last / 7), 0.1)``; ties in listing order), each gets its text back if it still fits.

Plugins' skills are listed too and take room; they are not counted here, so with them the
listing runs out sooner than this says.
"""

from __future__ import annotations

import math
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "DEFAULT_BUDGET",
    "ENTRY_CAP",
    "OWN_KEPT",
    "ListingEntry",
    "ListingPlan",
    "display_width",
    "entry_text",
    "plan_listing",
    "usage_priority",
]

ENTRY_CAP = 1536
DEFAULT_FRACTION = 0.01
DEFAULT_WINDOW_TOKENS = 1_000_000
DEFAULT_CHARS_PER_TOKEN = 3
DEFAULT_BUDGET = math.floor(DEFAULT_WINDOW_TOKENS * DEFAULT_CHARS_PER_TOKEN * DEFAULT_FRACTION)

OWN_KEPT: tuple[tuple[str, int], ...] = (
    ("deep-research", 487),
    ("update-config", 707),
    ("keybindings-help", 248),
    ("verify", 260),
    ("code-review", 361),
    ("simplify", 188),
    ("fewer-permission-prompts", 191),
    ("loop", 314),
    ("claude-api", 1080),
    ("run", 368),
)
"""Claude Code's own skills that always keep their text (name, whole entry's width), measured
with claude-oracle. One the listing holds a skill or command of the same name for is left out
of it (the user's entry is listed in its place); a skill that is not listed (one with
``disable-model-invocation`` or ``paths``) leaves it in."""
OWN_KEPT_WIDTH = sum(width for _, width in OWN_KEPT)
OWN_KEPT_COUNT = len(OWN_KEPT)
OWN_TRAILING: tuple[tuple[str, int], ...] = (("init", 67), ("review", 78), ("security-review", 90))
"""Claude Code's own commands listed after every skill, like a skill (name, whole entry's
width): they too lose their text first when the listing is over budget."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ListingEntry:
    """One skill in the listing: its ``text`` as shown whole, how much it was used lately
    (``priority``) and whether settings make it a name alone (``name_only``)."""

    name: str
    text: str
    priority: float = 0.0
    name_only: bool = False

    @property
    def whole(self) -> int:
        """The display width of ``- NAME: TEXT`` (``- NAME`` for a name alone)."""
        bare = display_width(self.name) + 2
        return bare if self.name_only else bare + 2 + display_width(self.text)

    @property
    def bare(self) -> int:
        return display_width(self.name) + 2


@dataclass(frozen=True, slots=True, kw_only=True)
class ListingPlan:
    """What the listing shows: ``width`` is its whole width before any cut, ``budget`` the room
    it has, ``names_only`` the skills listed by name alone to fit (in listing order)."""

    budget: int
    width: int
    described: tuple[str, ...]
    names_only: tuple[str, ...]

    @property
    def over(self) -> bool:
        return self.width > self.budget


def display_width(text: str) -> int:
    """Columns a terminal gives ``text``, as Bun's ``stringWidth`` counts them: wide East Asian
    characters 2, combining marks and control characters 0."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Cc", "Cf", "Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def entry_text(description: str, when_to_use: str | None, cap: int = ENTRY_CAP) -> str:
    """The text of a skill's entry: the description (and `` - when_to_use``), cut at ``cap``
    UTF-16 units with an ellipsis, as Claude Code cuts it."""
    text = f"{description} - {when_to_use}" if when_to_use else description
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) // 2 <= cap:
        return text
    return units[: 2 * (cap - 1)].decode("utf-16-le", "ignore") + "\u2026"


def usage_priority(usage: Mapping[str, object] | None, *, now_ms: float | None = None) -> float:
    """A skill's priority from its ``skillUsage`` record: uses, halved for each week since the
    last one, never below a tenth."""
    if not isinstance(usage, Mapping):
        return 0.0
    count, last = usage.get("usageCount"), usage.get("lastUsedAt")
    if not isinstance(count, int | float) or not isinstance(last, int | float):
        return 0.0
    now = time.time() * 1000 if now_ms is None else now_ms
    days = (now - last) / 86_400_000
    decay: float = 0.5 ** (days / 7)
    return float(count) * max(decay, 0.1)


def plan_listing(entries: Sequence[ListingEntry], *, budget: int = DEFAULT_BUDGET) -> ListingPlan:
    """Which of ``entries`` (the user's skills, in listing order) keep their text."""
    trailing = [ListingEntry(name=name, text="x" * (width - len(name) - 4)) for name, width in OWN_TRAILING]
    every = [*entries, *trailing]
    names = {e.name for e in entries}
    own = [width for name, width in OWN_KEPT if name not in names]
    count = len(own) + len(every)
    width = sum(own) + sum(e.whole for e in every) + count - 1
    if width <= budget:
        described = tuple(e.name for e in entries if not e.name_only)
        return ListingPlan(budget=budget, width=width, described=described, names_only=())
    pinned = sum(e.whole for e in every if e.name_only)
    room = budget - (sum(own) + pinned + sum(e.bare for e in every if not e.name_only) + count - 1)
    kept: set[int] = set()
    by_use = sorted((i for i, e in enumerate(every) if not e.name_only), key=lambda i: -every[i].priority)
    for i in by_use:
        extra = every[i].whole - every[i].bare
        if extra <= room:
            kept.add(i)
            room -= extra
    described = tuple(e.name for i, e in enumerate(entries) if i in kept)
    names_only = tuple(e.name for i, e in enumerate(entries) if i not in kept and not e.name_only)
    return ListingPlan(budget=budget, width=width, described=described, names_only=names_only)
