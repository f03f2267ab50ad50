"""A turn with no task in it ("thanks!", "ok") gets no suggestion at any threshold, a
``select.min_confidence`` of 0 included: the shared ranking's no-task rule comes before the
threshold, and every caller (search, the per-turn fragment) reads its suggestions from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.select.ranking import Ranker, RankingSettings
from skillshelf.select.service import search
from skillshelf.select.suggest import suggested
from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import Skill

ZERO = RankingSettings(min_confidence=0.0)


@pytest.fixture
def skills(tmp_path: Path) -> tuple[Skill, ...]:
    root = tmp_path / "skills"
    for name, description in (
        ("pdf-forms", "Fill, flatten and extract fields of PDF forms. Say thanks when done."),
        ("release-notes", "Draft release notes from the git log. Use when preparing a release, ok?"),
    ):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nThanks, ok.\n", encoding="utf-8"
        )
    return discover_in([root]).skills


@pytest.mark.parametrize("turn", ["thanks!", "ok", "sounds good"])
def test_a_turn_with_no_task_gets_no_suggestion_at_a_threshold_of_zero(
    skills: tuple[Skill, ...], turn: str
) -> None:
    ranking = Ranker.open(skills, models=False, settings=ZERO).rank(turn, top_k=5)
    assert ranking.no_task and not ranking.confident and ranking.suggested == ()


def test_search_and_the_per_turn_fragment_suggest_nothing_for_no_task_at_a_threshold_of_zero(
    skills: tuple[Skill, ...],
) -> None:
    result = search(skills, "thanks!", semantic=False, settings=ZERO)
    assert result.ranked and result.no_task and result.suggested == ()
    assert not any(row["suggested"] for row in result.to_dict()["results"])  # type: ignore[attr-defined]
    assert suggested(Ranker.open(skills, models=False, settings=ZERO), "thanks!") == ()


def test_a_threshold_of_zero_suggests_whatever_ranks_for_a_task(skills: tuple[Skill, ...]) -> None:
    ranking = Ranker.open(skills, models=False, settings=ZERO).rank("draft the release notes", top_k=5)
    assert ranking.confident and [r.doc.name for r in ranking.suggested][:1] == ["release-notes"]
