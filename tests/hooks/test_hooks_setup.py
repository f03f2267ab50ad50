"""`skillshelf setup codex|claude`: what it writes, that it is idempotent, that `--remove` gives
every file back byte for byte, and what `--status` reports."""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hooks_helpers import COMMAND
from hooks_helpers import set_up as _setup

from skillshelf.cli.main import cli
from skillshelf.env import Env
from skillshelf.hooks.codex import trust_hash, trust_key
from skillshelf.hooks.jsonfile import our_hooks
from skillshelf.hooks.setup import plan_setup
from skillshelf.hooks.status import setup_status


def _project(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _agents_own(path: Path) -> bool:
    """Not git's, not skillshelf's own folders: what belongs to the agents and the user."""
    return ".git" not in path.parts and "skillshelf" not in path.parts


def _snapshot(*roots: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file() and _agents_own(p)
    }


def _dirs(*roots: Path) -> list[str]:
    return sorted(str(p) for root in roots for p in root.rglob("*") if p.is_dir() and _agents_own(p))


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("mcp", [False, True])
def test_codex_setup_then_remove_leaves_every_file_byte_identical(
    isolated_home: Any, scope: str, mcp: bool
) -> None:
    repo, env = _project(isolated_home)
    codex = isolated_home.codex_home
    codex.mkdir()
    (codex / "config.toml").write_text(
        f'# my settings\nmodel = "gpt-5"\n\n[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    (codex / "hooks.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bell"}]}]}}', encoding="utf-8"
    )
    before, folders = _snapshot(isolated_home.home), _dirs(isolated_home.home)

    plan = _setup(env, isolated_home, "codex", scope, mcp=mcp)
    hooks_file = repo / ".codex" / "hooks.json" if scope == "project" else codex / "hooks.json"
    hooks = our_hooks(hooks_file.read_text(encoding="utf-8"))
    assert sorted(h.event for h in hooks) == [
        "PostToolUse",
        "SessionEnd",
        "SessionStart",
        "Stop",
        "UserPromptSubmit",
    ]
    stop = next(h for h in hooks if h.event == "Stop")
    assert stop.group == (
        1 if scope == "user" else 0
    )  # after the user's own Stop group: Codex's key counts it
    state = tomllib.loads((codex / "config.toml").read_text(encoding="utf-8"))["hooks"]["state"]
    assert {trust_key(hooks_file, h): {"trusted_hash": trust_hash(h)} for h in hooks}.items() <= state.items()
    mcp_file = repo / ".codex" / "config.toml" if scope == "project" else codex / "config.toml"
    servers = (
        tomllib.loads(mcp_file.read_text(encoding="utf-8")).get("mcp_servers", {})
        if mcp_file.exists()
        else {}
    )
    assert (servers.get("skillshelf") == {"command": COMMAND[0], "args": ["serve"]}) is mcp
    assert "took out" not in str(plan.to_dict())

    again = plan_setup(env, "codex", scope, command=COMMAND, state_dir=env.dirs.state, mcp=mcp)  # type: ignore[arg-type]
    assert again.changed == ()

    _setup(env, isolated_home, "codex", scope, remove=True)
    assert _snapshot(isolated_home.home) == before
    assert _dirs(isolated_home.home) == folders
    assert not (env.dirs.state / "setup" / "record.json").exists()


def test_codex_setup_run_again_leaves_the_users_tables_after_its_block_byte_for_byte(
    isolated_home: Any,
) -> None:
    repo, env = _project(isolated_home)
    config = isolated_home.codex_home / "config.toml"
    isolated_home.codex_home.mkdir()
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    _setup(env, isolated_home, "codex", "project")
    with config.open("a", encoding="utf-8") as handle:
        handle.write('\n[model_providers.x]\nname = "x"\n')
    again = plan_setup(env, "codex", "project", command=COMMAND, state_dir=env.dirs.state)
    assert again.changed == ()
    _setup(env, isolated_home, "codex", "project", remove=True)
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n\n[model_providers.x]\nname = "x"\n'


def test_codex_setup_reads_a_config_with_a_byte_order_mark_and_keeps_it(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    codex = isolated_home.codex_home
    codex.mkdir()
    original = (
        f'\ufeff# saved by Notepad\r\nmodel = "gpt-5"\r\n[projects."{repo}"]\r\ntrust_level = "trusted"\r\n'
    )
    (codex / "config.toml").write_bytes(original.encode("utf-8"))
    _setup(env, isolated_home, "codex", "user")
    text = (codex / "config.toml").read_bytes().decode("utf-8")
    assert text.startswith("\ufeff# saved by Notepad") and "trusted_hash" in text
    assert tomllib.loads(text.removeprefix("\ufeff"))["model"] == "gpt-5"
    assert _status(env, isolated_home, "codex", "user").runs  # status reads it as Codex does
    _setup(env, isolated_home, "codex", "user", remove=True)
    assert (codex / "config.toml").read_bytes() == original.encode("utf-8")


@pytest.mark.parametrize("scope", ["project", "user"])
def test_claude_setup_then_remove_leaves_every_file_byte_identical(isolated_home: Any, scope: str) -> None:
    repo, env = _project(isolated_home)
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(
        '{\n  "permissions": {\n    "allow": []\n  }\n}', encoding="utf-8"
    )
    state_file = isolated_home.home / ".claude.json"
    state_file.write_text(json.dumps({"numStartups": 3, "projects": {}}, indent=2), encoding="utf-8")
    state_file.chmod(0o600)
    before, folders = _snapshot(isolated_home.home), _dirs(isolated_home.home)

    _setup(env, isolated_home, "claude", scope, mcp=True)
    settings = (
        repo / ".claude" / "settings.local.json"
        if scope == "project"
        else isolated_home.home / ".claude" / "settings.json"
    )
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert sorted(data["hooks"]) == ["PostToolUse", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"]
    mcp_file = repo / ".mcp.json" if scope == "project" else state_file
    assert json.loads(mcp_file.read_text(encoding="utf-8"))["mcpServers"]["skillshelf"]["args"] == ["serve"]
    assert state_file.stat().st_mode & 0o777 == 0o600

    _setup(env, isolated_home, "claude", scope, remove=True)
    assert _snapshot(isolated_home.home) == before
    assert _dirs(isolated_home.home) == folders


def test_remove_keeps_what_the_user_added_to_a_file_setup_created(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    _setup(env, isolated_home, "claude")
    settings = repo / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["permissions"] = {"allow": ["Bash(make:*)"]}
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    _setup(env, isolated_home, "claude", remove=True)
    assert json.loads(settings.read_text(encoding="utf-8")) == {"permissions": {"allow": ["Bash(make:*)"]}}


def test_dry_run_writes_nothing_and_shows_the_diff(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = _project(isolated_home)
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(cli, ["setup", "claude", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "+++ " + str(repo / ".claude" / "settings.local.json") in result.output
    assert '"UserPromptSubmit"' in result.output and "would set up" in result.output
    assert not (repo / ".claude").exists()
    again = CliRunner().invoke(cli, ["setup", "claude", "--json"])
    assert json.loads(again.output)["changes"][0]["action"] == "create"
    assert "already set up" in CliRunner().invoke(cli, ["setup", "claude"]).output


def test_a_broken_settings_file_is_an_error_and_is_left_alone(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = _project(isolated_home)
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text("{oops", encoding="utf-8")
    (repo / ".claude" / "settings.json").write_text("{also broken", encoding="utf-8")
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(cli, ["setup", "claude"])
    assert result.exit_code == 1 and isinstance(result.exception, Exception)
    assert getattr(result.exception, "code", None) == "HK101"
    assert (repo / ".claude" / "settings.local.json").read_text(encoding="utf-8") == "{oops"
    (repo / ".claude" / "settings.local.json").unlink()
    assert CliRunner().invoke(cli, ["setup", "claude"]).exit_code == 0  # the shared file is not ours
    assert (repo / ".claude" / "settings.json").read_text(encoding="utf-8") == "{also broken"


def test_status_says_where_skillshelf_is_set_up_and_whether_codex_will_run_it(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    _setup(env, isolated_home, "codex")
    _setup(env, isolated_home, "claude", "user")
    rows = {(r.agent, r.scope): r for r in setup_status(env, command=COMMAND)}
    codex = rows["codex", "project"]
    assert codex.events and codex.current and not codex.runs
    assert any("does not trust" in r for r in codex.reasons)  # the project itself is not trusted yet
    assert rows["claude", "user"].runs and not rows["claude", "project"].installed
    assert not rows["codex", "user"].installed

    config = isolated_home.codex_home / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + f'\n[projects."{repo}"]\ntrust_level = "trusted"\n',
        encoding="utf-8",
    )
    assert _status(env, isolated_home, "codex", "project").runs
    other = ["/elsewhere/skillshelf"]
    assert not setup_status(env, command=other)[0].current

    hooks_file = repo / ".codex" / "hooks.json"
    hooks_file.write_text(
        hooks_file.read_text(encoding="utf-8").replace('"timeout": 10', '"timeout": 11', 1), encoding="utf-8"
    )
    changed = _status(env, isolated_home, "codex", "project")
    assert changed.runs and changed.not_running == ("SessionStart",)  # the other hooks run
    assert any("untrusted hooks of your own: SessionStart" in r for r in changed.reasons)
    assert changed.users_events == ("SessionStart",)  # a timeout edited: setup counts the hook the user's


def _status(env: Env, box: Any, agent: str, scope: str) -> Any:
    rows = setup_status(env, command=COMMAND)
    return next(r for r in rows if (r.agent, r.scope) == (agent, scope))


def test_status_names_the_claude_settings_that_turn_hooks_off(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    _setup(env, isolated_home, "claude")
    managed = isolated_home.home / "managed"
    managed.mkdir()
    env = dataclasses.replace(env, claude_managed_dir=managed)
    (repo / ".claude" / "settings.local.json").write_text('{"disableAllHooks": true}', encoding="utf-8")
    row = setup_status(env, command=COMMAND)[2]
    assert not row.runs and row.reasons == ("disableAllHooks is set in the local settings",)
    (managed / "managed-settings.json").write_text('{"allowManagedHooksOnly": true}', encoding="utf-8")
    (repo / ".claude" / "settings.local.json").write_text('{"disableAllHooks": false}', encoding="utf-8")
    row = setup_status(env, command=COMMAND)[2]
    assert not row.runs and "allows managed hooks only" in row.reasons[0]


def test_setup_status_command_prints_both_agents(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = _project(isolated_home)
    monkeypatch.chdir(repo)
    assert CliRunner().invoke(cli, ["setup", "codex"]).exit_code == 0
    result = CliRunner().invoke(cli, ["setup", "--status"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("Codex (project): hooks SessionStart") and "does NOT run" in lines[0]
    assert any(line.startswith("Claude Code (user): not set up") for line in lines)
    assert lines[-4].startswith("hook server: off")  # isolated_home turns it off
    assert lines[-3].startswith("logs: ") and lines[-3].endswith("jobs.log (background jobs)")
    assert lines[-2:] == ["  last hook problem: none", "  last background-job error: none"]
    data = json.loads(CliRunner().invoke(cli, ["setup", "--status", "--json"]).output)
    assert [(r["agent"], r["scope"]) for r in data["status"]] == [
        ("codex", "project"),
        ("codex", "user"),
        ("claude", "project"),
        ("claude", "user"),
    ]
    assert os.environ["HOME"] == str(isolated_home.home)


def test_setup_status_shows_the_newest_problem_of_each_hook_log(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env = _project(isolated_home)
    monkeypatch.chdir(repo)
    hooks = env.dirs.state / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "hooks.log").write_text(
        "2026-12-01T10:00:00Z claude UserPromptSubmit error 3ms SE001: old\n"
        "2026-12-01T10:01:00Z claude UserPromptSubmit timeout 5001ms over 5 s\n"
        "2026-12-01T10:02:00Z claude UserPromptSubmit ok 40ms 812 bytes\n",
        encoding="utf-8",
    )
    (hooks / "jobs.log").write_text(
        "Traceback (most recent call last):\nOSError: \x1b]0;x\n\nhook server 7 listening at /s\n",
        encoding="utf-8",
    )
    lines = CliRunner().invoke(cli, ["setup", "--status"]).output.splitlines()
    assert lines[-2:] == [
        "  last hook problem: 2026-12-01T10:01:00Z claude UserPromptSubmit timeout 5001ms over 5 s",
        "  last background-job error: OSError: \\x1b]0;x",
    ]
    logs = json.loads(CliRunner().invoke(cli, ["setup", "--status", "--json"]).output)["logs"]
    assert logs["last_hook_problem"].endswith("over 5 s") and logs["last_job_error"] == "OSError: \x1b]0;x"


def test_a_settings_file_linked_from_dotfiles_is_edited_where_the_link_points(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    dotfiles = isolated_home.home / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}\n', encoding="utf-8")
    link = isolated_home.home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    _setup(env, isolated_home, "claude", "user")
    assert link.is_symlink() and "UserPromptSubmit" in dotfiles.read_text(encoding="utf-8")
    _setup(env, isolated_home, "claude", "user", remove=True)
    assert link.is_symlink() and dotfiles.read_text(encoding="utf-8") == '{"model": "opus"}\n'


def test_hooks_an_earlier_setup_put_in_the_shared_settings_move_to_the_personal_file(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from skillshelf.hooks import agents, setup

    repo, env = _project(isolated_home)
    (repo / ".claude").mkdir()
    shared = repo / ".claude" / "settings.json"
    shared.write_text('{\n  "permissions": {\n    "allow": []\n  }\n}', encoding="utf-8")
    before, folders = _snapshot(isolated_home.home), _dirs(isolated_home.home)

    def earlier_layout(agent: Any, scope: Any, env: Env) -> Any:
        files = agents.agent_files(agent, scope, env)
        return dataclasses.replace(files, hooks=shared, former_hooks=())

    with monkeypatch.context() as patch:
        patch.setattr(setup, "agent_files", earlier_layout)
        _setup(env, isolated_home, "claude")
    assert "hooks" in json.loads(shared.read_text(encoding="utf-8"))
    row = setup_status(env, command=COMMAND)[2]
    assert not row.current and any("run `skillshelf setup claude` again" in r for r in row.reasons)

    plan = _setup(env, isolated_home, "claude")
    assert {c.path.name for c in plan.changed} == {"settings.json", "settings.local.json"}
    assert shared.read_text(encoding="utf-8") == before[str(shared)].decode()
    personal = json.loads((repo / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    assert sorted(personal["hooks"]) == [
        "PostToolUse",
        "SessionEnd",
        "SessionStart",
        "Stop",
        "UserPromptSubmit",
    ]
    assert setup_status(env, command=COMMAND)[2].current

    _setup(env, isolated_home, "claude", remove=True)
    assert _snapshot(isolated_home.home) == before
    assert _dirs(isolated_home.home) == folders


@pytest.mark.parametrize("agent", ["codex", "claude"])
def test_a_project_mcp_entry_comes_with_a_note_that_it_names_this_machines_skillshelf(
    isolated_home: Any, agent: str
) -> None:
    _, env = _project(isolated_home)
    project = plan_setup(env, agent, "project", command=COMMAND, state_dir=env.dirs.state, mcp=True)  # type: ignore[arg-type]
    assert any("--scope user" in n for n in project.notes)
    user = plan_setup(env, agent, "user", command=COMMAND, state_dir=env.dirs.state, mcp=True)  # type: ignore[arg-type]
    hooks_only = plan_setup(env, agent, "project", command=COMMAND, state_dir=env.dirs.state)  # type: ignore[arg-type]
    assert not any("--scope user" in n for n in (*user.notes, *hooks_only.notes))


def test_skillshelf_hooks_a_team_committed_to_the_shared_settings_are_left_there(isolated_home: Any) -> None:
    from skillshelf.hooks.agents import hook_specs
    from skillshelf.hooks.jsonfile import add_hooks

    repo, env = _project(isolated_home)
    (repo / ".claude").mkdir()
    shared = repo / ".claude" / "settings.json"
    team, _ = add_hooks("{}\n", hook_specs("claude", ["skillshelf"]), str(shared))  # on everyone's PATH
    shared.write_text(team, encoding="utf-8")
    plan = _setup(env, isolated_home, "claude")
    assert [c.path.name for c in plan.changed] == ["settings.local.json"]
    assert shared.read_text(encoding="utf-8") == team
    row = setup_status(env, command=COMMAND)[2]
    assert row.current and not any("again to move them" in r for r in row.reasons)
