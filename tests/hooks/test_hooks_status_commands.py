"""`skillshelf setup --status`: hooks whose command the agent's shell cannot start (the program
gone, not executable, not on PATH) do not run, and the status says why; errors of skillshelf's
own config, which the hooks meet on every call without logging them, are named."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND, make_project, write_config

from skillshelf.env import Env
from skillshelf.hooks.setup import apply_setup, plan_setup
from skillshelf.hooks.status import HookStatus, config_problems, missing_commands, setup_status
from testkit import run_cli


def _set_up_with(env: Env, command: list[str]) -> HookStatus:
    plan = plan_setup(env, "claude", "project", command=command, state_dir=env.dirs.state)
    apply_setup(plan, state_dir=env.dirs.state)
    return _claude_project(env, command)


def _claude_project(env: Env, command: list[str]) -> HookStatus:
    (row,) = [r for r in setup_status(env, command=command) if (r.agent, r.scope) == ("claude", "project")]
    return row


def test_hooks_whose_program_was_deleted_do_not_run(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    link = isolated_home.home / "bin" / "skillshelf"
    link.parent.mkdir()
    link.symlink_to(COMMAND[0])
    assert _set_up_with(env, [str(link)]).runs
    link.unlink()
    row = _claude_project(env, [str(link)])
    assert row.events and not row.runs
    assert any(f"the hook command {link} does not exist (exit 127)" in r for r in row.reasons)


def test_hooks_whose_program_is_not_executable_do_not_run(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    program = isolated_home.home / "skillshelf"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    row = _set_up_with(env, [str(program)])
    assert not row.runs and any("is not an executable file (exit 126)" in r for r in row.reasons)


def test_a_bare_command_name_is_looked_up_on_path(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    found = isolated_home.home / "bin"
    found.mkdir()
    (found / "skillshelf").symlink_to(COMMAND[0])
    on_path = dataclasses.replace(env, environ={**env.environ, "PATH": str(found)})
    assert _set_up_with(on_path, ["skillshelf"]).runs
    elsewhere = dataclasses.replace(env, environ={**env.environ, "PATH": str(isolated_home.home)})
    row = _claude_project(elsewhere, ["skillshelf"])
    assert not row.runs and any("'skillshelf' is not found on PATH (exit 127)" in r for r in row.reasons)


def test_assignments_are_skipped_and_a_line_the_shell_starts_itself_says_nothing(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    gone = str(isolated_home.home / "gone" / "skillshelf")
    assert missing_commands(env, [f"SKILLSHELF_HOOK_DEADLINE=3 {gone} hook Stop"]) == [
        f"the hook command {gone} does not exist (exit 127)"
    ]
    assert (
        missing_commands(env, [f"exec {gone} hook Stop", "'unclosed", f"FOO=1 {COMMAND[0]} hook Stop"]) == []
    )


def test_a_user_config_that_is_not_toml_is_a_config_problem_of_the_hooks(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    assert config_problems(env) == ()
    write_config(env, "x = [\n")
    (problem,) = config_problems(env)
    assert problem.code == "CF100" and problem.path == env.dirs.config / "config.toml"


def test_the_status_command_names_the_config_problem(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = make_project(isolated_home)
    write_config(env, "x = [\n")
    monkeypatch.chdir(env.cwd)
    code, out, _ = run_cli(["setup", "--status"], capsys)
    config = Path(env.dirs.config / "config.toml")
    assert code == 0 and f"  {config}: error CF100: TOML syntax error" in out
    code, out, _ = run_cli(["setup", "--status", "--json"], capsys)
    assert [p["code"] for p in json.loads(out)["config_problems"]] == ["CF100"]


def test_a_command_starting_with_tilde_or_a_variable_is_expanded_as_the_shell_does(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    bin_dir = isolated_home.home / "bin"
    bin_dir.mkdir()
    (bin_dir / "skillshelf").symlink_to(COMMAND[0])
    lines = [
        "~/bin/skillshelf hook UserPromptSubmit --agent claude",
        '"$HOME"/bin/skillshelf hook Stop --agent claude',
        "${HOME}/bin/skillshelf hook Stop --agent claude",
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/skillshelf hook Stop',  # the agent sets it: unknown here
        "~someone/bin/skillshelf hook Stop",
    ]
    home = dataclasses.replace(env, environ={**env.environ, "HOME": str(isolated_home.home)})
    assert missing_commands(home, lines) == []
    (bin_dir / "skillshelf").unlink()
    assert missing_commands(home, lines[:1]) == [
        f"the hook command {isolated_home.home}/bin/skillshelf does not exist (exit 127)"
    ]


def test_a_scope_with_one_hook_whose_program_is_gone_runs_the_others_and_names_it(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = make_project(isolated_home)
    _set_up_with(env, COMMAND)
    settings = env.cwd / ".claude" / "settings.local.json"
    text = settings.read_text(encoding="utf-8")
    quoted = f"'$HOME'/{Path(COMMAND[0]).name}"  # single quotes: the folder named $HOME, not the home
    settings.write_text(
        text.replace(f"{COMMAND[0]} hook SessionEnd", f"{quoted} hook SessionEnd"), encoding="utf-8"
    )
    row = _claude_project(env, COMMAND)
    assert row.runs and row.not_running == ("SessionEnd",) and len(row.events) > 1
    assert any("the hook command $HOME/skillshelf does not exist (exit 127)" in r for r in row.reasons)
    monkeypatch.chdir(env.cwd)
    code, out, _ = run_cli(["setup", "--status"], capsys)
    assert code == 0 and "; runs, but SessionEnd does NOT\n" in out
    settings.write_text(text.replace(COMMAND[0], "/gone/skillshelf"), encoding="utf-8")
    assert _claude_project(env, COMMAND).verdict == "does NOT run"
