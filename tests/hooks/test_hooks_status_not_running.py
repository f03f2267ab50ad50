"""`setup --status`: ``not_running`` means one thing in every row, the events whose hooks the
agent does not run: all of a set's events when the set does not run at all (whatever the
reason), only the failing ones when the others run."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hooks_helpers import COMMAND, codex_project, set_up

from skillshelf.env import Env
from skillshelf.hooks.setup import apply_setup, plan_setup
from skillshelf.hooks.status import HookStatus, setup_status
from testkit import run_cli


def _row(env: Env, agent: str, scope: str, command: list[str] = COMMAND) -> HookStatus:
    (row,) = [r for r in setup_status(env, command=command) if (r.agent, r.scope) == (agent, scope)]
    return row


def test_a_codex_project_codex_does_not_trust_lists_every_event_as_not_running(isolated_home: Any) -> None:
    _, env, _ = codex_project(isolated_home)
    set_up(env, isolated_home, "codex")
    row = _row(env, "codex", "project")
    assert row.events and not row.runs and any("does not trust" in r for r in row.reasons)
    assert row.not_running == row.events
    assert row.verdict == "does NOT run"


def test_a_claude_set_turned_off_or_with_every_command_gone_lists_every_event(isolated_home: Any) -> None:
    _, env, _ = codex_project(isolated_home)
    link = isolated_home.home / "bin" / "skillshelf"
    link.parent.mkdir()
    link.symlink_to(COMMAND[0])
    plan = plan_setup(env, "claude", "user", command=[str(link)], state_dir=env.dirs.state)
    apply_setup(plan, state_dir=env.dirs.state)
    assert _row(env, "claude", "user", [str(link)]).not_running == ()
    settings = isolated_home.home / ".claude" / "settings.json"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(json.dumps({**json.loads(text), "disableAllHooks": True}), encoding="utf-8")
    off = _row(env, "claude", "user", [str(link)])
    assert off.events and not off.runs and off.not_running == off.events
    settings.write_text(text, encoding="utf-8")
    link.unlink()
    gone = _row(env, "claude", "user", [str(link)])
    assert gone.events and not gone.runs and gone.not_running == gone.events


def test_the_status_json_lists_every_event_of_a_set_that_does_not_run(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, env, _ = codex_project(isolated_home)
    set_up(env, isolated_home, "codex")
    monkeypatch.chdir(repo)
    code, out, _ = run_cli(["setup", "--status", "--json"], capsys)
    codex = next(r for r in json.loads(out)["status"] if (r["agent"], r["scope"]) == ("codex", "project"))
    assert code == 0 and codex["runs"] is False
    assert codex["events"] and codex["not_running"] == codex["events"]
    assert all(r["not_running"] == [] for r in json.loads(out)["status"] if not r["events"])
