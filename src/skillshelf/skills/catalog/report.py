"""What rendering the catalog did to the skills: counts, cuts, and a warning for the user.

The warning is for the person running skillshelf (stderr, ``--json``), never for the model. It
is a coded finding where it is made, a :class:`CatalogWarning`:

* ``SK380`` the catalog is over its budget: skills were left out, listed by name only, or their
  descriptions shortened (:func:`budget_warning`; the fix: a larger budget, fewer skills, or
  per-task suggestions);
* ``SK381`` there is no catalog at all: ``skills.include_instructions = false`` keeps the list of
  skills from the model (:func:`withheld_warning`).

:meth:`CatalogReport.to_dict` carries its code, message and fix (``warning_code``,
``warning_message``, ``warning_fix``) beside ``warning``, the two said as one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["CatalogReport", "CatalogWarning", "budget_warning", "cut_summary", "withheld_warning"]

SHOWN_NAMES = 12
"""Names a summary for people lists before it says how many more there are."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogWarning:
    """The catalog's warning for the user: its ``code`` (``SK380``, ``SK381``), what happened
    (``message``), what to do (``fix``), and ``text``, the two as the report's ``warning`` says them."""

    code: str
    message: str
    fix: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogReport:
    """Counts of one rendered catalog.

    ``total`` counts the skills the model may see (hidden ones are in ``hidden``);
    ``truncated_chars`` counts description characters that did not make it (for skills left
    out or listed by name only, all of them); ``truncated_count`` the skills that lost some.
    ``omitted_skills`` and ``name_only_skills`` name the skills left out and those that lost
    their whole description, in catalog order; ``budget_source`` says where the budget came from;
    ``finding`` is the warning for the user (None when the model gets every skill whole).
    """

    total: int
    included: int
    omitted: int
    truncated_chars: int
    truncated_count: int
    finding: CatalogWarning | None = None
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
    def warning(self) -> str | None:
        """The warning for the user as one sentence (what happened and the fix), or None."""
        return self.finding.text if self.finding is not None else None

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
            "warning_code": self.finding.code if self.finding is not None else None,
            "warning_message": self.finding.message if self.finding is not None else None,
            "warning_fix": self.finding.fix if self.finding is not None else None,
        }


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


_BUDGET_FIX = (
    "raise the budget (--context-window, --budget-tokens or skills.max_context_tokens), turn off "
    "skills you do not use, or let query-aware suggestions (`skillshelf context`) pick the skills "
    "that matter for the task"
)
"""The fix of ``SK380``."""

_WITHHELD_FIX = (
    "set skills.include_instructions = true where it is set (or remove it) if the model should get "
    "the list of skills"
)
"""The fix of ``SK381``."""


def budget_warning(
    *, total: int, omitted: int, truncated_count: int, truncated_chars: int, level: int, budget_text: str
) -> CatalogWarning | None:
    """``SK380`` when the budget dropped or shortened skills, else None."""
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
    elif level == 3 or truncated_count:
        what = (
            f"The skills catalog is over its budget of {budget_text}: "
            f"{_plural(truncated_count, 'description was', 'descriptions were')} shortened "
            f"({_plural(truncated_chars, 'character', 'characters')} cut); every skill is still listed."
        )
    else:
        return None
    return CatalogWarning(
        code="SK380", message=what, fix=_BUDGET_FIX, text=f"{what} To fit more, {_BUDGET_FIX}."
    )


def withheld_warning(reason: str) -> CatalogWarning:
    """``SK381``: no catalog at all, for ``reason`` (the setting, where it is set)."""
    what = f"no skills catalog: {reason}, so the model gets no list of skills"
    return CatalogWarning(code="SK381", message=what, fix=_WITHHELD_FIX, text=what)


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
