"""Setup when its record says nothing of a hooks file (the record deleted, kept under another
state folder, or written by a skillshelf that did not record hooks): a handler exactly as a
setup writes it, by this install's path or an older one's, is setup's own; one that differs
is the user's. And a trusted hook setup keeps never loses its Codex trust entry."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.hooks.agents import hook_command, hook_specs
from skillshelf.hooks.setup_model import record_path


def _env(box: Any) -> Env:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _commands(path: Path) -> list[str]:
    groups = json.loads(path.read_text(encoding="utf-8")).get("hooks", {})
    return [h["command"] for event in groups.values() for g in event for h in g["hooks"]]


def _trusted(config: Path) -> list[str]:
    return re.findall(r"trusted_hash", config.read_text(encoding="utf-8"))


def test_codex_setup_again_without_its_record_keeps_its_hooks_trusted_and_remove_takes_them_out(
    isolated_home: Any,
) -> None:
    env = _env(isolated_home)
    set_up(env, isolated_home, "codex", "user")
    hooks, config = isolated_home.codex_home / "hooks.json", isolated_home.codex_home / "config.toml"
    before = hooks.read_bytes(), config.read_bytes()
    record_path(env.dirs.state).unlink()

    plan = set_up(env, isolated_home, "codex", "user")
    assert not plan.changed
    assert not any("hook of your own" in n for n in plan.notes)
    assert (hooks.read_bytes(), config.read_bytes()) == before
    assert len(_trusted(config)) == 5

    record_path(env.dirs.state).unlink(missing_ok=True)
    set_up(env, isolated_home, "codex", "user", remove=True)
    assert _commands(hooks) == []
    assert "trusted_hash" not in config.read_text(encoding="utf-8")


def test_claude_hooks_of_an_older_install_without_a_record_are_replaced_as_setups_own(
    isolated_home: Any,
) -> None:
    env = _env(isolated_home)
    settings = isolated_home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = ["/usr/bin/python3", "-m", "skillshelf.cli.main"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for spec in hook_specs("claude", old):
        groups.setdefault(spec.event, []).append(spec.group())
    settings.write_text(json.dumps({"hooks": groups}, indent=2) + "\n", encoding="utf-8")

    plan = set_up(env, isolated_home, "claude", "user")
    assert not any("hook of your own" in n for n in plan.notes)
    assert sorted(_commands(settings)) == sorted(s.command for s in hook_specs("claude", COMMAND))


def test_without_a_record_a_skillshelf_hook_with_another_timeout_stays_the_users(
    isolated_home: Any,
) -> None:
    env = _env(isolated_home)
    settings = isolated_home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": hook_command(COMMAND, "claude", "UserPromptSubmit"), "timeout": 30}
    settings.write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [mine]}]}}) + "\n", encoding="utf-8"
    )
    before = settings.read_bytes()

    plan = set_up(env, isolated_home, "claude", "user")
    assert any("hook of your own" in n for n in plan.notes)
    record_path(env.dirs.state).unlink()
    set_up(env, isolated_home, "claude", "user", remove=True)
    assert json.loads(settings.read_bytes()) == json.loads(before)


def test_codex_setup_never_drops_the_trust_of_a_hook_it_leaves_as_the_users(isolated_home: Any) -> None:
    """A record naming none of the file's handlers: setup keeps them as the user's, and their
    trust entries with them."""
    env = _env(isolated_home)
    set_up(env, isolated_home, "codex", "user")
    hooks, config = isolated_home.codex_home / "hooks.json", isolated_home.codex_home / "config.toml"
    record = record_path(env.dirs.state)
    data = json.loads(record.read_text(encoding="utf-8"))
    data[str(hooks)]["hooks"] = []
    record.write_text(json.dumps(data), encoding="utf-8")
    before = hooks.read_bytes()

    plan = set_up(env, isolated_home, "codex", "user")
    assert any("hook of your own" in n for n in plan.notes)
    assert hooks.read_bytes() == before
    assert len(_trusted(config)) == 5
