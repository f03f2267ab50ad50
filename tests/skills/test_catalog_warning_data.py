"""The catalog's warning is made with its code and fix (SK380 over the budget, SK381 no catalog),
and its report carries them as data beside the one-sentence ``warning``."""

from __future__ import annotations

import json
from pathlib import Path

from skillshelf.skills.catalog import CharBudget, render_catalog, withheld_catalog
from skillshelf.skills.model import RootOrigin, Scope, Skill


def _skill(name: str, description: str) -> Skill:
    path = Path(f"/skills/{name}/SKILL.md")
    return Skill(
        name=name,
        description=description,
        path=path,
        root=Path("/skills"),
        scope=Scope.REPO,
        origin=RootOrigin.AGENTS_REPO,
    )


def test_an_over_budget_report_carries_sk380_its_message_and_its_fix() -> None:
    report = render_catalog([_skill("a", "x" * 300), _skill("b", "y" * 300)], CharBudget(60)).report
    data = json.loads(json.dumps(report.to_dict()))
    assert data["warning_code"] == "SK380"
    assert data["warning_message"].startswith("The skills catalog is over its budget of 60 characters: ")
    assert data["warning_fix"].startswith("raise the budget (--context-window")
    assert data["warning"] == f"{data['warning_message']} To fit more, {data['warning_fix']}."


def test_a_withheld_catalog_carries_sk381_and_its_fix() -> None:
    rendered = render_catalog([_skill("a", "x")], CharBudget(8_000))
    data = withheld_catalog(rendered, "skills.include_instructions = false (-c)").report.to_dict()
    assert data["warning_code"] == "SK381"
    assert data["warning"] == data["warning_message"]
    assert str(data["warning_message"]).startswith(
        "no skills catalog: skills.include_instructions = false (-c)"
    )
    assert str(data["warning_fix"]).startswith("set skills.include_instructions = true")


def test_a_catalog_that_holds_every_skill_whole_has_no_warning_code() -> None:
    data = render_catalog([_skill("a", "x")], CharBudget(8_000)).report.to_dict()
    assert (data["warning"], data["warning_code"], data["warning_message"], data["warning_fix"]) == (
        None,
    ) * 4
