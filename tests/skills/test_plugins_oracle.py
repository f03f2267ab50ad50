"""Differential tests: the skills Codex (0.171.0) and Claude Code (2.1.197) load from installed
plugins, against skillshelf's discovery and Claude Code listing.

The plugin state is written as each CLI's own ``plugin install`` writes it (Claude Code:
``installed_plugins.json``, ``known_marketplaces.json``, ``enabledPlugins``; Codex:
``[plugins."NAME@MARKETPLACE"]`` and ``plugins/cache/MARKETPLACE/NAME/VERSION``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import git_init, split_catalog, write, write_skill
from test_discover_oracle import ORACLE_CONFIG, codex_listing

from skillshelf.env import Env
from skillshelf.skills.catalog import CharBudget, render_catalog
from skillshelf.skills.claude_view import claude_listing
from skillshelf.skills.discover import DiscoveryOptions, discover_skills

pytestmark = pytest.mark.oracle

_ENTRY = re.compile(r"^- (?P<name>[a-z-]+:\S+?)(?P<described>: .*)?$")


def _claude_plugins(home: Path, base: Path, project: Path) -> None:
    plugins = home / ".claude/plugins"
    market = base / "market"
    write(
        market / ".claude-plugin/marketplace.json",
        json.dumps(
            {
                "name": "local-mkt",
                "owner": {"name": "t"},
                "plugins": [
                    {"name": "alpha-kit", "source": "./alpha"},
                    {"name": "beta-kit", "source": "./beta"},
                    {"name": "other-kit", "source": "./beta"},
                ],
            }
        ),
    )
    alpha = market / "alpha"
    write(
        alpha / ".claude-plugin/plugin.json",
        json.dumps({"name": "alpha-kit", "skills": ["./extra/", "./solo"]}),
    )
    write_skill(alpha / "skills/folder-name", "frontmatter-name", "named by its folder")
    write_skill(alpha / "skills/brainstorm", "brainstorm", "brainstorm before coding")
    write(alpha / "skills/no-description/SKILL.md", "---\nname: no-description\n---\nbody\n")
    write_skill(alpha / "extra/extra-one", "extra-one", "from a manifest folder")
    write_skill(alpha / "solo", "solo-by-name", "a manifest folder that is a skill")
    write(alpha / "commands/plan.md", "---\ndescription: plan the work\n---\n")
    write(alpha / "commands/group/deep.md", "---\ndescription: a nested command\n---\n")
    write(alpha / "commands/bare.md", "No frontmatter, so not listed\n")
    write(alpha / "commands/when.md", "---\nwhen_to_use: when asked\n---\nFirst line\n")
    beta = market / "beta"
    write(beta / ".claude-plugin/plugin.json", json.dumps({"name": "beta-kit"}))
    write_skill(beta / "skills/beta-one", "beta-one", "beta's skill")
    in_skills = home / ".claude/skills/delta-kit"
    write(in_skills / ".claude-plugin/plugin.json", json.dumps({"name": "delta-kit"}))
    write_skill(in_skills / "skills/delta-one", "delta-one", "a plugin in the user's skills folder")
    write(in_skills / "commands/delta-cmd.md", "---\ndescription: its command\n---\n")
    in_project = project / ".claude/skills/epsilon-kit"
    write(in_project / ".claude-plugin/plugin.json", json.dumps({"name": "epsilon-kit"}))
    write_skill(in_project / "skills/epsilon-one", "epsilon-one", "a project's skills folder has no plugins")
    cached = plugins / "cache/remote-mkt/gamma-kit/abc123"
    write(cached / ".claude-plugin/plugin.json", json.dumps({"name": "gamma-kit"}))
    write_skill(cached / "skills/gamma-one", "gamma-one", "from the install cache")
    write(
        plugins / "marketplaces/remote-mkt/.claude-plugin/marketplace.json",
        json.dumps(
            {
                "name": "remote-mkt",
                "owner": {"name": "t"},
                "plugins": [{"name": "gamma-kit", "source": "./gamma"}],
            }
        ),
    )
    when = "2026-12-01T00:00:00.000Z"
    write(
        plugins / "known_marketplaces.json",
        json.dumps(
            {
                "local-mkt": {
                    "source": {"source": "directory", "path": str(market)},
                    "installLocation": str(market),
                    "lastUpdated": when,
                },
                "remote-mkt": {
                    "source": {"source": "github", "repo": "example/remote"},
                    "installLocation": str(plugins / "marketplaces/remote-mkt"),
                    "lastUpdated": when,
                },
            }
        ),
    )

    def record(path: Path, scope: str = "user", project_path: Path | None = None) -> list[dict[str, str]]:
        entry = {
            "scope": scope,
            "installPath": str(path),
            "version": "1",
            "installedAt": when,
            "lastUpdated": when,
        }
        return [entry | ({"projectPath": str(project_path)} if project_path else {})]

    write(
        plugins / "installed_plugins.json",
        json.dumps(
            {
                "version": 2,
                "plugins": {
                    "alpha-kit@local-mkt": record(plugins / "cache/local-mkt/alpha-kit/1"),
                    "beta-kit@local-mkt": record(plugins / "cache/local-mkt/beta-kit/1", "project", project),
                    "gamma-kit@remote-mkt": record(cached),
                    "off-kit@remote-mkt": record(cached),
                    "elsewhere-kit@remote-mkt": record(cached, "project", base / "another-project"),
                    "other-kit@local-mkt": record(cached, "project", base / "another-project"),
                },
            }
        ),
    )
    write(
        home / ".claude/settings.json",
        json.dumps(
            {
                "enabledPlugins": {
                    "alpha-kit@local-mkt": True,
                    "beta-kit@local-mkt": True,
                    "gamma-kit@remote-mkt": True,
                    "off-kit@remote-mkt": False,
                    "elsewhere-kit@remote-mkt": True,
                    "other-kit@local-mkt": True,
                }
            }
        ),
    )


def test_claude_code_lists_the_plugin_skills_and_commands_skillshelf_finds(
    tmp_path: Path, claude_oracle: Any
) -> None:
    home, project = tmp_path / "home", git_init(tmp_path / "project")
    _claude_plugins(home, tmp_path, project)
    listing = claude_oracle(project, home=home)["skills_listing"] or ""
    theirs = [m.group("name") for line in listing.splitlines() if (m := _ENTRY.match(line))]

    env = Env.for_test(cwd=project, home=home)
    env = dataclasses.replace(env, environ={**env.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    plan = claude_listing(env, use_cache=False).plan
    commands = {"alpha-kit:plan", "alpha-kit:when", "alpha-kit:group:deep"}
    # commands first, plugin by plugin (each's in the order the file system lists them), then skills
    mine = [name for name in plan.described if ":" in name]
    assert set(theirs[:3]) == commands == set(mine[:3]) and mine[3:] == theirs[3:]
    assert theirs[3] == "delta-kit:delta-cmd" and theirs[-1] == "delta-kit:delta-one"
    assert "alpha-kit:solo-by-name" in theirs and "alpha-kit:group:deep" in theirs
    assert "beta-kit:beta-one" in theirs and "gamma-kit:gamma-one" in theirs
    unlisted = ("off-kit", "elsewhere-kit", "other-kit", "epsilon")
    assert not any(name.startswith(unlisted) or "bare" in name for name in theirs)

    found = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False)).skills
    plugin_skills = {s.name for s in found if s.origin.value == "claude-plugin"}
    listed_skills = set(theirs) - commands - {"delta-kit:delta-cmd"}
    assert plugin_skills == listed_skills | {"alpha-kit:no-description"}


def _codex_plugin(
    codex_home: Path, marketplace: str, name: str, version: str, manifest: dict[str, Any]
) -> Path:
    root = codex_home / "plugins/cache" / marketplace / name / version
    write(root / ".claude-plugin/plugin.json", json.dumps({"name": name, **manifest}))
    return root


def test_codex_loads_the_plugin_skills_skillshelf_finds(tmp_path: Path, codex_oracle: Any) -> None:
    home, codex_home, repo = tmp_path / "home", tmp_path / "codex-home", git_init(tmp_path / "repo")
    listed = _codex_plugin(codex_home, "mkt", "listed-kit", "1.0.0", {"skills": ["./extra/"]})
    write_skill(
        listed / "skills/hidden-by-manifest", "hidden-by-manifest", "the manifest names other folders"
    )
    write_skill(listed / "extra/extra-one", "extra-one", "from the manifest's folder")
    write_skill(
        listed / ".codex-plugin/migrated-command-skills/source-command-plan", "source-command-plan", "plan"
    )
    default = _codex_plugin(codex_home, "mkt", "default-kit", "local", {})
    write_skill(default / "skills/local-one", "local-one", "the local version wins")
    for version in ("9.9.9", "zzz-build"):
        other = _codex_plugin(codex_home, "mkt", "default-kit", version, {})
        write_skill(other / "skills/other-one", "other-one", "never read")
    newest = _codex_plugin(codex_home, "other", "versions-kit", "10.0.0", {})
    write_skill(newest / "skills/newest", "newest", "10.0.0 is newer than 9.1.0")
    write_skill(
        _codex_plugin(codex_home, "other", "versions-kit", "9.1.0", {}) / "skills/old", "old", "older"
    )
    off = _codex_plugin(codex_home, "mkt", "off-kit", "1.0.0", {})
    write_skill(off / "skills/off-one", "off-one", "its plugin is disabled")
    unlisted = _codex_plugin(codex_home, "mkt", "unlisted-kit", "1.0.0", {})
    write_skill(unlisted / "skills/unlisted-one", "unlisted-one", "not in config.toml")
    write(
        codex_home / "config.toml",
        "\n".join(
            [
                '[plugins."listed-kit@mkt"]',
                "enabled = true",
                '[plugins."default-kit@mkt"]',
                '[plugins."versions-kit@other"]',
                "enabled = true",
                '[plugins."off-kit@mkt"]',
                "enabled = false",
                "",
            ]
        ),
    )

    env = dataclasses.replace(
        Env.for_test(cwd=repo, home=home, codex_home=codex_home), admin_skills_dir=Path("/etc/codex/skills")
    )
    found = discover_skills(
        env,
        DiscoveryOptions(
            include_builtin=False, include_claude=False, include_installed=False, use_cache=False
        ),
    )
    ours = {(s.name, str(s.path)) for s in found.skills if s.scope.value != "system"}
    result = codex_oracle(repo, home=home, codex_home=codex_home, config=ORACLE_CONFIG)
    theirs = codex_listing(result)
    assert ours == theirs
    skills = [s for s in found.skills if s.scope.value != "system"]
    rendered = render_catalog(skills, CharBudget(100_000), roots=[r.path for r in found.roots])
    assert (list(rendered.root_lines), list(rendered.entries)) == split_catalog(result["skills_instructions"])
    assert {name for name, _ in theirs} == {
        "listed-kit:extra-one",
        "listed-kit:source-command-plan",
        "default-kit:local-one",
        "versions-kit:newest",
    }


@pytest.mark.parametrize("trusted", [True, False])
def test_a_trusted_projects_codex_config_turns_plugins_on_and_off(
    tmp_path: Path, codex_oracle: Any, trusted: bool
) -> None:
    home, codex_home, repo = tmp_path / "home", tmp_path / "codex-home", git_init(tmp_path / "repo")
    for name in ("user-kit", "project-kit"):
        root = _codex_plugin(codex_home, "mkt", name, "1.0.0", {})
        write_skill(root / f"skills/{name}-one", f"{name}-one", f"a skill of {name}")
    trust = f'[projects."{repo}"]\ntrust_level = "trusted"\n' if trusted else ""
    write(codex_home / "config.toml", f'{trust}[plugins."user-kit@mkt"]\n')
    write(repo / ".codex/config.toml", '[plugins."user-kit@mkt"]\nenabled = false\n')
    write(repo / "sub/.codex/config.toml", '[plugins."project-kit@mkt"]\n')
    cwd = repo / "sub"

    env = dataclasses.replace(
        Env.for_test(cwd=cwd, home=home, codex_home=codex_home), admin_skills_dir=Path("/etc/codex/skills")
    )
    options = DiscoveryOptions(
        include_builtin=False, include_claude=False, include_installed=False, use_cache=False
    )
    ours = {(s.name, str(s.path)) for s in discover_skills(env, options).skills if s.scope.value != "system"}
    theirs = codex_listing(codex_oracle(cwd, home=home, codex_home=codex_home, config=ORACLE_CONFIG))
    assert ours == theirs
    assert {name for name, _ in theirs} == (
        {"project-kit:project-kit-one"} if trusted else {"user-kit:user-kit-one"}
    )


def test_codex_reads_manifest_skill_paths_with_dot_slash_in_path_order(
    tmp_path: Path, codex_oracle: Any
) -> None:
    """Only ``./`` paths count (else the plugin's ``skills/``), and the roots are taken in the
    order of their paths, which decides the ``rN`` aliases of the catalog."""
    home, codex_home, repo = tmp_path / "home", tmp_path / "codex-home", git_init(tmp_path / "repo")
    manifests: dict[str, object] = {
        "ordered-kit": ["./zz", "extra/", "./more", "./aa"],
        "bare-kit": "more",
    }
    for name, skills in manifests.items():
        root = _codex_plugin(codex_home, "mkt", name, "1.0.0", {"skills": skills})
        for folder in ("skills", "more", "extra", "aa", "zz"):
            write_skill(root / folder / f"{name}-{folder}", f"{name}-{folder}", f"in {folder}/")
    write(codex_home / "config.toml", '[plugins."ordered-kit@mkt"]\n[plugins."bare-kit@mkt"]\n')

    env = dataclasses.replace(
        Env.for_test(cwd=repo, home=home, codex_home=codex_home), admin_skills_dir=Path("/etc/codex/skills")
    )
    options = DiscoveryOptions(
        include_builtin=False, include_claude=False, include_installed=False, use_cache=False
    )
    found = discover_skills(env, options)
    result = codex_oracle(repo, home=home, codex_home=codex_home, config=ORACLE_CONFIG)
    assert {(s.name, str(s.path)) for s in found.skills if s.scope.value != "system"} == codex_listing(result)
    skills = [s for s in found.skills if s.scope.value != "system"]
    rendered = render_catalog(skills, CharBudget(100_000), roots=[r.path for r in found.roots])
    assert (list(rendered.root_lines), list(rendered.entries)) == split_catalog(result["skills_instructions"])
    assert {name for name, _ in codex_listing(result)} == {
        "ordered-kit:ordered-kit-aa",
        "ordered-kit:ordered-kit-more",
        "ordered-kit:ordered-kit-zz",
        "bare-kit:bare-kit-skills",
    }
