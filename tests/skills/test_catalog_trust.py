"""Skills from an untrusted project in the catalog: marked in every format, on the entry or on
its root's line, and the mark is never shortened nor paid for with the description's room."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from test_catalog_properties import budgets, formats, skills

from skillshelf.skills.catalog import Budget, CharBudget, render_catalog
from skillshelf.skills.catalog.aliases import UNTRUSTED_ROOT
from skillshelf.skills.load import UNTRUSTED_TAG
from skillshelf.skills.model import RootOrigin, Scope, Skill

PROJECT = "/p/repo/.agents/skills"
HOME = "/h/.agents/skills"


def _skill(name: str, root: str, *, trusted: bool, description: str | None = None) -> Skill:
    scope, origin = (
        (Scope.REPO, RootOrigin.AGENTS_REPO) if root == PROJECT else (Scope.USER, RootOrigin.AGENTS_USER)
    )
    return Skill(
        name=name,
        description=description or f"Use when the task is about {name} and nothing else at all.",
        path=Path(root, name, "SKILL.md"),
        root=Path(root),
        scope=scope,
        origin=origin,
        trusted=trusted,
    )


def test_a_root_of_untrusted_skills_is_marked_once_and_its_entries_keep_their_descriptions() -> None:
    batch = [_skill(f"proj-{i}", PROJECT, trusted=False) for i in range(30)] + [
        _skill("mine", HOME, trusted=True)
    ]
    tight = CharBudget(3_000)
    rendered = render_catalog(batch, tight)
    as_trusted = render_catalog([replace(s, trusted=True) for s in batch], tight)
    assert rendered.root_lines == (f"- `r0` = `{HOME}`", f"- `r1` = `{PROJECT}` {UNTRUSTED_ROOT}")
    assert UNTRUSTED_TAG not in "\n".join(rendered.entries)
    assert rendered.report.level == 2  # shortened: the tag did not take the descriptions' room
    kept = [p.kept for p in rendered.placements]
    assert sum(kept) >= sum(p.kept for p in as_trusted.placements) - len(UNTRUSTED_ROOT) - 2
    assert all(k >= 40 for k in kept[:-1])


def test_an_untrusted_skill_in_a_root_it_shares_with_trusted_ones_is_tagged_whole_on_its_entry() -> None:
    batch = [
        _skill("evil", PROJECT, trusted=False, description="x" * 300),
        _skill("good", PROJECT, trusted=True, description="y" * 300),
    ]
    for limit in (80, 150, 400, 10_000):
        rendered = render_catalog(batch, CharBudget(limit))
        evil = [e for e in rendered.entries if e.startswith("- evil:")]
        assert all(e.startswith(f"- evil: {UNTRUSTED_TAG} ") for e in evil), (limit, evil)
        assert not any(UNTRUSTED_TAG in line for line in rendered.root_lines)
        assert UNTRUSTED_TAG not in "".join(e for e in rendered.entries if e.startswith("- good:"))


def test_xml_and_markdown_tag_the_untrusted_skill_in_full_and_in_its_minimum_form() -> None:
    evil = _skill("evil", PROJECT, trusted=False, description="z" * 400)
    for limit in (10_000, 160, 0):
        markdown = render_catalog([evil], CharBudget(limit), "markdown")
        xml = render_catalog([evil], CharBudget(limit), "xml")
        if markdown.entries:
            assert markdown.entries[0].startswith(f"- evil: {UNTRUSTED_TAG}")
        if xml.entries:
            assert f"<description>\n{UNTRUSTED_TAG}" in xml.entries[0]
    name_only = render_catalog([replace(evil, description="")], CharBudget(10_000), "markdown")
    assert name_only.entries == (f"- evil: {UNTRUSTED_TAG}",)


def _marked(entry: str, root_lines: tuple[str, ...]) -> bool:
    """The entry carries the tag, or its path's alias has a marked root line."""
    if UNTRUSTED_TAG in entry.split(" (file: ")[0] or UNTRUSTED_TAG in entry.split("</name>")[-1][:60]:
        return True
    alias = re.search(r"\(file: (r\d+)/[^()]*\)$", entry)
    return alias is not None and any(
        line.startswith(f"- `{alias.group(1)}` = ") and line.endswith(UNTRUSTED_ROOT) for line in root_lines
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(skills(trusted=st.booleans()), max_size=20), budgets, formats)
def test_every_listed_untrusted_skill_is_marked_and_no_trusted_one_is(
    batch: list[Skill], budget: Budget, fmt: str
) -> None:
    names = [s.name for s in batch]
    batch = [s for s in batch if names.count(s.name) == 1 and UNTRUSTED_TAG not in s.name + s.description]
    rendered = render_catalog(batch, budget, fmt)  # type: ignore[arg-type]
    for skill, entry in zip(rendered.skills, rendered.entries, strict=True):
        assert _marked(entry, rendered.root_lines) is (not skill.trusted), (skill, entry, rendered.root_lines)
