"""`setup` writes only over the files its plan was made from, one setup at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.errors import ConfigError, FileAccessError
from skillshelf.fileio import folder_lock
from skillshelf.hooks.setup import apply_setup, plan_setup, record_path

COMMAND = ["/opt/venv/bin/skillshelf"]
SETTINGS = '{\n  "permissions": {\n    "allow": []\n  }\n}\n'


def _claude_project(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text(SETTINGS, encoding="utf-8")
    env = Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)
    return repo / ".claude" / "settings.local.json", env


def test_a_settings_file_saved_after_the_plan_is_kept_and_nothing_is_written(isolated_home: Any) -> None:
    settings, env = _claude_project(isolated_home)
    plan = plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state)
    assert plan.changed
    saved_by_the_agent = SETTINGS.replace('"allow": []', '"allow": ["Bash(ls:*)"]')
    settings.write_text(saved_by_the_agent, encoding="utf-8")
    with pytest.raises(FileAccessError) as info:
        apply_setup(plan, state_dir=env.dirs.state)
    assert info.value.code == "HK122" and info.value.hint
    assert settings.read_text(encoding="utf-8") == saved_by_the_agent
    assert not record_path(env.dirs.state).exists()

    again = plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state)
    apply_setup(again, state_dir=env.dirs.state)
    written = json.loads(settings.read_text(encoding="utf-8"))
    assert written["permissions"]["allow"] == ["Bash(ls:*)"] and written["hooks"]


def test_a_setup_lock_held_past_the_wait_is_cf113_and_nothing_is_written(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("skillshelf.config.edit_text.EDIT_WAIT", 0.1)
    settings, env = _claude_project(isolated_home)
    plan = plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state)
    with folder_lock(record_path(env.dirs.state).parent), pytest.raises(ConfigError) as info:
        apply_setup(plan, state_dir=env.dirs.state)
    assert info.value.code == "CF113" and info.value.hint
    assert settings.read_text(encoding="utf-8") == SETTINGS
