"""`skillshelf setup --status` names the file that holds skillshelf's hooks: a Codex layer whose
only skillshelf hook is written inline in its ``config.toml`` (``[[hooks.EVENT]]``, which Codex
0.171.0 runs beside ``hooks.json``'s) is reported in ``config.toml``, not in the ``hooks.json``
that holds nothing; a layer with hooks in both names both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.hooks.agents import hook_command
from skillshelf.hooks.status import HookStatus, setup_status
from testkit import run_cli


def _inline(command: str) -> str:
    return (
        '[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
        f"command = {json.dumps(command)}\ntimeout = 10\n"
    )


def _codex_home_with_inline_hook(box: Any, command: str) -> tuple[Env, Path]:
    """A trusted repository and a CODEX_HOME whose config.toml holds only the user's inline hook
    (and the project's trust); no hooks.json anywhere."""
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    box.codex_home.mkdir()
    config = box.codex_home / "config.toml"
    config.write_text(_inline(command) + f'[projects."{repo}"]\ntrust_level = "trusted"\n', "utf-8")
    return Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home), config


def _codex_user(env: Env) -> HookStatus:
    (row,) = [r for r in setup_status(env, command=COMMAND) if (r.agent, r.scope) == ("codex", "user")]
    return row


def test_status_names_config_toml_for_a_codex_layer_whose_only_hook_is_inline(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env, config = _codex_home_with_inline_hook(
        isolated_home, hook_command(COMMAND, "codex", "UserPromptSubmit")
    )
    assert not (isolated_home.codex_home / "hooks.json").exists()
    row = _codex_user(env)
    assert row.events == ("UserPromptSubmit",)
    assert (row.hooks_file, row.hooks_files) == (config, (config,))
    assert row.to_dict()["hooks_files"] == [str(config)]

    monkeypatch.chdir(env.cwd)
    code, out, _ = run_cli(["setup", "--status"], capsys)
    line = next(x for x in out.splitlines() if x.startswith("Codex (user)"))
    assert code == 0 and f"in {config};" in line and "hooks.json" not in line


def test_status_names_both_files_when_hooks_json_and_config_toml_hold_hooks(isolated_home: Any) -> None:
    env, config = _codex_home_with_inline_hook(
        isolated_home, hook_command(COMMAND, "codex", "UserPromptSubmit")
    )
    set_up(env, isolated_home, "codex", "user")  # the other events go to hooks.json
    row = _codex_user(env)
    hooks_json = isolated_home.codex_home / "hooks.json"
    assert "SessionStart" in row.events and "UserPromptSubmit" in row.users_events
    assert (row.hooks_file, row.hooks_files) == (hooks_json, (hooks_json, config))


def test_status_tells_to_fix_an_inline_hooks_missing_program_in_config_toml(isolated_home: Any) -> None:
    gone = isolated_home.home / "gone" / "skillshelf"
    env, config = _codex_home_with_inline_hook(
        isolated_home, hook_command([str(gone)], "codex", "UserPromptSubmit")
    )
    row = _codex_user(env)
    (reason,) = [r for r in row.reasons if str(gone) in r]
    assert reason.endswith(f"your own hooks that start it fail; fix their command in {config}")


def test_status_of_a_layer_without_hooks_names_where_setup_writes_them(isolated_home: Any) -> None:
    env, config = _codex_home_with_inline_hook(isolated_home, "echo not skillshelf")
    row = _codex_user(env)
    assert not row.installed
    assert (row.hooks_file, row.hooks_files) == (isolated_home.codex_home / "hooks.json", ())
