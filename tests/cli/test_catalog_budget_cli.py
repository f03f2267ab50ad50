"""`catalog` and `context` say which budget they used and name the skills it cut."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from skillshelf.cli.main import cli
from testkit import IsolatedHome


def run(args: list[str], cwd: Path) -> Result:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def crowded(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    """A project with 40 skills of 300-character descriptions (12,000 characters in all)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for i in range(40):
        folder = repo / ".agents" / "skills" / f"s{i:02d}"
        folder.mkdir(parents=True)
        description = f"Skill number {i} " + "x" * 285
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:02d}\ndescription: {description}\n---\n", encoding="utf-8"
        )
    return repo


def test_catalog_json_names_the_skills_left_out_and_those_cut_to_a_name(crowded: Path) -> None:
    out = run(["catalog", "--no-builtin", "--json", "--budget-chars", "1000"], crowded)
    report = json.loads(out.stdout)["report"]
    assert report["omitted"] == len(report["omitted_skills"]) == 13
    assert report["omitted_skills"][-1] == "skill-39"
    assert report["name_only_skills"] == [f"skill-{i:02d}" for i in range(report["included"])]
    assert report["budget"]["source"] == "1,000 characters (--budget-chars)"
    assert "left out (13): skill-27, skill-28" in out.stderr and "(+1 more)" in out.stderr


def test_catalog_without_a_window_uses_the_window_of_codex_s_model_and_says_so(crowded: Path) -> None:
    out = run(["catalog", "--no-builtin", "--json"], crowded)
    report = json.loads(out.stdout)["report"]
    assert report["budget"]["limit"] == 10_000 and report["budget"]["unit"] == "tokens"
    assert "Codex's default model" in report["budget"]["source"]
    assert report["omitted_skills"] == [] and report["name_only_skills"] == [] and report["included"] == 40
    assert "catalog budget: 2% of the 500,000-token context window" in out.stderr


def test_catalog_uses_the_model_codex_is_configured_with(crowded: Path, isolated_home: IsolatedHome) -> None:
    codex_home = isolated_home.codex_home
    codex_home.mkdir(parents=True, exist_ok=True)
    models = [{"slug": "small", "context_window": 100_000, "visibility": "list", "priority": 1}]
    (codex_home / "models.json").write_text(json.dumps({"models": models}), encoding="utf-8")
    (codex_home / "config.toml").write_text(
        'model = "small"\nmodel_catalog_json = "models.json"\n', encoding="utf-8"
    )
    report = json.loads(run(["catalog", "--no-builtin", "--json"], crowded).stdout)["report"]
    assert report["budget"]["limit"] == 2_000 and "small" in report["budget"]["source"]
    assert report["name_only_skills"] or report["truncated_count"]


def test_context_reports_the_budget_and_the_cut_skills(crowded: Path) -> None:
    args = ["context", "--no-builtin", "--no-memory", "--no-suggestions", "--no-instructions"]
    data = json.loads(run([*args, "--budget-chars", "1000", "--json"], crowded).stdout)
    assert data["catalog_report"]["omitted_skills"][-1] == "skill-39"
    people = run([*args, "--budget-chars", "1000"], crowded)
    assert "catalog budget: 1,000 characters (--budget-chars)" in people.stdout
    assert "listed by name only" in people.stdout


@pytest.mark.parametrize(
    ("own", "credited"),
    [
        ("", "requirements.max_catalog_tokens in"),
        ("[catalog]\nbudget_tokens = 500\n", "requirements.max_catalog_tokens in"),
        ("[catalog]\nbudget_tokens = 50\n", "catalog.budget_tokens in"),
    ],
)
def test_a_budget_the_requirement_caps_credits_the_requirement(
    crowded: Path, isolated_home: IsolatedHome, own: str, credited: str
) -> None:
    config = isolated_home.write_user_config(f"{own}[requirements]\nmax_catalog_tokens = 100\n")
    out = run(["catalog", "--no-builtin"], crowded)
    source = next(line for line in out.stderr.splitlines() if line.startswith("catalog budget:"))
    assert credited in source and str(config) in source
