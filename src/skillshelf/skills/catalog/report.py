"""What rendering the catalog did to the skills: counts, cuts, and a warning for the user.

The warning is for the person running skillshelf (stderr, ``--json``), never for the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["CatalogReport", "budget_warning", "cut_summary"]

SHOWN_NAMES = 12
"""Names a summary for people lists before it says how many more there are."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogReport:
    """Counts of one rendered catalog.

    ``total`` counts the skills the model may see (hidden ones are in ``hidden``);
    ``truncated_chars`` counts description characters that did not make it (for skills left
    out or listed by name only, all of them); ``truncated_count`` the skills that lost some.
    ``omitted_skills`` and ``name_only_skills`` name the skills left out and those that lost
    their whole description, in catalog order; ``budget_source`` says where the budget came from.
    """

    total: int
    included: int
    omitted: int
    truncated_chars: int
    truncated_count: int
    warning: str | None = None
    hidden: int = 0
    budget_limit: int = 0
    budget_unit: str = "chars"
    used: int = 0
    level: int = 1
    aliased: bool = False
    omitted_skills: tuple[str, ...] = ()
    name_only_skills: tuple[str, ...] = ()
    budget_source: str | None = None
    note_cost: int = 0  # the untrusted tags' cost, not charged to the budget (``used`` leaves it out)

    @property
    def names_only(self) -> bool:
        """Every listed skill lost its description (Codex's third level)."""
        return self.level == 3

    def to_dict(self) -> dict[str, object]:
        return {
            "total": self.total,
            "included": self.included,
            "omitted": self.omitted,
            "truncated_chars": self.truncated_chars,
            "truncated_count": self.truncated_count,
            "hidden": self.hidden,
            "budget": {
                "limit": self.budget_limit,
                "unit": self.budget_unit,
                "used": self.used,
                "source": self.budget_source,
                "note_cost": self.note_cost,
            },
            "level": self.level,
            "aliased": self.aliased,
            "omitted_skills": list(self.omitted_skills),
            "name_only_skills": list(self.name_only_skills),
            "warning": self.warning,
        }


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def budget_warning(
    *, total: int, omitted: int, truncated_count: int, truncated_chars: int, level: int, budget_text: str
) -> str | None:
    """A warning for the user when the budget dropped or shortened skills, else None."""
    fixes = (
        "To fit more, raise the budget (--context-window, --budget-tokens or "
        "skills.max_context_tokens), turn off skills you do not use, or let query-aware "
        "suggestions (`skillshelf context`) pick the skills that matter for the task."
    )
    if omitted:
        listed = total - omitted
        what = (
            f"The skills catalog is over its budget of {budget_text}: "
            f"{_plural(omitted, 'skill was', 'skills were')} left out and the other "
            f"{_plural(listed, 'skill is', 'skills are')} listed by name only."
        )
        if listed == 0:
            what = (
                f"The skills catalog is over its budget of {budget_text}: none of the {total:,} skills fit."
            )
        return f"{what} {fixes}"
    if level == 3 or truncated_count:
        what = (
            f"The skills catalog is over its budget of {budget_text}: "
            f"{_plural(truncated_count, 'description was', 'descriptions were')} shortened "
            f"({_plural(truncated_chars, 'character', 'characters')} cut); every skill is still listed."
        )
        return f"{what} {fixes}"
    return None


def _names(names: Sequence[object]) -> str:
    shown = ", ".join(str(n) for n in names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return f"{shown} (+{more:,} more)" if more > 0 else shown


def cut_summary(report: Mapping[str, object]) -> list[str]:
    """Lines for people: the budget and where it came from, then the skills the budget cut.

    ``report`` is :meth:`CatalogReport.to_dict` (as ``catalog --json`` prints it).
    """
    lines: list[str] = []
    budget = report.get("budget")
    if isinstance(budget, Mapping) and budget.get("source"):
        lines.append(f"catalog budget: {budget['source']}")
    extra, unit = (budget.get("note_cost"), budget.get("unit")) if isinstance(budget, Mapping) else (0, "")
    if isinstance(extra, int) and extra > 0:
        lines.append(
            f"untrusted project notes: {extra:,} {unit} more, not charged to the budget "
            "(the skills listed and their cuts are Codex's; the notes are skillshelf's)"
        )
    for key, what in (("omitted_skills", "left out"), ("name_only_skills", "listed by name only")):
        names = report.get(key)
        if isinstance(names, Sequence) and not isinstance(names, str) and names:
            lines.append(f"{what} ({len(names):,}): {_names(names)}")
    return lines
