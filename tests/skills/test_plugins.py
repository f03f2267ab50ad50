"""Skills from Codex's and Claude Code's installed plugins (checked against the real CLIs in
test_plugins_oracle.py): the rules, and plugin state files that are broken or hostile."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from skill_tree_helpers import git_init, write, write_skill

from skillshelf.env import Env
from skillshelf.skills.claude_commands import claude_commands
from skillshelf.skills.codex_config import read_codex_settings
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from skillshelf.skills.plugins import (
    claude_plugins,
    codex_manifest_skill_folders,
    codex_plugin_folders,
    codex_project_layers,
    codex_trust,
    codex_trust_root,
    manifest_folders,
    newest_version,
    skills_dir_plugins,
)
from skillshelf.skills.validate import validate_paths


def test_codex_reads_the_local_version_else_the_newest() -> None:
    assert newest_version(["1.0.0", "local", "zzz"]) == "local"
    assert newest_version(["9.1.0", "10.0.0", "10.0.0-beta", "1.2"]) == "10.0.0"
    assert newest_version(["10.0.0-beta", "9.9"]) == "10.0.0-beta"
    assert newest_version(["2.0.0", "abc123"]) == "abc123"
    assert newest_version([]) is None


def test_a_manifest_names_folders_inside_its_plugin_only(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    assert manifest_folders(root, None, "skills") == [root / "skills"]
    assert manifest_folders(root, "./extra/", "skills") == [root / "extra"]
    hostile = ["../outside", "/etc", "a/../../b", "", 7, "ok\x00no", "fine"]
    assert manifest_folders(root, hostile, "skills") == [root / "fine"]
    assert manifest_folders(root, {"not": "a list"}, "skills") == [root / "skills"]


def test_codex_reads_manifest_skill_paths_starting_with_dot_slash_sorted_by_path(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    assert codex_manifest_skill_folders(root, ["./zz", "./more/", "./aa", "././more"]) == [
        root / "aa",
        root / "more",
        root / "zz",
    ]
    assert codex_manifest_skill_folders(root, ["./more", "extra/", 7]) == [root / "more"]
    for ignored in ("more", ["extra/"], [], "./", "./a/../b", "/etc", "./a\x00b", None, {"a": 1}):
        assert codex_manifest_skill_folders(root, ignored) == [root / "skills"], ignored


def test_codex_trust_root_is_the_repository_or_a_worktrees_main_checkout(tmp_path: Path) -> None:
    write(tmp_path / "main/.git/HEAD", "ref: refs/heads/main\n")
    write(tmp_path / "main/.git/worktrees/wt/gitdir", f"{tmp_path / 'wt/.git'}\n")
    write(tmp_path / "main/.git/worktrees/wt/commondir", "../..\n")
    write(tmp_path / "wt/.git", f"gitdir: {tmp_path / 'main/.git/worktrees/wt'}\n")
    write(tmp_path / "main/.git/modules/lib/HEAD", "ref: refs/heads/main\n")
    write(tmp_path / "main/lib/.git", "gitdir: ../.git/modules/lib\n")
    for folder in ("main/a", "wt/a", "main/lib/a", "outside"):
        (tmp_path / folder).mkdir(parents=True)
    assert codex_trust_root(tmp_path / "main/a") == tmp_path / "main"
    assert codex_trust_root(tmp_path / "wt/a") == tmp_path / "main"
    assert codex_trust_root(tmp_path / "main/lib/a") is None  # a submodule has no trust root
    assert codex_trust_root(tmp_path / "outside") is None


def _claude_home(tmp_path: Path, installed: object, enabled: object) -> tuple[Env, Path]:
    home, project = tmp_path / "home", git_init(tmp_path / "project")
    plugins = home / ".claude/plugins"
    text = installed if isinstance(installed, str) else json.dumps(installed)
    write(plugins / "installed_plugins.json", text)
    write(home / ".claude/settings.json", json.dumps({"enabledPlugins": enabled}))
    return Env.for_test(cwd=project, home=home), plugins


def _record(path: Path, **extra: str) -> list[dict[str, str]]:
    return [{"scope": "user", "installPath": str(path), **extra}]


@pytest.mark.parametrize(
    "installed",
    ["not json {", "[]", {"plugins": []}, {"plugins": {"kit@m": "nope"}}, {"plugins": {"kit@m": [7, None]}}],
)
def test_a_broken_installed_plugins_file_means_no_plugins(tmp_path: Path, installed: object) -> None:
    env, plugins = _claude_home(tmp_path, installed, {"kit@m": True})
    assert claude_plugins(env, {"kit@m": True}, plugins) == []


def test_only_plugins_enabled_true_installed_here_and_with_a_plain_id_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "kit"
    monkeypatch.chdir(tmp_path)  # a relative installPath would find the plugin from here
    write_skill(folder / "skills/one", "one", "a plugin skill")
    records = {
        "kit@m": _record(folder),
        "off@m": _record(folder),
        "../up@m": _record(folder),
        "kit@../m": _record(folder),
        "gone@m": _record(tmp_path / "missing"),
        "relative@m": [{"scope": "user", "installPath": "kit"}],
        "nul@m": [{"scope": "user", "installPath": f"{folder}\x00x"}],
        "nul-project@m": [{"scope": "project", "projectPath": "/\x00", "installPath": str(folder)}],
        "other@m": [
            {"scope": "project", "projectPath": str(tmp_path / "elsewhere"), "installPath": str(folder)}
        ],
    }
    enabled = dict.fromkeys(records, True) | {"off@m": "true"}
    env, plugins = _claude_home(tmp_path, {"version": 2, "plugins": records}, enabled)
    found = claude_plugins(env, enabled, plugins)
    assert [(p.name, p.root) for p in found] == [("kit", folder)]
    assert found[0].skill_folders == (folder / "skills",)
    assert found[0].command_folders == (folder / "commands",)


def test_a_project_install_counts_in_its_project(tmp_path: Path) -> None:
    folder = tmp_path / "kit"
    write(folder / ".claude-plugin/plugin.json", json.dumps({"name": "renamed", "commands": "./cmds"}))
    env, plugins = _claude_home(tmp_path, {}, {})
    record = [{"scope": "project", "projectPath": str(env.project_root), "installPath": str(folder)}]
    write(plugins / "installed_plugins.json", json.dumps({"plugins": {"kit@m": record}}))
    found = claude_plugins(env, {"kit@m": True}, plugins)
    assert [(p.name, p.command_folders) for p in found] == [("renamed", (folder / "cmds",))]


def test_plugin_skills_are_named_by_plugin_and_a_broken_one_stops_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "kit"
    write_skill(folder / "skills/good", "good", "a plugin skill")
    write(folder / "skills/broken/SKILL.md", "---\nname: [unclosed\ndescription: x\n---\n")
    write_skill(folder / "skills/also-good", "also-good", "another")
    env, _ = _claude_home(tmp_path, {"plugins": {"kit@m": _record(folder)}}, {"kit@m": True})
    found = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    names = sorted(s.name for s in found.skills if s.origin.value == "claude-plugin")
    assert names == ["kit:also-good", "kit:broken", "kit:good"]  # Claude Code too keeps it, YAML ignored
    assert any("broken" in str(d.path) for d in found.diagnostics)


def test_codex_plugins_need_a_table_and_a_cached_version(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    cache = codex_home / "plugins/cache"
    write_skill(cache / "m/kit/1.0.0/skills/one", "one", "a plugin skill")
    write(cache / "m/kit/1.0.0/.codex-plugin/plugin.json", "{}")
    write(
        codex_home / "config.toml",
        '[plugins."kit@m"]\n[plugins."uncached@m"]\n[plugins."../up@m"]\n[plugins."off@m"]\nenabled = false\n'
        '[plugins."plain"]\n',
    )
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home", codex_home=codex_home)
    root = cache / "m/kit/1.0.0"
    assert codex_plugin_folders(env) == [root / ".codex-plugin/migrated-command-skills", root / "skills"]


def test_a_broken_codex_config_means_no_plugins(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    write(codex_home / "config.toml", '[plugins."kit@m"\n')
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "home", codex_home=codex_home)
    assert codex_plugin_folders(env) == []


def test_a_trust_entry_names_the_folders_real_path_letter_for_letter(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(repo)
    for key, trusted in [("repo", True), ("repo/", None), ("repo/sub/..", None), ("link", None)]:
        write(
            tmp_path / key.replace("/", "_") / "config.toml",
            f'[projects."{tmp_path}/{key}"]\ntrust_level = "trusted"\n',
        )
        user = read_codex_settings(tmp_path / key.replace("/", "_"))
        assert codex_trust(user, repo) is trusted, key
        assert codex_trust(user, tmp_path / "link") is trusted, key  # the folder by its link


@pytest.mark.parametrize(
    "table",
    [
        '[projects."/a"]\ntrust_level = "maybe"\n',
        '[projects."/a"]\ntrust_level = "Trusted"\n',
        '[projects."/a"]\ntrust_level = 1\n',
        '[projects]\n"/a" = "trusted"\n',
        "projects = 1\n",
    ],
)
def test_a_projects_table_codex_refuses_to_start_with_is_reported_and_trusts_nothing(
    tmp_path: Path, table: str
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    write(tmp_path / "ch/config.toml", f'[projects."{repo}"]\ntrust_level = "trusted"\n' + table)
    if table.startswith("projects"):
        write(tmp_path / "ch/config.toml", table)
    settings = read_codex_settings(tmp_path / "ch")
    assert codex_trust(settings, repo) is None
    [problem] = settings.diagnostics
    assert (problem.code, problem.field) == ("SK231", "projects")
    assert "refuses to start" in problem.message and problem.fix
    env = Env.for_test(cwd=repo, home=tmp_path / "home", codex_home=tmp_path / "ch")
    assert "SK231" in {d.code for d in discover_skills(env, DiscoveryOptions(use_cache=False)).diagnostics}


def test_a_projects_entry_without_a_trust_level_is_no_problem(tmp_path: Path) -> None:
    write(tmp_path / "ch/config.toml", '[projects."/a"]\nother = 1\n')
    assert read_codex_settings(tmp_path / "ch").diagnostics == ()


def _kit_in_both_agents(tmp_path: Path) -> tuple[Env, Path, Path]:
    """Plugin ``kit`` with skill ``one`` installed in Codex (its cache) and in Claude Code (a live
    folder), the two copies byte for byte the same: ``(env, Codex's copy, Claude Code's)``."""
    codex_home = tmp_path / "home/.codex"
    cached = codex_home / "plugins/cache/m/kit/1.0.0"
    write(codex_home / "config.toml", '[plugins."kit@m"]\n')
    live = tmp_path / "kit"
    for folder in (cached, live):
        write_skill(folder / "skills/one", "one", "the same skill")
        write(folder / ".claude-plugin/plugin.json", json.dumps({"name": "kit"}))
    env, _ = _claude_home(tmp_path, {"plugins": {"kit@m": _record(live)}}, {"kit@m": True})
    return dataclasses.replace(env, codex_home=codex_home), cached, live


def test_a_plugin_installed_in_both_agents_is_listed_once_as_codexs(tmp_path: Path) -> None:
    env, cached, live = _kit_in_both_agents(tmp_path)
    write_skill(live / "skills/changed", "changed", "Claude Code's copy differs")
    write_skill(cached / "skills/changed", "changed", "Codex's copy")
    found = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    assert sorted((s.name, s.origin.value) for s in found.skills) == [
        ("kit:changed", "claude-plugin"),
        ("kit:changed", "codex-plugin"),
        ("kit:one", "codex-plugin"),
    ]
    assert {d.code for d in found.diagnostics} == {"SK220"}  # the copies that differ share a name


def test_a_skill_copied_into_both_agents_folders_is_listed_once_with_a_note(tmp_path: Path) -> None:
    env, _ = _claude_home(tmp_path, {}, {})
    for folder in (env.home / ".agents/skills/tidy", env.home / ".claude/skills/tidy"):
        write_skill(folder, "tidy", "one skill, two copies")
    found = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    assert [(s.name, s.origin.value) for s in found.skills] == [("tidy", "agents-user")]
    (note,) = found.diagnostics
    assert note.code == "SK223" and note.path == env.home / ".claude/skills/tidy/SKILL.md"


def test_a_plugin_folder_in_the_users_skills_is_loaded_without_install(tmp_path: Path) -> None:
    skills = tmp_path / "home/.claude/skills"
    write(skills / "named/.claude-plugin/plugin.json", json.dumps({"name": "renamed", "skills": "./solo"}))
    write_skill(skills / "named/solo", "solo", "a manifest folder that is a skill")
    write(skills / "broken/.claude-plugin/plugin.json", "not json")
    (skills / "not-a-file/.claude-plugin/plugin.json").mkdir(parents=True)
    write_skill(skills / "plain", "plain", "an ordinary skill")
    write(skills / "stray.md", "a file")
    found = skills_dir_plugins(skills)
    assert [(p.name, p.root.name) for p in found] == [("broken", "broken"), ("renamed", "named")]
    assert found[1].skill_folders == (skills / "named/skills", skills / "named/solo/SKILL.md")
    assert skills_dir_plugins(tmp_path / "missing") == []


def test_fifos_in_plugin_state_and_command_folders_are_skipped_without_hanging(tmp_path: Path) -> None:
    env, plugins = _claude_home(tmp_path, {}, {"kit@m": True})
    (plugins / "installed_plugins.json").unlink()
    os.mkfifo(plugins / "installed_plugins.json")
    assert claude_plugins(env, {"kit@m": True}, plugins) == []
    commands = env.project_root / ".claude/commands"
    commands.mkdir(parents=True)
    os.mkfifo(commands / "pipe.md")
    write(commands / "fine.md", "A fine command\n")
    assert [c.name for c in claude_commands(env)] == ["fine"]
    skill = env.project_root / ".agents/skills/odd"
    write_skill(skill, "odd", "a skill beside a FIFO manifest")
    (skill / ".codex-plugin").mkdir()
    os.mkfifo(skill / ".codex-plugin/plugin.json")
    found = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    assert [s.name for s in found.skills] == ["odd"]


def test_validating_every_root_names_plugin_skills_and_lets_copies_in_both_agents_be(tmp_path: Path) -> None:
    env, cached, live = _kit_in_both_agents(tmp_path)
    report = validate_paths([cached / "skills", live / "skills"], profile="codex", env=env)
    assert [check.name for check in report.skills] == ["kit:one", "kit:one"]
    assert not [d for d in report.diagnostics if d.code == "SK362"]
    other = tmp_path / "other-plugin"  # the same copy in a root that is not Claude Code's still clashes
    write(other / ".claude-plugin/plugin.json", json.dumps({"name": "kit"}))
    write(other / "skills/one/SKILL.md", (cached / "skills/one/SKILL.md").read_text(encoding="utf-8"))
    report = validate_paths([cached / "skills", other / "skills"], profile="codex", env=env)
    assert [d.code for d in report.diagnostics if d.code == "SK362"] == ["SK362", "SK362"]


def test_a_trusted_projects_codex_folder_that_is_a_symlink_loop_is_no_layer_and_no_crash(
    tmp_path: Path,
) -> None:
    project = git_init(tmp_path / "project")
    home = tmp_path / "home"
    write(home / ".codex/config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    os.symlink(".codex", project / ".codex")  # Path.resolve() raises RuntimeError on 3.11 and 3.12
    env = Env.for_test(cwd=project, home=home)
    user = read_codex_settings(home / ".codex")
    assert user.trusted_projects == (str(project),)
    # the link is kept as written (its config.toml then reads as a loop, CF101), not a crash
    assert codex_project_layers(env, [project], user) == [project / ".codex"]
