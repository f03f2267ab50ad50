"""The catalog budget from Codex's config.toml: values Codex refuses to start with are reported
(SK232), and a trusted project's ``.codex/config.toml`` sizes the catalog as Codex lets it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, split_catalog, write, write_skill

from skillshelf.env import Env
from skillshelf.skills.catalog import CharBudget, TokenBudget, render_catalog
from skillshelf.skills.codex_config import catalog_budget, read_codex_settings
from skillshelf.skills.discover import DiscoveryOptions, discover_skills

_OPTIONS = DiscoveryOptions(
    include_builtin=False, include_claude=False, include_installed=False, use_cache=False
)


def _env(tmp_path: Path, user: str, project: str = "", *, trusted: bool = True) -> Env:
    repo = git_init(tmp_path / "repo")
    codex_home = tmp_path / "codex-home"
    trust = f'[projects."{repo.resolve()}"]\ntrust_level = "trusted"\n' if trusted else ""
    write(codex_home / "config.toml", user + "\n" + trust)
    if project:
        write(repo / ".codex/config.toml", project + "\n")
    return dataclasses.replace(
        Env.for_test(cwd=repo, home=tmp_path / "home", codex_home=codex_home),
        admin_skills_dir=Path("/etc/codex/skills"),
    )


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("[skills]\nmax_context_tokens = 0", "skills.max_context_tokens"),
        ("[skills]\nmax_context_tokens = -5", "skills.max_context_tokens"),
        ('[skills]\nmax_context_tokens = "abc"', "skills.max_context_tokens"),
        ("[skills]\nmax_context_tokens = 1.5", "skills.max_context_tokens"),
        ("[skills]\nmax_context_tokens = 9223372036854775808", "skills.max_context_tokens"),
        ("skills = 5", "skills"),
        ('model_context_window = "big"', "model_context_window"),
        ("model_context_window = 1.5", "model_context_window"),
        ("model_context_window = true", "model_context_window"),
        ("model = 5", "model"),
        ('model = " "', "model"),
    ],
)
def test_a_budget_value_codex_refuses_to_start_with_is_reported_and_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, key: str
) -> None:
    monkeypatch.chdir(tmp_path)
    env = _env(tmp_path, line)
    notes = [d for d in discover_skills(env, _OPTIONS).diagnostics if d.code == "SK232"]
    assert [d.field for d in notes] == [key]
    assert notes[0].fix and notes[0].path == env.codex_home / "config.toml"
    assert catalog_budget(env).budget == TokenBudget(10_000)


@pytest.mark.parametrize(
    "line", ["[skills]\nmax_context_tokens = 9223372036854775807", "model_context_window = -1"]
)
def test_values_codex_takes_are_not_reported(tmp_path: Path, line: str) -> None:
    assert read_codex_settings(_env(tmp_path, line).codex_home).diagnostics == ()


def test_a_negative_window_is_an_unknown_one_as_in_codex(tmp_path: Path) -> None:
    assert catalog_budget(_env(tmp_path, "model_context_window = -1")).budget == CharBudget(8_000)


@pytest.mark.parametrize(
    ("project", "budget"),
    [
        ("[skills]\nmax_context_tokens = 300", TokenBudget(300)),
        ("model_context_window = 20000", TokenBudget(400)),
        ('model = "o3"', TokenBudget(5_440)),
    ],
)
def test_a_trusted_projects_codex_config_sizes_the_catalog(tmp_path: Path, project: str, budget: Any) -> None:
    env = _env(tmp_path, "", project)
    choice = catalog_budget(env)
    assert choice.budget == budget
    assert ".codex/config.toml" in choice.source or "o3" in choice.source


def test_an_untrusted_projects_codex_config_sizes_nothing_and_is_not_reported(tmp_path: Path) -> None:
    env = _env(tmp_path, "", "[skills]\nmax_context_tokens = 0", trusted=False)
    assert catalog_budget(env).budget == TokenBudget(10_000)
    assert not [d for d in discover_skills(env, _OPTIONS).diagnostics if d.code == "SK232"]


def test_a_trusted_projects_refused_value_is_reported_with_its_file(tmp_path: Path) -> None:
    env = _env(tmp_path, "", "[skills]\nmax_context_tokens = 0")
    notes = [d for d in discover_skills(env, _OPTIONS).diagnostics if d.code == "SK232"]
    assert [d.path for d in notes] == [env.cwd / ".codex/config.toml"]


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("user", "project"),
    [
        ("", "[skills]\nmax_context_tokens = 300"),
        ("", "model_context_window = 20000"),
        ("[skills]\nmax_context_tokens = 600", "model_context_window = 20000"),
        ("model_context_window = -1", ""),
    ],
)
def test_the_project_layers_budget_matches_codex(
    tmp_path: Path, codex_oracle: Any, user: str, project: str
) -> None:
    env = _env(tmp_path, user + "\n[skills.bundled]\nenabled = false", project)
    for i in range(40):
        words = " ".join(f"task {i} word{j}" for j in range(12))
        write_skill(env.cwd / ".agents/skills" / f"s{i:02d}", f"s{i:02d}", f"Use this skill for {words}")
    found = discover_skills(env, _OPTIONS)
    skills = [s for s in found.skills if s.scope.value != "system"]
    result = codex_oracle(env.cwd, home=env.home, codex_home=env.codex_home)
    theirs = split_catalog(result["skills_instructions"])
    rendered = render_catalog(
        [dataclasses.replace(s, trusted=True) for s in skills],
        catalog_budget(env).budget,
        roots=[r.path for r in found.roots],
    )
    ours = (list(rendered.root_lines), list(rendered.entries))
    assert ours == theirs
