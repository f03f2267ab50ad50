"""Codex's plugins: the order of their roots (by plugin name, then marketplace) and which version
folders count as plugins (a manifest Codex can read), unit tests and against codex-oracle."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, split_catalog, write, write_skill
from test_discover_oracle import ORACLE_CONFIG, codex_listing

from skillshelf.env import Env
from skillshelf.skills.catalog import CharBudget, render_catalog
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from skillshelf.skills.plugins import codex_enabled_plugins, codex_manifest, codex_plugin_folders

_OPTIONS = DiscoveryOptions(
    include_builtin=False, include_claude=False, include_installed=False, use_cache=False
)


def _env(tmp_path: Path, codex_home: Path) -> Env:
    return dataclasses.replace(
        Env.for_test(cwd=git_init(tmp_path / "repo"), home=tmp_path / "home", codex_home=codex_home),
        admin_skills_dir=Path("/etc/codex/skills"),
    )


def _enable(codex_home: Path, *ids: str) -> None:
    write(codex_home / "config.toml", "".join(f'[plugins."{i}"]\nenabled = true\n' for i in ids))


def test_enabled_plugins_are_ordered_by_name_then_marketplace(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    _enable(codex_home, "demo2@mk", "demo@zz", "demo@mk", "Beta@mk", "demo-x@mk")
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home", codex_home=codex_home)
    assert codex_enabled_plugins(env) == ["Beta@mk", "demo@mk", "demo@zz", "demo-x@mk", "demo2@mk"]


@pytest.mark.parametrize(
    ("files", "loads"),
    [
        ({}, False),
        ({".codex-plugin/plugin.json": "not json"}, False),
        ({".codex-plugin/plugin.json": "[1]"}, False),
        ({".codex-plugin/plugin.json": '{"name": null}'}, False),
        ({".codex-plugin/plugin.json": '{"name": "n", "version": 5}'}, False),
        ({".codex-plugin/plugin.json": '{"name": "n", "keywords": [1]}'}, False),
        ({".codex-plugin/plugin.json": "not json", ".claude-plugin/plugin.json": '{"name": "c"}'}, False),
        ({".codex-plugin/plugin.json/": "", ".claude-plugin/plugin.json": '{"name": "c"}'}, False),
        ({".codex-plugin/plugin.json": "{}"}, True),
        ({".codex-plugin/plugin.json": '{"name": "n", "skills": 5, "version": null}'}, True),
        ({".claude-plugin/plugin.json": '{"name": "c"}'}, True),
        ({".cursor-plugin/plugin.json": '{"name": "c", "keywords": ["a"]}'}, True),
    ],
)
def test_a_plugin_version_folder_counts_only_with_a_manifest_codex_reads(
    tmp_path: Path, files: dict[str, str], loads: bool
) -> None:
    root = tmp_path / "kit" / "1.0.0"
    root.mkdir(parents=True)
    for name, text in files.items():
        if name.endswith("/"):
            (root / name).mkdir(parents=True)
        else:
            write(root / name, text)
    assert (codex_manifest(root) is not None) is loads


def test_a_plugin_without_a_manifest_gives_no_skill_folders(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    write_skill(codex_home / "plugins/cache/mk/nomani/1.0.0/skills/w", "w", "no manifest")
    _enable(codex_home, "nomani@mk")
    assert codex_plugin_folders(_env(tmp_path, codex_home)) == []


def _kit(codex_home: Path, plugin_id: str, manifest: dict[str, Any] | None, folders: tuple[str, ...]) -> None:
    name, _, market = plugin_id.partition("@")
    root = codex_home / "plugins/cache" / market / name / "1.0.0"
    if manifest is not None:
        write(root / ".codex-plugin/plugin.json", json.dumps(manifest))
    for folder in folders:
        write_skill(root / folder / f"{name}-{folder}", f"{name}-{folder}", f"{plugin_id} {folder}")


@pytest.mark.oracle
def test_plugin_roots_are_numbered_and_manifestless_plugins_left_out_as_codex_does(
    tmp_path: Path, codex_oracle: Any
) -> None:
    codex_home = tmp_path / "codex-home"
    _kit(codex_home, "demo@mk", {"name": "demo", "skills": ["./a", "./b"]}, ("a", "b"))
    _kit(codex_home, "demo2@mk", {"name": "demo2"}, ("skills",))
    _kit(codex_home, "zeta@mk", {"name": "alpha"}, ("skills",))
    _kit(codex_home, "nomani@mk", None, ("skills",))
    _enable(codex_home, "demo@mk", "demo2@mk", "zeta@mk", "nomani@mk")
    env = _env(tmp_path, codex_home)
    found = discover_skills(env, _OPTIONS)
    result = codex_oracle(env.cwd, home=env.home, codex_home=codex_home, config=ORACLE_CONFIG)
    skills = [s for s in found.skills if s.scope.value != "system"]
    assert {(s.name, str(s.path)) for s in skills} == codex_listing(result)
    rendered = render_catalog(skills, CharBudget(100_000), roots=[r.path for r in found.roots])
    assert (list(rendered.root_lines), list(rendered.entries)) == split_catalog(result["skills_instructions"])
    assert not any("nomani" in s.name for s in skills)
