"""Skill selection at scale: rank skills against a task.

``SkillIndex.build(skills)`` indexes names, descriptions, body headings and text, and path
words (cached on disk, updated incrementally); :func:`rank` runs one of the deterministic
selectors (:mod:`skillshelf.select.registry`) over it; :func:`search_skills` is the same as plain dicts for
the ``search_skills`` tool; :mod:`skillshelf.select.suggest` builds the per-turn fragment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from skillshelf.errors import UsageError
from skillshelf.select.docs import SkillDoc
from skillshelf.select.index import SkillIndex
from skillshelf.skills.model import Skill

if TYPE_CHECKING:
    from skillshelf.select.semantic import SemanticIndex

__all__ = [
    "DEFAULT_SELECTOR",
    "RankedDoc",
    "RankedSkill",
    "SkillIndex",
    "rank",
    "rank_docs",
    "search_skills",
]

DEFAULT_SELECTOR = "default"
"""The first selector of the registry (:mod:`skillshelf.select.registry`, imported when ranking)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RankedDoc:
    """One ranked index entry (a skill or a tool record)."""

    doc: SkillDoc
    score: float
    rank: int

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"rank": self.rank, "score": round(self.score, 6), "name": self.doc.name}
        if self.doc.tool_id is not None:
            out["id"] = self.doc.tool_id
        else:
            out["path"] = self.doc.key
        out["description"] = self.doc.description
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class RankedSkill:
    """One ranked skill: 1-based ``rank``, selector-specific ``score`` (higher is better)."""

    skill: Skill
    score: float
    rank: int

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "score": round(self.score, 6),
            "name": self.skill.name,
            "description": self.skill.description,
            "path": str(self.skill.path),
        }


def rank_docs(
    index: SkillIndex,
    query: str,
    *,
    top_k: int = 10,
    selector: str = DEFAULT_SELECTOR,
    usage: Mapping[str, float] | None = None,
    semantic: SemanticIndex | None = None,
) -> tuple[RankedDoc, ...]:
    """Rank every entry of ``index`` against ``query`` with one selector (a registered name,
    else ``SE001``; one that needs an embedding model ``semantic`` lacks: ``SE002``)."""
    from skillshelf.select.registry import EXTRA_OF, SELECTORS
    from skillshelf.select.selectors import Extras

    spec = SELECTORS.get(selector)
    model = spec.model
    if model is not None and (semantic is None or model not in semantic.models):
        raise UsageError(
            f"the {selector} selector needs the {model} model",
            hint=f"install it with `pip install {EXTRA_OF[model]}` and leave out --no-semantic",
            code="SE002",
        )
    if top_k <= 0:
        return ()
    extras = Extras(usage=MappingProxyType(dict(usage or {})), semantic=semantic)
    hits = spec.run(index, query, top_k, extras)
    return tuple(
        RankedDoc(doc=index.docs[i], score=s, rank=r) for r, (i, s) in enumerate(hits[:top_k], start=1)
    )


def rank(
    index: SkillIndex,
    query: str,
    *,
    top_k: int = 10,
    selector: str = DEFAULT_SELECTOR,
    usage: Mapping[str, float] | None = None,
    semantic: SemanticIndex | None = None,
) -> tuple[RankedSkill, ...]:
    """The ``top_k`` skills of ``index`` best matching ``query`` (deterministic)."""
    ranked = rank_docs(index, query, top_k=top_k, selector=selector, usage=usage, semantic=semantic)
    return tuple(
        RankedSkill(skill=r.doc.skill, score=r.score, rank=r.rank) for r in ranked if r.doc.skill is not None
    )


def search_skills(index: SkillIndex, query: str, top_k: int = 5) -> list[dict[str, object]]:
    """The ``search_skills`` tool: ``[{name, description, path, score}]``, best first."""
    top_k = max(1, min(int(top_k), 50))
    return [
        {"name": r.doc.name, "description": r.doc.description, "path": r.doc.key, "score": round(r.score, 4)}
        for r in rank_docs(index, query, top_k=top_k)
    ]
