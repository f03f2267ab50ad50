"""The ``[untrusted project]`` notes of the Codex format are added after the budget is shared
out: the skills listed and how far each description is cut are Codex's (as for trusted
skills), and the report says what the notes cost on top."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, split_catalog, write, write_skill

from skillshelf.env import Env
from skillshelf.skills.catalog import CharBudget, TokenBudget, render_catalog
from skillshelf.skills.catalog.aliases import UNTRUSTED_ROOT
from skillshelf.skills.catalog.report import cut_summary
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from skillshelf.skills.load import UNTRUSTED_TAG
from skillshelf.skills.model import RootOrigin, Scope, Skill

PROJECT = "/p/repo/.agents/skills"
HOME = "/h/.agents/skills"


def _skill(name: str, root: str, *, trusted: bool) -> Skill:
    repo = root == PROJECT
    return Skill(
        name=name,
        description=f"Use this skill for {name} when the user asks about it, and only then, please.",
        path=Path(root, name, "SKILL.md"),
        root=Path(root),
        scope=Scope.REPO if repo else Scope.USER,
        origin=RootOrigin.AGENTS_REPO if repo else RootOrigin.AGENTS_USER,
        trusted=trusted,
    )


def _without_notes(lines: tuple[str, ...]) -> list[str]:
    return [line.replace(f" {UNTRUSTED_ROOT}", "").replace(f"{UNTRUSTED_TAG} ", "") for line in lines]


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("limit", [150, 300, 600, 1_200, 5_000])
def test_untrusted_notes_change_no_cut_and_are_reported_as_extra(limit: int, mixed: bool) -> None:
    batch = [_skill(f"s{i:02d}", PROJECT, trusted=mixed and i % 2 == 0) for i in range(30)]
    batch.append(_skill("mine", HOME, trusted=True))
    untrusted = render_catalog(batch, TokenBudget(limit))
    trusted = render_catalog([dataclasses.replace(s, trusted=True) for s in batch], TokenBudget(limit))
    assert _without_notes(untrusted.root_lines) == list(trusted.root_lines)
    assert _without_notes(untrusted.entries) == list(trusted.entries)
    assert [p.kept for p in untrusted.placements] == [p.kept for p in trusted.placements]
    assert untrusted.report.used == trusted.report.used
    assert untrusted.report.note_cost > 0
    summary = cut_summary(untrusted.report.to_dict())
    assert any(line.startswith("untrusted project notes:") and "not charged" in line for line in summary)


def test_a_trusted_catalog_reports_no_note_cost() -> None:
    rendered = render_catalog([_skill("a", PROJECT, trusted=True)], CharBudget(8_000))
    assert rendered.report.note_cost == 0
    assert not any(line.startswith("untrusted") for line in cut_summary(rendered.report.to_dict()))


@pytest.mark.oracle
def test_an_untrusted_projects_overflowing_catalog_lists_what_codex_lists(
    tmp_path: Path, codex_oracle: Any
) -> None:
    home, codex_home, repo = tmp_path / "home", tmp_path / "codex-home", git_init(tmp_path / "repo")
    home.mkdir()
    write(
        codex_home / "config.toml", "[skills]\nmax_context_tokens = 600\n[skills.bundled]\nenabled = false\n"
    )
    for i in range(30):
        about = " ".join([f"Use this skill for task number {i:02d} when the user asks about it"] * 3)
        write_skill(repo / ".agents/skills" / f"s{i:02d}", f"s{i:02d}", about)
    env = dataclasses.replace(
        Env.for_test(cwd=repo, home=home, codex_home=codex_home), admin_skills_dir=Path("/etc/codex/skills")
    )
    options = DiscoveryOptions(
        include_builtin=False, include_claude=False, include_installed=False, use_cache=False
    )
    found = discover_skills(env, options)
    skills = [dataclasses.replace(s, trusted=False) for s in found.skills]
    rendered = render_catalog(skills, TokenBudget(600), roots=[r.path for r in found.roots])
    theirs = split_catalog(codex_oracle(repo, home=home, codex_home=codex_home)["skills_instructions"])
    assert (_without_notes(rendered.root_lines), _without_notes(rendered.entries)) == theirs
    assert rendered.report.truncated_count > 0 and rendered.report.note_cost > 0
