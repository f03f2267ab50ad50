"""The ``xml`` and ``markdown`` catalogs and the report every format returns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.errors import UsageError
from skillshelf.skills.catalog import CharBudget, TokenBudget, render_catalog
from skillshelf.skills.model import RootOrigin, Scope, Skill


def make(name: str, description: str, *, scope: Scope = Scope.REPO) -> Skill:
    path = Path(f"/work/skills/{name}/SKILL.md")
    return Skill(
        name=name,
        description=description,
        path=path,
        root=Path("/work/skills"),
        scope=scope,
        origin=RootOrigin.AGENTS_REPO,
    )


def test_xml_catalog_lists_name_description_and_location_each_on_its_own_line() -> None:
    rendered = render_catalog([make("pdf-tools", "Split & merge <PDF> files")], CharBudget(8_000), "xml")
    assert rendered.entries == (
        "<skill>\n<name>\npdf-tools\n</name>\n"
        "<description>\nSplit &amp; merge &lt;PDF&gt; files\n</description>\n"
        "<location>\n/work/skills/pdf-tools/SKILL.md\n</location>\n</skill>",
    )
    assert "<available_skills>\n<skill>" in rendered.text
    assert rendered.text.endswith("</skill>\n</available_skills>")


def test_xml_shortening_never_cuts_an_escaped_character_in_half() -> None:
    skills = [make("amp", "&" * 50), make("lt", "<" * 50)]
    rendered = render_catalog(skills, CharBudget(300), "xml")
    assert rendered.report.truncated_count == 2
    for entry in rendered.entries:
        body = entry.split("<description>\n")[1].split("\n</description>")[0]
        assert body.replace("&amp;", "").replace("&lt;", "") == ""


def test_xml_entries_without_room_for_a_description_drop_the_element() -> None:
    rendered = render_catalog([make("a", "x" * 500), make("b", "y" * 500)], CharBudget(160), "xml")
    assert rendered.report.level == 3
    assert all("<description>" not in e for e in rendered.entries)


def test_markdown_catalog_is_a_plain_name_description_list() -> None:
    rendered = render_catalog([make("beta", "second"), make("alpha", "first")], CharBudget(8_000), "markdown")
    assert rendered.entries == ("- alpha: first", "- beta: second")
    assert rendered.text.startswith("## Skills\n")
    assert rendered.text.endswith("\n- alpha: first\n- beta: second")


def test_markdown_catalog_degrades_to_names_under_a_tight_budget() -> None:
    skills = [make(f"skill-{i}", "words " * 40) for i in range(5)]
    # Each "- skill-N" line costs 3 tokens: 15 tokens list all five by name only, 14 tokens four.
    rendered = render_catalog(skills, TokenBudget(15), "markdown")
    assert rendered.entries == ("- skill-0", "- skill-1", "- skill-2", "- skill-3", "- skill-4")
    assert rendered.report.omitted == 0 and rendered.report.truncated_count == 5
    tighter = render_catalog(skills, TokenBudget(14), "markdown")
    assert tighter.entries == ("- skill-0", "- skill-1", "- skill-2", "- skill-3")
    assert tighter.report.level == 3 and tighter.report.omitted == 1


def test_every_format_uses_the_same_budget_rules_and_report() -> None:
    skills = [make(f"s{i}", "d" * 200) for i in range(30)]
    for fmt in ("codex", "xml", "markdown"):
        rendered = render_catalog(skills, CharBudget(1_500), fmt)  # type: ignore[arg-type]
        report = rendered.report
        assert report.total == 30
        assert report.included + report.omitted == 30
        assert report.used <= 1_500
        assert len(rendered.skills) == report.included


def test_report_warns_the_user_with_counts_and_remedies_when_skills_are_dropped() -> None:
    skills = [make(f"s{i}", "d" * 200) for i in range(30)]
    report = render_catalog(skills, CharBudget(100), "markdown").report
    assert report.omitted == 13  # "- s0".."- s9" cost 5 each, "- s10".. 6 each: 17 fit in 100
    assert report.warning is not None
    assert f"{report.omitted} skills were left out" in report.warning
    assert "raise the budget" in report.warning and "query-aware" in report.warning


def test_report_warns_when_descriptions_were_shortened_but_all_skills_are_listed() -> None:
    skills = [make(f"s{i}", "d" * 200) for i in range(3)]
    report = render_catalog(skills, CharBudget(300), "markdown").report
    assert report.omitted == 0 and report.truncated_count == 3
    assert report.warning is not None and "3 descriptions were shortened" in report.warning


def test_report_has_no_warning_when_everything_fits() -> None:
    report = render_catalog([make("a", "fits")], CharBudget(8_000)).report
    assert report.warning is None
    assert report.to_dict()["budget"] == {
        "limit": 8_000,
        "unit": "chars",
        "used": report.used,
        "source": None,
        "note_cost": 0,
    }


def test_report_and_result_serialise_to_json() -> None:
    rendered = render_catalog([make("a", "x" * 300), make("b", "y")], TokenBudget(20))
    data = json.loads(json.dumps(rendered.to_dict()))
    assert set(data["report"]) >= {
        "total",
        "included",
        "omitted",
        "truncated_chars",
        "truncated_count",
        "warning",
    }
    assert data["format"] == "codex"


def test_unknown_format_and_non_budget_are_usage_errors() -> None:
    with pytest.raises(UsageError) as caught:
        render_catalog([make("a", "b")], CharBudget(10), "yaml")  # type: ignore[arg-type]
    assert caught.value.code == "SS002" and "codex" in caught.value.hint
    with pytest.raises(UsageError):
        render_catalog([make("a", "b")], 8000)  # type: ignore[arg-type]
