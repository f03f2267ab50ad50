"""The budgeted skills catalog the model sees.

:func:`render_catalog` is pure: it takes parsed :class:`~skillshelf.skills.model.Skill`
values and a :data:`Budget` and returns the text plus a :class:`CatalogReport`. It never
reads a file. Only model-visible skills are listed; hidden ones stay loadable by name.

>>> from skillshelf.skills.catalog import default_budget, render_catalog
>>> rendered = render_catalog(skills, default_budget(200_000))          # doctest: +SKIP
>>> print(rendered.text); print(rendered.report.warning)                 # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from skillshelf.errors import UsageError
from skillshelf.skills.catalog.budget import Budget, CharBudget, TokenBudget, default_budget
from skillshelf.skills.catalog.lines import Allocation
from skillshelf.skills.catalog.placements import CatalogPlacement, placements
from skillshelf.skills.catalog.registry import CATALOG_FORMATS, DEFAULT_FORMAT
from skillshelf.skills.catalog.report import CatalogReport, CatalogWarning, budget_warning, withheld_warning
from skillshelf.skills.catalog.spec import CatalogFormatSpec, FormatRendering
from skillshelf.skills.model import Skill

__all__ = [
    "CATALOG_FORMATS",
    "DEFAULT_FORMAT",
    "Budget",
    "CatalogFormatSpec",
    "CatalogPlacement",
    "CatalogReport",
    "CatalogWarning",
    "CharBudget",
    "FormatRendering",
    "RenderedCatalog",
    "TokenBudget",
    "default_budget",
    "render_catalog",
    "withheld_catalog",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedCatalog:
    """The catalog text for the model and the report for the user.

    ``entries`` are the rendered skill entries (lines for ``codex``/``markdown``, ``<skill>``
    elements for ``xml``), ``root_lines`` the Codex roots table (empty when absolute paths
    are used), ``skills`` the listed skills in catalog order, ``placements`` every skill given
    (model-visible) in catalog order with what the budget left of it.
    """

    text: str
    report: CatalogReport
    format: str = "codex"
    entries: tuple[str, ...] = ()
    root_lines: tuple[str, ...] = ()
    skills: tuple[Skill, ...] = ()
    placements: tuple[CatalogPlacement, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "format": self.format,
            "text": self.text,
            "report": self.report.to_dict(),
            "skills": [s.name for s in self.skills],
        }


def _cuts(placed: Sequence[CatalogPlacement]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Names of the skills left out, and of those listed without any of their description."""
    omitted = tuple(p.skill.name for p in placed if p.state == "omitted")
    return omitted, tuple(p.skill.name for p in placed if p.state == "name_only")


def _report(
    skills: Sequence[Skill],
    placed: Sequence[CatalogPlacement],
    budget: Budget,
    allocation: Allocation,
    *,
    table_cost: int,
    aliased: bool,
    note_cost: int = 0,
) -> CatalogReport:
    visible = sum(1 for s in skills if s.model_visible)
    total = len(allocation.kept)
    omitted, name_only = _cuts(placed)
    return CatalogReport(
        total=total,
        included=total - allocation.omitted,
        omitted=allocation.omitted,
        truncated_chars=allocation.truncated_chars,
        truncated_count=allocation.truncated_count,
        finding=budget_warning(
            total=total,
            omitted=allocation.omitted,
            truncated_count=allocation.truncated_count,
            truncated_chars=allocation.truncated_chars,
            level=allocation.level,
            budget_text=budget.describe(),
        ),
        hidden=len(skills) - visible,
        budget_limit=budget.limit,
        budget_unit=budget.unit,
        used=table_cost + allocation.used,
        note_cost=note_cost,
        level=allocation.level,
        aliased=aliased,
        omitted_skills=omitted,
        name_only_skills=name_only,
    )


def render_catalog(
    skills: Sequence[Skill],
    budget: Budget,
    format: str = DEFAULT_FORMAT,
    *,
    roots: Sequence[Path] | None = None,
) -> RenderedCatalog:
    """Render the catalog of ``skills`` within ``budget``.

    ``roots`` is the root order of the discovery (Codex numbers aliases in that order);
    without it, roots are ordered the way Codex orders them by origin. The result is the
    same whatever order ``skills`` come in. No visible skill -> empty text. ``format`` is a
    name in :data:`CATALOG_FORMATS`; an unknown one raises a ``UsageError``.
    """
    if not isinstance(budget, CharBudget | TokenBudget):
        raise UsageError(
            f"not a catalog budget: {budget!r}",
            hint="pass CharBudget(n), TokenBudget(n) or default_budget(...)",
        )
    rendering = CATALOG_FORMATS.get(format).render(skills, budget, roots=roots)
    placed = placements(rendering.ordered, rendering.allocation)
    report = _report(
        skills,
        placed,
        budget,
        rendering.allocation,
        table_cost=rendering.table_cost,
        aliased=bool(rendering.root_lines),
        note_cost=rendering.note_cost,
    )
    return RenderedCatalog(
        text=rendering.text,
        report=report,
        format=format,
        entries=rendering.allocation.lines,
        root_lines=rendering.root_lines,
        skills=rendering.included,
        placements=placed,
    )


def withheld_catalog(rendered: RenderedCatalog, reason: str) -> RenderedCatalog:
    """``rendered`` as an agent that is set to send no skills list sends it (Codex with
    ``skills.include_instructions = false``: measured with codex-oracle, no skills block at all):
    no text, every skill it would list left out, and ``SK381`` for ``reason`` (the setting, where
    it is set) as the report's warning."""
    report = replace(
        rendered.report,
        included=0,
        omitted=rendered.report.total,
        truncated_chars=0,
        truncated_count=0,
        used=0,
        aliased=False,
        omitted_skills=tuple(p.skill.name for p in rendered.placements),
        name_only_skills=(),
        finding=withheld_warning(reason),
    )
    return RenderedCatalog(text="", report=report, format=rendered.format)
