"""The catalog budget when none is given: the window of Codex's model (catalog/window.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.skills.catalog import CharBudget, TokenBudget
from skillshelf.skills.catalog.window import ModelInfo, choose_budget, model_window
from skillshelf.skills.codex_config import catalog_budget, read_codex_settings
from testkit import IsolatedHome

CATALOG = (
    ModelInfo(slug="big", context_window=300_000, priority=2),
    ModelInfo(slug="hidden", context_window=60_000, priority=0, pickable=False),
    ModelInfo(slug="capped", context_window=100_000, max_context_window=150_000, priority=3),
    ModelInfo(slug="uncapped", context_window=60_000, priority=4),
    ModelInfo(slug="no-window", context_window=None, priority=5),
)


def test_without_a_catalog_the_default_model_gets_codex_s_built_in_window() -> None:
    choice = choose_budget()
    assert choice.budget == TokenBudget(10_000)
    assert "Codex's default model" in choice.source and "500,000" in choice.source


def test_a_model_missing_from_the_catalog_gets_272_000_tokens_and_no_more() -> None:
    assert choose_budget(model="o3").budget == TokenBudget(5_440)
    assert choose_budget(model="o3", catalog=CATALOG).budget == TokenBudget(5_440)
    assert choose_budget(model="o3", window=(2_000_000, "x")).budget == TokenBudget(5_440)
    assert choose_budget(model="o3", window=(100_000, "x")).budget == TokenBudget(2_000)
    assert "o3 is not in" in choose_budget(model="o3").source


def test_the_default_model_is_the_first_listed_one_by_priority() -> None:
    window, what, slug = model_window(None, CATALOG)
    assert (window, slug) == (300_000, "big")
    assert choose_budget(catalog=CATALOG).budget == TokenBudget(6_000)
    assert what == "the window of big"


def test_a_configured_window_is_capped_by_the_model_s_maximum_only_when_it_has_one() -> None:
    assert choose_budget(model="capped", catalog=CATALOG).budget == TokenBudget(2_000)
    assert choose_budget(model="capped", catalog=CATALOG, window=(400_000, "x")).budget == TokenBudget(3_000)
    assert choose_budget(model="capped", catalog=CATALOG, window=(50_000, "x")).budget == TokenBudget(1_000)
    big = choose_budget(model="uncapped", catalog=CATALOG, window=(2_000_000, "x"))
    assert big.budget == TokenBudget(40_000)
    assert choose_budget(window=(2_000_000, "x")).budget == TokenBudget(17_440)


def test_an_unknown_or_zero_window_is_8000_characters() -> None:
    assert choose_budget(model="no-window", catalog=CATALOG).budget == CharBudget(8_000)
    zero = choose_budget(window=(0, "--context-window"))
    assert zero.budget == CharBudget(8_000) and "unknown" in zero.source


def test_explicit_characters_and_tokens_win_and_say_where_they_came_from() -> None:
    chars = choose_budget(chars=(500, "--budget-chars"), tokens=(9, "t"), window=(1, "w"))
    assert chars.budget == CharBudget(500) and "--budget-chars" in chars.source
    tokens = choose_budget(tokens=(20_000, "skills.max_context_tokens"), window=(1_000, "w"))
    assert tokens.budget == TokenBudget(10_000) and "at most 10,000" in tokens.source


def write_catalog(folder: Path, models: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "models.json"
    path.write_text(json.dumps({"models": models}), encoding="utf-8")
    return path


def model(slug: str, window: int | None, **extra: Any) -> dict[str, Any]:
    return {"slug": slug, "context_window": window, "priority": 1, "visibility": "list", **extra}


def write_config(env: Env, text: str) -> None:
    env.codex_home.mkdir(parents=True, exist_ok=True)
    (env.codex_home / "config.toml").write_text(text, encoding="utf-8")


def test_codex_config_and_its_model_catalog_size_the_catalog(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    catalog = write_catalog(tmp_path / "c", [model("house", 200_000), model("other", 900_000, priority=9)])
    write_config(env, f'model_catalog_json = "{catalog}"\n')
    default = catalog_budget(env)
    assert default.budget == TokenBudget(4_000) and default.model == "house"
    assert str(catalog) in default.source
    write_config(env, f'model_catalog_json = "{catalog}"\nmodel = "other"\n')
    assert catalog_budget(env).budget == TokenBudget(18_000)
    write_config(env, f'model_catalog_json = "{catalog}"\nmodel = "other"\nmodel_context_window = 50000\n')
    assert catalog_budget(env).budget == TokenBudget(1_000)
    assert "model_context_window in ~/.codex/config.toml" in catalog_budget(env).source
    write_config(env, "[skills]\nmax_context_tokens = 700\n")
    assert catalog_budget(env).budget == TokenBudget(700)
    assert catalog_budget(env, window=(100_000, "--context-window")).budget == TokenBudget(700)


def test_a_models_cache_codex_did_not_fetch_is_not_read(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    write_catalog(env.codex_home, [model("cached", 100_000)]).rename(env.codex_home / "models_cache.json")
    write_config(env, 'model = "cached"\n')
    assert catalog_budget(env).budget == TokenBudget(5_440)


def test_a_window_given_to_skillshelf_still_obeys_the_model_s_cap(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    mine = write_catalog(tmp_path / "c", [model("mine", 100_000, max_context_window=120_000)])
    write_config(env, f'model_catalog_json = "{mine}"\n')
    assert catalog_budget(env).budget == TokenBudget(2_000)
    assert catalog_budget(env, window=(500_000, "--context-window")).budget == TokenBudget(2_400)


@pytest.mark.parametrize("text", ["model = [", "\xff\xfe", 'model = 5\nproject_root_markers = "x"\n'])
def test_a_broken_codex_config_falls_back_to_the_defaults(
    tmp_path: Path, isolated_home: IsolatedHome, text: str
) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    env.codex_home.mkdir(parents=True, exist_ok=True)
    (env.codex_home / "config.toml").write_bytes(text.encode("latin-1"))
    settings = read_codex_settings(env.codex_home)
    assert settings.model is None and settings.project_root_markers is None
    assert catalog_budget(env).budget == TokenBudget(10_000)
