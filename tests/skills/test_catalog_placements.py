"""What the catalog did with each skill: full, cut, name only, omitted, and why."""

from __future__ import annotations

from pathlib import Path

from skillshelf.skills.catalog import CharBudget, TokenBudget, render_catalog
from skillshelf.skills.model import RootOrigin, Scope, Skill


def _skill(name: str, description: str) -> Skill:
    path = Path(f"/skills/{name}/SKILL.md")
    return Skill(
        name=name,
        description=description,
        path=path,
        root=Path("/skills"),
        scope=Scope.USER,
        origin=RootOrigin.EXTRA,
    )


SKILLS = [_skill(f"skill-{i}", f"Does job number {i} " + "with care " * 8) for i in range(6)]


def test_a_catalog_within_budget_lists_every_skill_in_full() -> None:
    rendered = render_catalog(SKILLS, CharBudget(100_000))
    assert {p.state for p in rendered.placements} == {"full"}
    assert all(p.kept == p.length == len(p.skill.description) for p in rendered.placements)
    assert "whole description" in rendered.placements[0].reason


def test_a_tight_budget_cuts_descriptions_and_says_how_many_characters_are_left() -> None:
    rendered = render_catalog(SKILLS, CharBudget(500))
    assert rendered.report.level == 2
    cut = [p for p in rendered.placements if p.state == "cut"]
    assert cut and all(0 < (p.kept or 0) < p.length for p in cut)
    assert sum(p.length - (p.kept or 0) for p in rendered.placements) == rendered.report.truncated_chars
    assert "one description character at a time" in cut[0].reason


def test_a_budget_below_every_name_lists_some_by_name_and_leaves_the_rest_out() -> None:
    rendered = render_catalog(SKILLS, CharBudget(120))
    states = [p.state for p in rendered.placements]
    assert rendered.report.level == 3
    assert states.count("omitted") == rendered.report.omitted > 0
    assert states.count("name_only") == rendered.report.included > 0
    assert states == sorted(states, key=lambda s: s == "omitted")  # taken in catalog order while they fit


def test_a_description_over_codex_cap_is_full_at_1024_characters_and_says_so() -> None:
    long = _skill("long", "x" * 1500)
    (placement,) = render_catalog([long], TokenBudget(10_000)).placements
    assert placement.state == "full" and placement.length == 1024
    assert "capped at 1,024" in placement.reason


def test_every_format_reports_placements() -> None:
    for fmt in ("codex", "xml", "markdown"):
        rendered = render_catalog(SKILLS, CharBudget(400), fmt)  # type: ignore[arg-type]
        assert len(rendered.placements) == len(SKILLS)
        assert {p.state for p in rendered.placements} <= {"full", "cut", "name_only", "omitted"}
        assert sum(1 for p in rendered.placements if p.state != "omitted") == rendered.report.included


def test_hidden_skills_are_not_placed() -> None:
    import dataclasses

    from skillshelf.skills.model import SkillPolicy

    hidden = dataclasses.replace(
        _skill("quiet", "Never listed."), policy=SkillPolicy(allow_implicit_invocation=False)
    )
    rendered = render_catalog([*SKILLS, hidden], CharBudget(100_000))
    assert "quiet" not in {p.skill.name for p in rendered.placements}


def test_every_skill_that_lost_a_character_is_not_called_full() -> None:
    for chars in range(300, 900, 7):  # every budget of the second level, some cutting one character
        rendered = render_catalog(SKILLS, CharBudget(chars))
        not_full = [p for p in rendered.placements if p.state != "full"]
        assert len(not_full) == rendered.report.truncated_count, chars
        assert all(p.kept is None or p.kept < p.length for p in not_full)
