"""Codex's ``[skills.bundled] enabled`` and ``skills.include_instructions``: read from Codex's config
(the user's, a trusted project's) and from skillshelf's own, in discovery, the catalog and validate,
and checked against Codex 0.171.0 (codex-oracle)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, skill_text, split_catalog, write, write_skill

from skillshelf.context import prepare_context
from skillshelf.context_model import ContextOptions
from skillshelf.env import Env
from skillshelf.skills.catalog import TokenBudget, render_catalog, withheld_catalog
from skillshelf.skills.codex_config import read_codex_settings
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from skillshelf.skills.model import RootOrigin
from skillshelf.skills.roots import codex_roots, codex_skill_switches
from skillshelf.skills.validate import validate_paths

BUNDLED_OFF = "[skills.bundled]\nenabled = false\n"
LIST_OFF = "[skills]\ninclude_instructions = false\n"


class Tree:
    """A git project with one skill, and a Codex home holding one system skill."""

    def __init__(self, base: Path) -> None:
        self.home = base / "home"
        self.codex_home = self.home / ".codex"
        self.repo = git_init(base / "repo")
        write_skill(self.repo / ".agents" / "skills" / "mine", "mine", "my own skill")
        write_skill(self.codex_home / "skills" / ".system" / "sysskill", "sysskill", "a system skill")

    def env(self) -> Env:
        return Env.for_test(cwd=self.repo, home=self.home, codex_home=self.codex_home)

    def codex_config(self, text: str, *, trusted: bool = False) -> None:
        trust = f'[projects."{self.repo.resolve()}"]\ntrust_level = "trusted"\n' if trusted else ""
        write(self.codex_home / "config.toml", trust + text)

    def project_codex_config(self, text: str) -> None:
        write(self.repo / ".codex" / "config.toml", text)

    def system_roots(self) -> list[Path]:
        return [r.path for r in codex_roots(self.env()) if r.origin is RootOrigin.CODEX_SYSTEM]

    def catalog(self, *overrides: str) -> tuple[str, dict[str, object]]:
        options = ContextOptions(
            include_builtin=False,
            use_cache=False,
            config_overrides=overrides,
            instructions=False,
            suggestions=False,
            memory=False,
        )
        prepared = prepare_context(self.env(), options)
        part = next((p for p in prepared.stable if p.name == "catalog"), None)
        return (part.text if part is not None else ""), prepared.catalog_report


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


def test_codex_settings_read_both_skills_switches_and_ignore_other_types(tmp_path: Path) -> None:
    write(
        tmp_path / "config.toml",
        "[skills]\ninclude_instructions = false\n[skills.bundled]\nenabled = false\n",
    )
    settings = read_codex_settings(tmp_path)
    assert (settings.bundled_skills, settings.skills_instructions) == (False, False)
    write(tmp_path / "config.toml", '[skills]\ninclude_instructions = "no"\nbundled = 1\n')
    settings = read_codex_settings(tmp_path)
    assert (settings.bundled_skills, settings.skills_instructions) == (None, None)


def test_codex_system_root_is_left_out_when_codex_turns_bundled_skills_off(tree: Tree) -> None:
    assert tree.system_roots() == [tree.codex_home / "skills" / ".system"]
    tree.codex_config(BUNDLED_OFF)
    assert tree.system_roots() == []
    switch = codex_skill_switches(tree.env()).bundled
    assert (switch.on, switch.file) == (False, tree.codex_home / "config.toml")


def test_a_trusted_projects_codex_config_sets_the_switches_over_the_users(tree: Tree) -> None:
    tree.project_codex_config(BUNDLED_OFF + "[skills]\ninclude_instructions = false\n")
    assert tree.system_roots() != []  # no trust entry: the project layer is not read
    tree.codex_config("", trusted=True)
    assert tree.system_roots() == []
    assert not codex_skill_switches(tree.env()).instructions.on
    tree.codex_config(BUNDLED_OFF, trusted=True)
    tree.project_codex_config("[skills.bundled]\nenabled = true\n")
    assert tree.system_roots() != []


def test_discovery_follows_the_bundled_option_over_codex_config(tree: Tree) -> None:
    tree.codex_config(BUNDLED_OFF)
    plain = DiscoveryOptions(include_builtin=False, include_claude=False, use_cache=False)
    names = {s.name for s in discover_skills(tree.env(), plain).skills}
    assert names == {"mine"}
    on = DiscoveryOptions(include_builtin=False, include_claude=False, use_cache=False, bundled=True)
    assert {s.name for s in discover_skills(tree.env(), on).skills} == {"mine", "sysskill"}


def test_a_withheld_catalog_has_no_text_and_says_why(tree: Tree) -> None:
    skills = discover_skills(tree.env(), DiscoveryOptions(include_builtin=False, use_cache=False)).skills
    rendered = withheld_catalog(
        render_catalog(skills, TokenBudget(5000)), "skills.include_instructions = false"
    )
    report = rendered.report
    assert rendered.text == "" and rendered.entries == () and rendered.skills == ()
    assert (report.included, report.omitted, report.used) == (0, 2, 0)
    assert set(report.omitted_skills) == {"mine", "sysskill"}
    assert "skills.include_instructions = false" in (report.warning or "")


def test_codex_include_instructions_off_leaves_the_context_without_a_catalog(tree: Tree) -> None:
    tree.codex_config(LIST_OFF)
    text, report = tree.catalog()
    assert text == ""
    assert f"in {tree.codex_home / 'config.toml'}" in str(report["warning"])


def test_codex_bundled_off_leaves_system_skills_out_of_the_catalog(tree: Tree) -> None:
    assert "sysskill" in tree.catalog()[0]
    tree.codex_config(BUNDLED_OFF)
    text, _ = tree.catalog()
    assert "mine" in text and "sysskill" not in text


def test_skillshelfs_own_switches_win_over_codexs(tree: Tree) -> None:
    text, report = tree.catalog("skills.bundled.enabled=false", "skills.include_instructions=false")
    assert text == "" and report["omitted_skills"] == ["mine"]
    assert "(-c)" in str(report["warning"])
    tree.codex_config(BUNDLED_OFF + "[skills]\ninclude_instructions = false\n")
    text, _ = tree.catalog("skills.bundled.enabled=true", "skills.include_instructions=true")
    assert "mine" in text and "sysskill" in text


def test_validate_notes_the_system_skills_codex_does_not_load(tree: Tree) -> None:
    tree.codex_config(BUNDLED_OFF)
    report = validate_paths([tree.codex_home / "skills"], env=tree.env())
    assert report.ok and report.checked == 0
    [note] = [d for d in report.diagnostics if d.code == "SK375"]
    assert "1 system skill(s)" in note.message and str(tree.codex_home / "config.toml") in note.message


def listed_names(text: str | None) -> set[str]:
    return {line[2:].split(":")[0] for line in split_catalog(text)[1]}


@pytest.mark.oracle
def test_the_switches_match_codex(tmp_path: Path, codex_oracle: Any) -> None:
    tree = Tree(tmp_path)
    write(tree.repo / ".agents" / "skills" / "second" / "SKILL.md", skill_text("second", "another one"))
    first = codex_oracle(tree.repo, home=tree.home, codex_home=tree.codex_home)  # installs its system skills
    assert "imagegen" in listed_names(first["skills_instructions"])
    tree.codex_config(BUNDLED_OFF)
    theirs = codex_oracle(tree.repo, home=tree.home, codex_home=tree.codex_home)["skills_instructions"]
    assert listed_names(tree.catalog()[0]) == listed_names(theirs) == {"mine", "second"}
    tree.codex_config(LIST_OFF)
    assert codex_oracle(tree.repo, home=tree.home, codex_home=tree.codex_home)["skills_instructions"] is None
    assert tree.catalog()[0] == ""
