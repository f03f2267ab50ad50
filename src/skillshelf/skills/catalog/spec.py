"""What one catalog format is: :class:`CatalogFormatSpec` (its name, its renderer, a line of help)
and what its renderer gives back (:class:`FormatRendering`).

A renderer fits the model-visible skills it is given into the budget, in its own catalog
order, and leaves the report to :func:`~skillshelf.skills.catalog.render_catalog`, which is the
same for every format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from skillshelf.registry import check_name
from skillshelf.skills.catalog.budget import Budget
from skillshelf.skills.catalog.lines import Allocation
from skillshelf.skills.model import Skill

__all__ = ["CatalogFormatSpec", "FormatRendering", "Renderer"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FormatRendering:
    """A format's text, the skills it was given in its catalog order (``ordered``, one per
    allocation entry), how the budget was shared out, and the roots table when the format
    aliases paths (``root_lines``, charged ``table_cost`` before the entries)."""

    text: str
    ordered: tuple[Skill, ...]
    allocation: Allocation
    root_lines: tuple[str, ...] = ()
    table_cost: int = 0
    note_cost: int = 0  # what notes added after the fitting cost (the untrusted tags), past the budget

    @property
    def included(self) -> tuple[Skill, ...]:
        """The skills that made it into the text, in catalog order."""
        kept = self.allocation.kept
        return tuple(s for s, k in zip(self.ordered, kept, strict=True) if k is not None)


class Renderer(Protocol):
    """Fit ``skills`` into ``budget``; ``roots`` is the discovery's root order (may be None)."""

    def __call__(
        self, skills: Sequence[Skill], budget: Budget, *, roots: Sequence[Path] | None
    ) -> FormatRendering: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogFormatSpec:
    """One catalog format: ``name`` (what ``--format`` and ``catalog.format`` take), ``render``,
    and ``help``, the one line the CLI and the docs show for it."""

    name: str
    render: Renderer
    help: str

    def __post_init__(self) -> None:
        check_name("catalog format", self.name)
