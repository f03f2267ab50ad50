"""A skillshelf hook the user wrote inline in Codex's ``config.toml`` (``[[hooks.EVENT]]`` then
``[[hooks.EVENT.hooks]]``, a form Codex 0.171.0 runs beside ``hooks.json``'s, its trust keyed by
that file's path): setup treats it as the same hook in ``hooks.json``. It adds none beside it
for that event and says so, `--remove` leaves it, and `setup --status` reports it as the user's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.hooks.agents import hook_command
from skillshelf.hooks.codex import inline_hooks, parse_config
from skillshelf.hooks.jsonfile import our_hooks
from skillshelf.hooks.status import setup_status

PROMPT = hook_command(COMMAND, "codex", "UserPromptSubmit")


def _inline(command: str = PROMPT, timeout: int = 10) -> str:
    return (
        '[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
        f"command = {json.dumps(command)}\ntimeout = {timeout}\n"
    )


def _project(box: Any, scope: str) -> tuple[Env, Path, Path]:
    """A trusted repository; the config.toml of ``scope`` holding the user's inline hook."""
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    box.codex_home.mkdir()
    user = box.codex_home / "config.toml"
    user.write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    layer = repo / ".codex" if scope == "project" else box.codex_home
    layer.mkdir(exist_ok=True)
    config = layer / "config.toml"
    config.write_text(_inline() + (user.read_text(encoding="utf-8") if scope == "user" else ""), "utf-8")
    return Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home), layer / "hooks.json", config


def _events(hooks_file: Path) -> list[str]:
    """The events the hooks file runs skillshelf for."""
    return sorted({h.event for h in our_hooks(hooks_file.read_text(encoding="utf-8"))})


@pytest.mark.parametrize("scope", ["project", "user"])
def test_setup_adds_no_hook_beside_an_inline_one_of_the_users_and_says_so(
    isolated_home: Any, scope: str
) -> None:
    env, hooks_file, config = _project(isolated_home, scope)
    inline = config.read_text(encoding="utf-8")
    plan = set_up(env, isolated_home, "codex", scope)
    assert "UserPromptSubmit" not in _events(hooks_file)
    assert "SessionStart" in _events(hooks_file)
    assert any(str(config) in n and "UserPromptSubmit" in n and "of your own" in n for n in plan.notes)
    assert not set_up(env, isolated_home, "codex", scope).changed
    row = next(r for r in setup_status(env, command=COMMAND) if (r.agent, r.scope) == ("codex", scope))
    assert "UserPromptSubmit" in row.events and row.users_events == ("UserPromptSubmit",)
    assert row.current
    assert any(str(config) in r and "of your own" in r for r in row.reasons)
    assert any("untrusted hooks of your own: UserPromptSubmit" in r for r in row.reasons)

    set_up(env, isolated_home, "codex", scope, remove=True)
    assert inline in config.read_text(encoding="utf-8")


def test_setup_takes_its_own_hook_out_once_the_user_writes_one_inline(isolated_home: Any) -> None:
    env, hooks_file, config = _project(isolated_home, "project")
    config.unlink()
    set_up(env, isolated_home, "codex")
    assert "UserPromptSubmit" in _events(hooks_file)
    config.write_text(_inline(), encoding="utf-8")
    set_up(env, isolated_home, "codex")
    assert "UserPromptSubmit" not in _events(hooks_file)
    trust = (isolated_home.codex_home / "config.toml").read_text(encoding="utf-8")
    assert ":user_prompt_submit:" not in trust


def test_inline_hooks_are_read_in_file_order_with_their_trust_positions() -> None:
    text = (
        "[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
        'type = "command"\ncommand = "echo mine"\n'
        + "[[hooks.UserPromptSubmit.hooks]]\n"
        + f'type = "command"\ncommand = {json.dumps(PROMPT)}\n'
        + '[hooks.state."x"]\ntrusted_hash = "sha256:0"\n'
    )
    (hook,) = inline_hooks(parse_config(text))
    assert (hook.event, hook.group, hook.handler, hook.command, hook.timeout) == (
        "UserPromptSubmit",
        0,
        1,
        PROMPT,
        None,
    )


def test_an_inline_hook_at_the_other_scope_is_hk130(isolated_home: Any) -> None:
    env, _hooks_file, config = _project(isolated_home, "user")
    plan = set_up(env, isolated_home, "codex", "project")
    (found,) = plan.diagnostics
    assert found.code == "HK130" and "UserPromptSubmit" in found.message
