"""The ``.claude/commands`` files Claude Code lists beside its skills (checked against the real
CLI in test_claude_listing_oracle.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skill_tree_helpers import git_init, write

from skillshelf.env import Env
from skillshelf.skills.claude_commands import (
    MAX_COMMAND_BYTES,
    claude_commands,
    command_from_text,
    command_name,
    listing_key,
)
from skillshelf.skills.parse_identity import js_trim


def test_a_command_is_named_by_its_path_below_the_commands_folder(tmp_path: Path) -> None:
    base = tmp_path / "commands"
    assert command_name(base / "deploy.md", base) == "deploy"
    assert command_name(base / "frontend/ui/component.md", base) == "frontend:ui:component"
    assert command_name(base / "packaged/SKILL.md", base) == "packaged"
    assert command_name(base / "group/packaged/skill.md", base) == "group:packaged"


def test_the_description_comes_from_frontmatter_else_the_first_line() -> None:
    assert command_from_text("a", "---\ndescription: '  Deploy it  '\n---\nbody\n").description == "Deploy it"
    assert command_from_text("a", "\n\n  # Build a component\nmore\n").description == "Build a component"
    assert command_from_text("a", "---\ndescription: ''\n---\n\nFirst line\n").description == "First line"
    assert command_from_text("a", "---\ndescription: 42\n---\n").description == "42"
    assert command_from_text("a", " \n\t\n").description == "Custom command"
    long = command_from_text("a", "L" * 150).description
    assert long == "L" * 97 + "..." and command_from_text("a", "L" * 100).description == "L" * 100


def test_a_commands_first_line_is_read_by_the_rule_of_a_skills() -> None:
    assert command_from_text("a", "# a\rb\n").description == "# a\rb"
    assert command_from_text("a", "\u00a0 # nb heading\n").description == "nb heading"
    assert command_from_text("a", "\x85x\n").description == "\x85x"
    assert command_from_text("a", "\U0001f600" * 60).description == "\U0001f600" * 48 + "\ufffd..."


def test_broken_frontmatter_falls_back_to_the_body_and_hides_nothing() -> None:
    text = '---\ndescription: "unbalanced\ndisable-model-invocation: true\n---\nThe body line\n'
    command = command_from_text("a", text)
    assert command.description == "The body line" and not command.hidden and not command.described


def test_yaml_that_fails_gets_claude_codes_repair_as_a_skills_does() -> None:
    command = command_from_text("a", "---\ndescription: [unclosed\n---\nThe body line\n")
    assert command.description == "[unclosed" and command.described


@pytest.mark.parametrize(
    ("frontmatter", "shown", "when_to_use"),
    [
        ("description: 1.50", "1.5", None),
        ("description: 0x1F", "31", None),
        ("description: 1e3", "1000", None),
        ("description: yes", "yes", None),
        ("description: TRUE", "true", None),
        ("description: 2024-01-01", "2024-01-01", None),
        ("description: !!str 1.50", "1.50", None),
        ("description: null", None, None),
        ("description: [a, b]", None, None),
        ("description: {a: 1}", None, None),
        ('description: "  a  b  "', "a  b", None),
        ("description: |\n  l1\n  l2", "l1\nl2", None),
        ("description: one\ndescription: two", "two", None),
        ("description: a---b", "a", None),
        ("description: d\nwhen_to_use: [a, b]", "d", "a,b"),
        ("description: d\nwhen_to_use: 1.50", "d", "1.5"),
        ("description: d\nwhen-to-use: hyphen", "d", None),
    ],
)
def test_a_commands_frontmatter_is_read_as_a_skills_by_claude_codes_yaml(
    frontmatter: str, shown: str | None, when_to_use: str | None
) -> None:
    command = command_from_text("a", f"---\n{frontmatter}\n---\nBody line\n")
    assert command.description == (shown or "Body line") and command.described is (shown is not None)
    assert command.when_to_use == when_to_use


@pytest.mark.parametrize(
    ("value", "hidden"), [("true", True), ("True", True), ('"true"', True), ("yes", False)]
)
def test_disable_model_invocation_hides_a_command_when_claude_code_reads_true(
    value: str, hidden: bool
) -> None:
    text = f"---\ndescription: d\ndisable-model-invocation: {value}\n---\n"
    assert command_from_text("a", text).hidden is hidden


def test_when_to_use_and_disable_model_invocation_are_read() -> None:
    text = "---\ndescription: D\nwhen_to_use: W\ndisable-model-invocation: true\n---\n"
    command = command_from_text("a", text)
    assert (command.when_to_use, command.hidden) == ("W", True)
    assert not command_from_text("a", "---\ndescription: D\ndisable-model-invocation: no\n---\n").hidden


def test_commands_of_the_user_and_every_project_folder_are_listed_in_name_order(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", git_init(tmp_path / "repo")
    cwd = repo / "app"
    write(home / ".claude/commands/zeta.md", "User zeta\n")
    write(repo / ".claude/commands/Beta.md", "Root beta\n")
    write(cwd / ".claude/commands/frontend/alpha.md", "Nested alpha\n")
    write(cwd / ".claude/commands/packaged/SKILL.md", "---\ndescription: Packaged\n---\n")
    write(cwd / ".claude/commands/packaged/notes.md", "never a command\n")
    write(cwd / ".claude/commands/readme.txt", "not markdown\n")
    commands = claude_commands(Env.for_test(cwd=cwd, home=home))
    assert [(c.name, c.description) for c in commands] == [
        ("Beta", "Root beta"),
        ("frontend:alpha", "Nested alpha"),
        ("packaged", "Packaged"),
        ("zeta", "User zeta"),
    ]


def test_the_home_folders_commands_are_read_once(tmp_path: Path) -> None:
    home = git_init(tmp_path / "home")
    write(home / ".claude/commands/once.md", "Once\n")
    assert [c.name for c in claude_commands(Env.for_test(cwd=home, home=home))] == ["once"]


def test_a_link_loop_a_huge_file_and_an_unreadable_folder_do_not_stop_the_rest(tmp_path: Path) -> None:
    home, project = tmp_path / "home", git_init(tmp_path / "project")
    base = project / ".claude/commands"
    write(base / "ok.md", "Fine\n")
    write(base / "loop/inner.md", "Inner\n")
    os.symlink(base / "loop", base / "loop/again")
    write(base / "huge.md", "x" * (MAX_COMMAND_BYTES + 1))
    (base / "dangling.md").symlink_to(tmp_path / "missing.md")
    locked = base / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        names = [c.name for c in claude_commands(Env.for_test(cwd=project, home=home))]
    finally:
        locked.chmod(0o700)
    assert names == ["loop:inner", "ok"]


def test_names_sort_as_claude_codes_locale_compare() -> None:
    names = ["b", "Ab", "aB", "ab", "aa", "a9z", "a1", "a~b", "a.b", "a-b", "a_b", "A"]
    assert sorted(names, key=listing_key) == list(reversed(names))


@given(st.text(max_size=300))
def test_any_text_makes_a_command_with_a_description(text: str) -> None:
    command = command_from_text("a", text)
    assert js_trim(command.description)  # JavaScript's trim: "\x1f" stays
    if not text.startswith("---"):
        assert len(command.description) <= 100
