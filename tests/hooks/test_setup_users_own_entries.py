"""Entries of the user's that setup meets where its own would go: a hook the user wrote by hand
that runs skillshelf, and a Codex trust table at the key skillshelf's trust needs. Setup leaves
the first alone (adding none beside it) and records the second before it updates it; `--remove`
gives both files back byte for byte. And setup at one scope warns (HK130) when the agent's
other scope runs skillshelf's hooks too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.hooks.agents import hook_command


def _env(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _own_prompt_hook(agent: str) -> str:
    handler = {"type": "command", "command": hook_command(COMMAND, agent, "UserPromptSubmit"), "timeout": 30}  # type: ignore[arg-type]
    return json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}}, separators=(",", ":")) + "\n"


def _handlers(path: Path, event: str) -> list[dict[str, Any]]:
    groups = json.loads(path.read_text(encoding="utf-8"))["hooks"].get(event, [])
    return [h for g in groups for h in g["hooks"]]


def test_setup_leaves_the_users_own_skillshelf_hook_and_remove_gives_the_file_back(
    isolated_home: Any,
) -> None:
    _repo, env = _env(isolated_home)
    settings = isolated_home.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(_own_prompt_hook("claude"), encoding="utf-8")
    before = settings.read_bytes()

    plan = set_up(env, isolated_home, "claude", "user")
    assert [h["timeout"] for h in _handlers(settings, "UserPromptSubmit")] == [30]  # one, the user's
    assert len(_handlers(settings, "Stop")) == 1
    assert any("hook of your own" in note for note in plan.notes)
    assert not set_up(env, isolated_home, "claude", "user").changed

    set_up(env, isolated_home, "claude", "user", remove=True)
    assert settings.read_bytes() == before


def test_remove_keeps_a_skillshelf_hook_the_user_added_after_setup(isolated_home: Any) -> None:
    _repo, env = _env(isolated_home)
    set_up(env, isolated_home, "claude", "user")
    settings = isolated_home.home / ".claude" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    mine = {"type": "command", "command": hook_command(COMMAND, "claude", "Stop"), "timeout": 45}
    data["hooks"]["Stop"].append({"hooks": [mine]})
    settings.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    set_up(env, isolated_home, "claude", "user", remove=True)
    assert json.loads(settings.read_text(encoding="utf-8")) == {"hooks": {"Stop": [{"hooks": [mine]}]}}


def test_remove_gives_back_the_users_trust_table_setup_updated(isolated_home: Any) -> None:
    repo, env = _env(isolated_home)
    isolated_home.codex_home.mkdir()
    config = isolated_home.codex_home / "config.toml"
    key = f"{repo}/.codex/hooks.json:session_start:0:0"
    config.write_text(
        f'[projects."{repo}"]\ntrust_level = "trusted"\n\n# trusted for a hook I took out for now\n'
        f"[hooks.state.\"{key}\"]\ntrusted_hash =  'sha256:aaaa'  # mine\n",
        encoding="utf-8",
    )
    before = config.read_bytes()

    set_up(env, isolated_home, "codex")
    assert "sha256:aaaa" not in config.read_text(encoding="utf-8")  # Codex needs our hash there
    set_up(env, isolated_home, "codex")
    set_up(env, isolated_home, "codex", remove=True)
    assert config.read_bytes() == before
    assert not (repo / ".codex").exists()


def test_codex_setup_warns_when_the_other_scope_runs_skillshelf_too(isolated_home: Any) -> None:
    repo, env = _env(isolated_home)
    assert not set_up(env, isolated_home, "codex").diagnostics

    plan = set_up(env, isolated_home, "codex", "user")
    assert [d.code for d in plan.diagnostics] == ["HK130"]
    assert (
        "skillshelf setup codex --remove" in plan.diagnostics[0].fix and str(repo) in plan.diagnostics[0].fix
    )
    assert any("HK130" in note for note in plan.notes)
    message = plan.diagnostics[0].message  # each call is still answered once (hooks/claims.py)
    assert "call starts skillshelf twice; the second finds the call answered and does nothing" in message
    assert "would answer" not in message
    again = set_up(env, isolated_home, "codex")
    assert "skillshelf setup codex --scope user --remove" in again.diagnostics[0].fix


def test_claude_setup_warns_about_the_other_scope_only_for_another_command(isolated_home: Any) -> None:
    """Claude Code runs an identical hook command of both scopes once."""
    _repo, env = _env(isolated_home)
    set_up(env, isolated_home, "claude", "user")
    assert not set_up(env, isolated_home, "claude").diagnostics

    from skillshelf.hooks.setup import plan_setup

    other = ["/usr/bin/python3", "-m", "skillshelf.cli.main"]
    plan = plan_setup(env, "claude", "project", command=other, state_dir=env.dirs.state)
    assert [d.code for d in plan.diagnostics] == ["HK130"]


def test_codex_keeps_the_users_own_trusted_skillshelf_hook_and_its_trust(isolated_home: Any) -> None:
    from skillshelf.hooks.agents import HookSpec
    from skillshelf.hooks.codex import trust_hash

    _repo, env = _env(isolated_home)
    isolated_home.codex_home.mkdir()
    hooks, config = isolated_home.codex_home / "hooks.json", isolated_home.codex_home / "config.toml"
    hooks.write_text(_own_prompt_hook("codex"), encoding="utf-8")
    mine = HookSpec(
        event="UserPromptSubmit", command=hook_command(COMMAND, "codex", "UserPromptSubmit"), timeout=30
    )
    key = f"{hooks}:user_prompt_submit:0:0"
    config.write_text(
        f'model = "x"\n\n[hooks.state."{key}"]\ntrusted_hash = "{trust_hash(mine)}"\n', encoding="utf-8"
    )
    before = hooks.read_bytes(), config.read_bytes()

    plan = set_up(env, isolated_home, "codex", "user")
    assert [h["timeout"] for h in _handlers(hooks, "UserPromptSubmit")] == [30]
    assert any("hook of your own" in n and "trust it in" not in n for n in plan.notes)  # it is trusted
    set_up(env, isolated_home, "codex", "user", remove=True)
    assert (hooks.read_bytes(), config.read_bytes()) == before
