"""Claude Code's listing budget: which skills keep their descriptions (the rule itself is
checked against the real CLI in test_claude_listing_oracle.py)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from skill_tree_helpers import write, write_skill

from skillshelf.env import Env
from skillshelf.skills.claude_listing import (
    OWN_KEPT_COUNT,
    OWN_KEPT_WIDTH,
    OWN_TRAILING,
    ListingEntry,
    display_width,
    entry_text,
    plan_listing,
    usage_priority,
)
from skillshelf.skills.claude_view import claude_listing, listed_description
from skillshelf.skills.discover import discover_claude


def _entries(count: int, length: int = 300) -> list[ListingEntry]:
    return [ListingEntry(name=f"s-{n:03d}", text="x" * length) for n in range(count)]


def test_a_listing_that_fits_keeps_every_description() -> None:
    plan = plan_listing(_entries(10), budget=30_000)
    assert not plan.over and len(plan.described) == 10 and plan.names_only == ()


def test_over_budget_the_first_in_order_keep_theirs_unless_others_were_used_more() -> None:
    entries = _entries(150)
    plan = plan_listing(entries, budget=30_000)
    assert plan.over and plan.described == tuple(e.name for e in entries[: len(plan.described)])
    assert plan.names_only[-1] == "s-149"
    used = [*entries[:149], ListingEntry(name="s-149", text="x" * 300, priority=3.0)]
    replanned = plan_listing(used, budget=30_000)
    assert "s-149" in replanned.described and plan.described[-1] in replanned.names_only


def test_a_name_only_override_is_neither_described_nor_cut() -> None:
    entries = [*_entries(150), ListingEntry(name="quiet", text="y" * 300, name_only=True)]
    plan = plan_listing(entries, budget=30_000)
    assert "quiet" not in plan.described + plan.names_only


def test_the_entry_text_joins_when_to_use_and_is_cut_with_an_ellipsis() -> None:
    assert entry_text("Does a thing", "when asked") == "Does a thing - when asked"
    cut = entry_text("a" * 2000, None)
    assert len(cut) == 1536 and cut.endswith("\u2026")
    assert entry_text("a" * 30, None, cap=10) == "a" * 9 + "\u2026"


def test_display_width_counts_wide_characters_twice_and_marks_not_at_all() -> None:
    assert display_width("abc") == 3
    assert display_width("表示") == 4
    assert display_width("e\u0301") == 1


def test_usage_priority_halves_each_week_and_keeps_a_tenth() -> None:
    now = 1_000 * 86_400_000
    assert usage_priority({"usageCount": 4, "lastUsedAt": now}, now_ms=now) == 4
    assert usage_priority({"usageCount": 4, "lastUsedAt": now - 7 * 86_400_000}, now_ms=now) == 2
    assert usage_priority({"usageCount": 4, "lastUsedAt": 0}, now_ms=now) == 0.4
    assert usage_priority({"usageCount": "many"}, now_ms=now) == 0
    assert usage_priority(None) == 0


def _shown_width(entries: list[ListingEntry], described: set[str]) -> int:
    trailing_bare = sum(len(name) + 2 for name, _ in OWN_TRAILING)
    shown = sum(e.whole if e.name in described or e.name_only else e.bare for e in entries)
    return OWN_KEPT_WIDTH + shown + trailing_bare + OWN_KEPT_COUNT + len(entries) + len(OWN_TRAILING) - 1


@settings(max_examples=150, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=0, max_value=1600), max_size=120),
    budget=st.integers(min_value=1, max_value=80_000),
    used=st.lists(st.floats(min_value=0, max_value=50), max_size=120),
)
def test_an_over_budget_listing_keeps_within_its_budget_whatever_the_skills(
    lengths: list[int], budget: int, used: list[float]
) -> None:
    entries = [
        ListingEntry(name=f"s{n}", text="z" * length, priority=used[n] if n < len(used) else 0.0)
        for n, length in enumerate(lengths)
    ]
    plan = plan_listing(entries, budget=budget)
    assert sorted(plan.described + plan.names_only) == sorted(e.name for e in entries)
    minimum = _shown_width(entries, set())
    if plan.over and minimum <= budget:
        assert _shown_width(entries, set(plan.described)) <= budget


def _validate(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    ours = ("CLAUDE", "SLASH_COMMAND", "ANTHROPIC", "DISABLE_COMPACT")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    return subprocess.run(
        [sys.executable, "-m", "skillshelf.cli.main", "validate", "--profile", "claude", *args],
        cwd=cwd,
        env={**environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def _user_skills(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """A home with ``count`` user skills of 325-character descriptions, and an empty project."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    for n in range(count):
        write_skill(home / ".claude/skills" / f"s-{n:03d}", f"s-{n:03d}", "does a thing " * 25)
    return home, project


def test_validate_says_which_skills_claude_code_lists_by_name_alone(tmp_path: Path) -> None:
    home, project = _user_skills(tmp_path, 120)
    proc = _validate(home, project)
    assert proc.returncode == 0, proc.stderr
    assert "warning SK369" in proc.stdout and "listed by name alone" in proc.stdout
    assert re.search(r"without their descriptions: s-\d{3}, .* and \d+ more", proc.stdout)
    assert "Claude Code's skill listing:" in proc.stdout and "of 30,000 characters" in proc.stdout
    data = json.loads(_validate(home, project, "--json").stdout)
    assert [d["code"] for d in data["diagnostics"]] == ["SK369"]

    write(home / ".claude/settings.json", json.dumps({"skillListingBudgetFraction": 0.05}))
    proc = _validate(home, project)
    assert "SK369" not in proc.stdout and "of 150,000 characters" in proc.stdout
    assert "skillListingBudgetFraction" in proc.stdout
    proc = _validate(home, project, str(home / ".claude/skills"))
    assert "Claude Code's skill listing" not in proc.stdout


def test_the_budget_follows_the_model_claude_code_runs(tmp_path: Path) -> None:
    home, project = _user_skills(tmp_path, 30)
    assert "SK369" not in _validate(home, project).stdout
    write(home / ".claude/settings.json", json.dumps({"model": "claude-sonnet-4-5"}))
    proc = _validate(home, project)
    assert "warning SK369" in proc.stdout and "of 8,000 characters" in proc.stdout
    assert "of the 200,000-token window of claude-sonnet-4-5, at 4 characters a token" in proc.stdout
    write(home / ".claude/settings.json", json.dumps({"model": "sonnet"}))
    assert "of 30,000 characters (1% of the 1,000,000-token window of claude-sonnet-5 (model 'sonnet')" in (
        _validate(home, project).stdout
    )


def test_command_files_take_room_in_the_listing_and_are_named_when_cut(tmp_path: Path) -> None:
    home, project = _user_skills(tmp_path, 60)
    assert "SK369" not in _validate(home, project).stdout
    for n in range(40):
        text = f"---\ndescription: {'runs a step ' * 30}\n---\n"
        write(project / ".claude/commands" / f"c-{n:03d}.md", text)
    proc = _validate(home, project)
    assert "warning SK369" in proc.stdout
    assert "of your 100 skills and commands (40 in .claude/commands)" in proc.stdout


def test_plugin_skills_take_room_too_and_the_fix_names_plugins(tmp_path: Path) -> None:
    home, project = _user_skills(tmp_path, 60)
    kit = home / ".claude/skills/big-kit"
    write(kit / ".claude-plugin/plugin.json", json.dumps({"name": "big-kit"}))
    for n in range(40):
        write_skill(kit / f"skills/k-{n:03d}", f"k-{n:03d}", "runs a step " * 30)
    proc = _validate(home, project)
    assert "of your 100 skills and commands (40 from plugins)" in proc.stdout
    assert "turn off the plugins you do not use" in proc.stdout and "error SK" not in proc.stdout


def test_a_plugin_skill_shares_no_name_with_a_users_skill_of_the_same_folder_name(tmp_path: Path) -> None:
    home, project = _user_skills(tmp_path, 1)
    kit = home / ".claude/skills/kit"
    write(kit / ".claude-plugin/plugin.json", json.dumps({"name": "kit"}))
    write_skill(kit / "skills/s-000", "s-000", "the plugin's own s-000")
    proc = _validate(home, project)
    assert "SK362" not in proc.stdout and "2 Claude Code lists" in proc.stdout


def test_managed_skills_come_first_and_managed_settings_set_the_budget(tmp_path: Path) -> None:
    """Claude Code 2.1.197 lists the managed policy's skills, then the user's, then the
    project's, every same-named one included, and the policy's ``.claude/commands`` (checked
    once with ``claude-oracle`` and ``/etc/claude-code``; a test cannot write there)."""
    home, project = tmp_path / "home", tmp_path / "project"
    managed = tmp_path / "managed"
    (project / ".git").mkdir(parents=True)
    for root, names in ((managed, ["dup", "mgd"]), (home, ["dup", "usr"]), (project, ["dup", "proj"])):
        for name in names:
            write_skill(root / ".claude/skills" / name, name, f"from {root.name}")
    env = dataclasses.replace(Env.for_test(cwd=project, home=home), claude_managed_dir=managed)
    listing = claude_listing(env, use_cache=False)
    assert listing.plan.described == ("dup", "mgd", "dup", "usr", "dup", "proj")
    assert listing.plan.budget == 30_000

    policy_off = dataclasses.replace(
        env, environ={**env.environ, "CLAUDE_CODE_DISABLE_POLICY_SKILLS": " Yes"}
    )
    assert claude_listing(policy_off, use_cache=False).plan.described == ("dup", "usr", "dup", "proj")

    write(managed / ".claude/commands/mgd-cmd.md", "---\ndescription: the policy's command\n---\n")
    listing = claude_listing(env, use_cache=False)  # listed too (seen the same way)
    assert "mgd-cmd" in listing.plan.described and listing.commands == 1

    write(managed / "managed-settings.json", json.dumps({"skillListingBudgetFraction": 0.02}))
    listing = claude_listing(env, use_cache=False)
    assert listing.plan.budget == 60_000 and "skillListingBudgetFraction" in listing.budget_source


def test_a_plugin_skill_is_listed_by_a_description_javascript_does_not_trim_away(tmp_path: Path) -> None:
    """Claude Code lists a plugin's skill whose description is text its ``trim`` leaves (a NEL
    stays), a number or a boolean, or whose ``when_to_use`` prints as text (``[]`` does not)."""
    home, project = _user_skills(tmp_path, 0)
    kit = home / ".claude/skills/kit"
    write(kit / ".claude-plugin/plugin.json", json.dumps({"name": "kit"}))
    cases = {
        "nel": 'description: "\\N"',
        "yes": "description: yes",
        "number": "description: 1.50",
        "when": "when_to_use: [a]",
        "blank": 'description: "  "',
        "null": "description: ~",
        "empty-when": "when_to_use: []",
        "broken": 'description: "x',
    }
    for name, frontmatter in cases.items():
        write(kit / f"skills/{name}/SKILL.md", f"---\n{frontmatter}\n---\nBody\n")
    plan = claude_listing(Env.for_test(cwd=project, home=home), use_cache=False).plan
    assert sorted(plan.described) == ["kit:nel", "kit:number", "kit:when", "kit:yes"]


def test_the_listing_shows_a_descriptions_inner_whitespace_as_claude_code_does(tmp_path: Path) -> None:
    home, project = _user_skills(tmp_path, 0)
    cases = {
        "double": ('description: "a  b"', "a  b"),
        "newline": ('description: "l1\\nl2"', "l1\nl2"),
        "block": ("description: |\n  line one\n  line two", "line one\nline two"),
        "folded": ("description: >\n  f1\n  f2\n\n  f3", "f1 f2\nf3"),
        "number": ("description: 1e3", "1000"),
        "sequence": ("description: [a  b]", "Body  text"),
    }
    for name, (frontmatter, _) in cases.items():
        write(home / f".claude/skills/{name}/SKILL.md", f"---\n{frontmatter}\n---\nBody  text\n")
    found = discover_claude(Env.for_test(cwd=project, home=home), use_cache=False).skills
    assert {s.name: listed_description(s) for s in found} == {k: v for k, (_, v) in cases.items()}
