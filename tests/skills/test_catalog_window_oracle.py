"""Differential tests: the catalog budget Codex 0.171.0 derives from its model, and ours.

Codex is given model catalogs of made-up models through ``model_catalog_json`` (its own
setting, so nothing of Codex's catalog is copied here) and ``model`` /
``model_context_window`` / ``skills.max_context_tokens`` in ``config.toml``. skillshelf reads the
same ``config.toml`` with :func:`~skillshelf.skills.codex_config.catalog_budget`; for 400
skills that overflow every budget tried, the rendered roots table and skill lines must be
identical, so the budget must be the same to the token.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, split_catalog

from skillshelf.env import Env
from skillshelf.skills.catalog import render_catalog
from skillshelf.skills.codex_config import catalog_budget
from skillshelf.skills.discover import DiscoveryOptions, discover_skills

pytestmark = pytest.mark.oracle


def model(slug: str, window: int | None, priority: int, **extra: Any) -> dict[str, Any]:
    """A catalog entry with the fields Codex requires (values of our own)."""
    entry = {
        "slug": slug,
        "display_name": slug,
        "supported_reasoning_levels": [],
        "shell_type": "default",
        "visibility": "list",
        "supported_in_api": True,
        "priority": priority,
        "support_verbosity": False,
        "truncation_policy": {"mode": "tokens", "limit": 10_000},
        "experimental_supported_tools": [],
        "base_instructions": "A model for tests.",
        "context_window": window,
    }
    entry.update(extra)
    return entry


CATALOG = [
    model("wide", 300_000, 2),
    model("hidden", 60_000, 0, visibility="hide"),
    model("api-less", 50_000, 1, supported_in_api=False),
    model("capped", 100_000, 3, max_context_window=150_000),
    model("uncapped", 60_000, 4),
    model("windowless", None, 5),
]
CASES: dict[str, list[str]] = {
    "built-in default model": [],
    "a model Codex does not list": ['model = "o3"'],
    "unlisted model, window over its cap": ['model = "o3"', "model_context_window = 2000000"],
    "default model of the catalog": ['model_catalog_json = "models.json"'],
    "catalog model": ['model_catalog_json = "models.json"', 'model = "capped"'],
    "window over the model's cap": [
        'model_catalog_json = "models.json"',
        'model = "capped"',
        "model_context_window = 400000",
    ],
    "window under the model's": [
        'model_catalog_json = "models.json"',
        'model = "capped"',
        "model_context_window = 50000",
    ],
    "model without a cap": [
        'model_catalog_json = "models.json"',
        'model = "uncapped"',
        "model_context_window = 2000000",
    ],
    "model without a window": ['model_catalog_json = "models.json"', 'model = "windowless"'],
    "missing from the catalog": ['model_catalog_json = "models.json"', 'model = "o3"'],
    "window 0": ["model_context_window = 0"],
    "max_context_tokens wins": ["model_context_window = 100000", "[skills]\nmax_context_tokens = 3000"],
}


@pytest.fixture(scope="module")
def crowded_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with 400 skills of 40 to 400 characters of description."""
    repo = tmp_path_factory.mktemp("window") / "repo"
    git_init(repo)
    rnd = random.Random(7)
    for i in range(400):
        folder = repo / ".agents" / "skills" / f"s{i:03d}"
        folder.mkdir(parents=True)
        description = " ".join(f"w{rnd.randrange(10**5)}" for _ in range(rnd.randint(6, 60)))
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:03d}\ndescription: {description}\n---\n", encoding="utf-8"
        )
    return repo


@pytest.mark.parametrize("case", list(CASES))
def test_budget_from_codex_s_model_matches_codex(
    tmp_path: Path, codex_oracle: Any, crowded_repo: Path, case: str
) -> None:
    home, codex_home = tmp_path / "home", tmp_path / "codex"
    home.mkdir()
    codex_home.mkdir()
    (codex_home / "models.json").write_text(json.dumps({"models": CATALOG}), encoding="utf-8")
    lines = [*CASES[case], "[skills.bundled]\nenabled = false"]
    settings = [line for line in lines if not line.startswith("[")]
    tables = [line for line in lines if line.startswith("[")]
    (codex_home / "config.toml").write_text("\n".join(settings + tables) + "\n", encoding="utf-8")
    theirs = split_catalog(
        codex_oracle(crowded_repo, home=home, codex_home=codex_home)["skills_instructions"]
    )
    env = dataclasses.replace(
        Env.for_test(cwd=crowded_repo, home=home, codex_home=codex_home),
        admin_skills_dir=Path("/etc/codex/skills"),
    )
    options = DiscoveryOptions(
        include_builtin=False, include_claude=False, include_installed=False, use_cache=False
    )
    found = discover_skills(env, options)
    choice = catalog_budget(env)
    rendered = render_catalog(found.skills, choice.budget, roots=[r.path for r in found.roots])
    assert (list(rendered.root_lines), list(rendered.entries)) == theirs, f"{case}: ours {choice.source}"
