"""Fitting catalog entries into a budget: Codex's three degradation levels.

Every format renders a skill as an :class:`Entry`: a prefix, the description (as units, one
per description character, each rendered as some text), a suffix, and a *minimum* form used
when no description character fits. An entry costs ``cost(text + "\\n")``.

1. **Full**: if every entry fits in full, all are rendered in full.
2. **Shortened descriptions**: else, if every minimum form fits, the room left is handed out
   one description character at a time, round-robin in catalog order; an entry that cannot
   afford its next character sits out that round but later entries still try; rounds repeat
   until one changes nothing. Short descriptions finish early and their share flows on.
3. **Names only, then omission**: else, entries are taken in order in their minimum form
   while they fit; one that does not fit is left out and the scan goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from skillshelf.skills.catalog.budget import Budget, CharBudget
from skillshelf.skills.slots import slot_setters
from skillshelf.tokens import BYTES_PER_TOKEN

__all__ = ["Allocation", "Entry", "allocate", "entries_cost", "new_entry"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One skill as a format renders it, ready to be fitted into a budget."""

    prefix: str
    units: str | tuple[str, ...]  # a str when every unit is one character
    suffix: str
    minimum: str
    single_chars: bool = False  # every unit is one character as written (fast path)

    def render(self, kept: int) -> str:
        """The entry with its first ``kept`` description characters (0: the minimum form)."""
        if kept <= 0 or not self.units:
            return self.minimum
        units = self.units
        body = units[:kept] if isinstance(units, str) else "".join(units[:kept])
        return f"{self.prefix}{body}{self.suffix}"

    @property
    def full(self) -> str:
        return self.render(len(self.units))


_ENTRY_FIELDS = ("prefix", "units", "suffix", "minimum", "single_chars")
_ENTRY_SETTERS = slot_setters(Entry, _ENTRY_FIELDS)


def new_entry(
    prefix: str, units: str | tuple[str, ...], suffix: str, minimum: str, single_chars: bool = False
) -> Entry:
    """``Entry(prefix=..., ...)`` without the frozen ``__init__`` (half the time; a catalog of
    thousands of skills builds two entries per skill)."""
    if _ENTRY_SETTERS is None:
        return Entry(prefix=prefix, units=units, suffix=suffix, minimum=minimum, single_chars=single_chars)
    entry = object.__new__(Entry)
    set_prefix, set_units, set_suffix, set_minimum, set_single = _ENTRY_SETTERS
    set_prefix(entry, prefix)
    set_units(entry, units)
    set_suffix(entry, suffix)
    set_minimum(entry, minimum)
    set_single(entry, single_chars)
    return entry


@dataclass(frozen=True, slots=True, kw_only=True)
class Allocation:
    """Which entries were kept and how much of each description survived."""

    kept: tuple[int | None, ...]  # per entry: description characters kept, None = left out
    lines: tuple[str, ...]  # the rendered entries that are in
    omitted: int
    truncated_chars: int
    truncated_count: int
    level: int  # 1 full, 2 shortened, 3 names only / omission
    used: int  # what the rendered entries cost
    lengths: tuple[int, ...] = ()  # per entry: description characters in full


def line_cost(budget: Budget, text: str) -> int:
    """What one entry costs: the text and its newline."""
    return budget.cost(text + "\n")


def entries_cost(budget: Budget, lines: Sequence[str]) -> int:
    return sum(line_cost(budget, line) for line in lines)


def allocate(entries: Sequence[Entry], budget: Budget) -> Allocation:
    """Fit ``entries`` (already in catalog order) into ``budget``."""
    limit = budget.limit
    if _fits((e.full for e in entries), budget, limit):
        return _finish(entries, budget, [len(e.units) for e in entries], level=1)
    minimum_costs = [line_cost(budget, e.minimum) for e in entries]
    minimum_cost = sum(minimum_costs)
    if minimum_cost <= limit:
        kept = _share_description_room(entries, budget, limit - minimum_cost)
        return _finish(entries, budget, list(kept), level=2)
    used = 0
    taken: list[int | None] = []
    for cost in minimum_costs:
        if used + cost <= limit:
            used += cost
            taken.append(0)
        else:
            taken.append(None)
    return _finish(entries, budget, taken, level=3)


def _fits(lines: Iterable[str], budget: Budget, limit: int) -> bool:
    """``entries_cost(budget, lines) <= limit``, stopping at the first line over it."""
    total = 0
    for line in lines:
        total += line_cost(budget, line)
        if total > limit:
            return False
    return True


def _finish(entries: Sequence[Entry], budget: Budget, kept: list[int | None], *, level: int) -> Allocation:
    lines: list[str] = []
    omitted = truncated_chars = truncated_count = 0
    for entry, k in zip(entries, kept, strict=True):
        total = len(entry.units)
        if k is None:
            omitted += 1
        else:
            lines.append(entry.render(k))
        cut = total if k is None else total - k
        if cut > 0:
            truncated_chars += cut
            truncated_count += 1
    return Allocation(
        kept=tuple(kept),
        lines=tuple(lines),
        omitted=omitted,
        truncated_chars=truncated_chars,
        truncated_count=truncated_count,
        level=level,
        used=entries_cost(budget, lines),
        lengths=tuple(len(entry.units) for entry in entries),
    )


class _Costs:
    """``extra(k)``: what keeping ``k`` description characters adds to an entry's minimum form.

    Computed on demand from running sizes (characters or UTF-8 bytes), so that long
    descriptions cost nothing until the round-robin actually reaches their characters.
    """

    __slots__ = ("base", "chars", "length", "minimum", "totals")

    def __init__(self, entry: Entry, budget: Budget) -> None:
        self.chars = isinstance(budget, CharBudget)
        self.minimum = budget.cost(entry.minimum + "\n")
        self.length = len(entry.units)
        units = entry.units
        text = units if isinstance(units, str) else "".join(units)
        if self.chars:
            self.base = len(entry.prefix) + len(entry.suffix) + 1
        else:
            self.base = len(entry.prefix.encode("utf-8")) + len(entry.suffix.encode("utf-8")) + 1
        self.totals: list[int] | None = None  # None: every unit has size 1
        if not ((entry.single_chars or isinstance(units, str)) and (self.chars or text.isascii())):
            if self.chars or text.isascii():
                sizes = [len(unit) for unit in units]
            else:
                sizes = [len(unit.encode("utf-8")) for unit in units]
            self.totals = list(accumulate(sizes, initial=self.base))

    def extra(self, kept: int) -> int:
        if kept <= 0:
            return 0
        total = self.base + kept if self.totals is None else self.totals[kept]
        cost = total if self.chars else (total + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN
        return max(0, cost - self.minimum)


def _share_description_room(entries: Sequence[Entry], budget: Budget, room: int) -> list[int]:
    """Codex's round-robin: one description character per entry per round."""
    costs = [_Costs(e, budget) for e in entries]
    lengths = [c.length for c in costs]
    # Fast-forward: the largest number of whole rounds in which every attempt succeeds.
    # Costs only grow with k, so "all of round k fits" is monotone in k.
    lo, hi = 0, max(lengths, default=0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(c.extra(min(mid, c.length)) for c in costs) <= room:
            lo = mid
        else:
            hi = mid - 1
    kept = [min(lo, n) for n in lengths]
    current = [c.extra(k) for c, k in zip(costs, kept, strict=True)]
    remaining = room - sum(current)
    active = [i for i, n in enumerate(lengths) if kept[i] < n]
    changed = True
    while changed and active:
        changed = False
        still: list[int] = []
        for i in active:
            nxt = costs[i].extra(kept[i] + 1)
            delta = nxt - current[i]
            if delta <= remaining:
                kept[i] += 1
                current[i] = nxt
                remaining -= delta
                changed = True
            if kept[i] < lengths[i]:
                still.append(i)
        active = still
    return kept
