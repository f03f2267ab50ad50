"""`skillshelf setup --status` agrees with setup and `--remove`: a hook running skillshelf that
setup leaves as the user's (one of their own, or setup's with a timeout they changed) is shown as
theirs and never makes the state out of date; out of date means setup again would change
something, and says what."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hooks_helpers import COMMAND, set_up

from skillshelf.cli.main import cli
from skillshelf.env import Env
from skillshelf.hooks.setup import apply_setup, plan_setup
from skillshelf.hooks.status import HookStatus, setup_status

STOP = " ".join([*COMMAND, "hook", "Stop", "--agent", "claude"])


def _project(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _claude_project(env: Env, command: list[str] = COMMAND) -> HookStatus:
    return next(r for r in setup_status(env, command=command) if (r.agent, r.scope) == ("claude", "project"))


def _own_stop_hook(repo: Path, timeout: int = 20) -> Path:
    """The user's own Stop hook running skillshelf, written before any setup."""
    settings = repo / ".claude" / "settings.local.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    group = {"hooks": [{"type": "command", "command": STOP, "timeout": timeout}]}
    settings.write_text(json.dumps({"hooks": {"Stop": [group]}}) + "\n", encoding="utf-8")
    return settings


def test_a_hook_of_the_users_own_that_setup_leaves_keeps_the_state_current(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    settings = _own_stop_hook(repo)
    set_up(env, isolated_home, "claude")
    for _ in range(2):
        row = _claude_project(env)
        assert row.current and row.runs and row.users_events == ("Stop",)
        assert len(row.events) == 5
        (reason,) = [r for r in row.reasons if "Stop" in r]
        assert "timeout of 20 s, not the 10 s setup writes" in reason and "leaves it" in reason
        assert not set_up(env, isolated_home, "claude").changed
    assert "Stop" in json.loads(settings.read_text(encoding="utf-8"))["hooks"]


def test_after_remove_the_users_own_hook_is_shown_as_theirs_and_remove_says_it_stays(
    isolated_home: Any,
) -> None:
    repo, env = _project(isolated_home)
    _own_stop_hook(repo)
    set_up(env, isolated_home, "claude")
    plan = set_up(env, isolated_home, "claude", remove=True)
    assert any("still runs skillshelf for Stop with a hook of your own" in n for n in plan.notes)
    row = _claude_project(env)
    assert (row.events, row.users_events, row.current) == (("Stop",), ("Stop",), True)
    again = set_up(env, isolated_home, "claude", remove=True)
    assert not again.changed and any("`--remove` leaves" in n for n in again.notes)


def test_a_timeout_changed_on_setups_hook_is_reported_with_what_setup_does(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    set_up(env, isolated_home, "claude")
    settings = repo / ".claude" / "settings.local.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = 30
    settings.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    row = _claude_project(env)
    assert row.current and row.users_events == ("UserPromptSubmit",)
    assert any(
        "the UserPromptSubmit hook runs skillshelf with a timeout of 30 s, not the 10 s setup writes" in r
        for r in row.reasons
    )
    assert not set_up(env, isolated_home, "claude").changed
    set_up(env, isolated_home, "claude", remove=True)
    assert list(json.loads(settings.read_text(encoding="utf-8"))["hooks"]) == ["UserPromptSubmit"]


def test_out_of_date_means_setup_again_would_change_something_and_says_what(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    set_up(env, isolated_home, "claude")
    newer = ["/elsewhere/bin/skillshelf"]
    row = _claude_project(env, newer)
    assert not row.current and row.users_events == ()
    assert f"setup again would update: hooks in {repo / '.claude' / 'settings.local.json'}" in row.reasons
    apply_setup(
        plan_setup(env, "claude", "project", command=newer, state_dir=env.dirs.state),
        state_dir=env.dirs.state,
    )
    assert _claude_project(env, newer).current


def test_the_status_command_marks_the_users_own_hooks_and_does_not_ask_for_setup_again(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = _project(isolated_home)
    monkeypatch.chdir(repo)
    from skillshelf.hooks.agents import skillshelf_command

    command = " ".join([*skillshelf_command(Env.from_os()), "hook", "Stop", "--agent", "claude"])
    settings = _own_stop_hook(repo)
    settings.write_text(settings.read_text(encoding="utf-8").replace(STOP, command), encoding="utf-8")
    assert CliRunner().invoke(cli, ["setup", "claude"]).exit_code == 0
    out = CliRunner().invoke(cli, ["setup", "--status"]).output
    line = next(x for x in out.splitlines() if x.startswith("Claude Code (project)"))
    assert "Stop (your own)" in line and "out of date" not in line
