"""What the catalog did with each skill it was given: listed in full, description cut, name
only, or left out, and why (the user's side of :class:`~skillshelf.skills.catalog.lines.Allocation`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from skillshelf.skills.catalog.lines import Allocation
from skillshelf.skills.model import Skill

__all__ = ["CatalogPlacement", "PlacementState", "placements"]

PlacementState = Literal["full", "cut", "name_only", "omitted"]

_LEVEL_REASONS = {
    "cut": "over budget: every skill keeps its name and the room left is shared out one "
    "description character at a time (Codex's second level)",
    "name_only": "over budget even with descriptions cut: skills are listed by name only, in "
    "catalog order, while they fit (Codex's third level)",
    "omitted": "over budget: not even its name fitted after the skills before it in catalog "
    "order (Codex's third level)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogPlacement:
    """One skill in catalog order: ``kept`` description characters shown (None: left out) of
    the ``length`` the format would show in full (after Codex's 1,024-character cap)."""

    skill: Skill
    kept: int | None
    length: int

    @property
    def state(self) -> PlacementState:
        if self.kept is None:
            return "omitted"
        if self.kept >= self.length:
            return "full"
        return "name_only" if self.kept == 0 else "cut"

    @property
    def reason(self) -> str:
        """Why the skill is in this state, in a sentence for the user."""
        state = self.state
        if state == "full":
            if not self.length:
                return "listed without description (it has none, or it is configured name-only)"
            if len(self.skill.description) > self.length:
                return f"listed; the description is capped at {self.length:,} characters, as Codex does"
            return "listed with its whole description"
        return _LEVEL_REASONS[state]

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.skill.name,
            "path": str(self.skill.path),
            "state": self.state,
            "kept_chars": self.kept,
            "description_chars": self.length,
            "reason": self.reason,
        }


def placements(skills: Sequence[Skill], allocation: Allocation) -> tuple[CatalogPlacement, ...]:
    """Each of ``skills`` (in catalog order, as allocated) with what the allocation kept of it."""
    return tuple(
        CatalogPlacement(skill=skill, kept=kept, length=length)
        for skill, kept, length in zip(skills, allocation.kept, allocation.lengths, strict=True)
    )
