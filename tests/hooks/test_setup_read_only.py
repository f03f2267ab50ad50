"""An agent's settings file made read-only (no write permission, as ``chmod a-w`` leaves it) is
left alone by setup and by ``setup --remove``, as config edits leave one: CF117, nothing written;
``--dry-run`` refuses it the same way, and ``--status`` says setup cannot update it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hooks_helpers import codex_project, set_up

from skillshelf.cli.main import cli
from skillshelf.env import Env
from skillshelf.errors import ConfigError
from skillshelf.hooks.setup_model import record_path
from skillshelf.hooks.status import setup_status


def _claude_user(box: Any) -> tuple[Env, Path]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    settings = box.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "dark"}\n', encoding="utf-8")
    return Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home), settings


def _locked(path: Path) -> tuple[int, int, bytes]:
    path.chmod(0o444)
    info = path.stat()
    return info.st_ino, info.st_mtime_ns, path.read_bytes()


def _same(path: Path, before: tuple[int, int, bytes]) -> bool:
    info = path.stat()
    return (info.st_ino, info.st_mtime_ns, path.read_bytes()) == before


def test_setup_refuses_a_read_only_claude_settings_file_and_writes_nothing(isolated_home: Any) -> None:
    env, settings = _claude_user(isolated_home)
    before = _locked(settings)
    with pytest.raises(ConfigError) as raised:
        set_up(env, isolated_home, "claude", "user")
    assert raised.value.code == "CF117" and "chmod u+w" in raised.value.hint
    assert "read-only" in raised.value.message and "nothing was changed" in raised.value.message
    assert _same(settings, before) and not record_path(env.dirs.state).exists()
    settings.chmod(0o644)
    set_up(env, isolated_home, "claude", "user")
    assert "hooks" in json.loads(settings.read_text(encoding="utf-8"))


def test_setup_refuses_a_read_only_codex_config_before_it_writes_the_hooks_file(isolated_home: Any) -> None:
    _, env, config = codex_project(isolated_home)
    before = _locked(config)
    with pytest.raises(ConfigError) as raised:
        set_up(env, isolated_home, "codex", "user")
    assert raised.value.code == "CF117" and str(config) in str(raised.value)
    assert _same(config, before) and not (isolated_home.codex_home / "hooks.json").exists()
    assert not record_path(env.dirs.state).exists()


def test_setup_remove_leaves_a_read_only_settings_file_as_it_is(isolated_home: Any) -> None:
    env, settings = _claude_user(isolated_home)
    set_up(env, isolated_home, "claude", "user")
    before = _locked(settings)
    with pytest.raises(ConfigError) as raised:
        set_up(env, isolated_home, "claude", "user", remove=True)
    assert raised.value.code == "CF117"
    assert _same(settings, before) and "hooks" in json.loads(settings.read_text(encoding="utf-8"))


def test_the_setup_command_says_cf117_and_exits_1_for_a_read_only_settings_file(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, settings = _claude_user(isolated_home)
    before = _locked(settings)
    monkeypatch.chdir(env.cwd)
    result = CliRunner().invoke(cli, ["setup", "claude", "--scope", "user"])
    assert result.exit_code == 1 and getattr(result.exception, "code", None) == "CF117"
    assert _same(settings, before)


@pytest.mark.parametrize("remove", [False, True], ids=["setup", "remove"])
def test_a_dry_run_refuses_a_read_only_settings_file_as_the_real_run_does(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, remove: bool
) -> None:
    env, settings = _claude_user(isolated_home)
    if remove:
        set_up(env, isolated_home, "claude", "user")
    record = record_path(env.dirs.state).read_bytes() if remove else None
    before = _locked(settings)
    monkeypatch.chdir(env.cwd)
    args = ["setup", "claude", "--scope", "user", *(["--remove"] if remove else [])]
    real = CliRunner().invoke(cli, args)
    dry = CliRunner().invoke(cli, [*args, "--dry-run"])
    assert dry.exit_code == real.exit_code == 1
    assert getattr(dry.exception, "code", None) == getattr(real.exception, "code", None) == "CF117"
    assert str(dry.exception) == str(real.exception) and dry.output == real.output
    assert "would" not in dry.output and _same(settings, before)
    assert (record_path(env.dirs.state).read_bytes() if remove else None) == record
    assert remove or not record_path(env.dirs.state).exists()


def test_status_says_setup_cannot_update_a_read_only_settings_file(isolated_home: Any) -> None:
    env, settings = _claude_user(isolated_home)
    set_up(env, isolated_home, "claude", "user")
    _locked(settings)
    rows = setup_status(env, command=["/elsewhere/skillshelf"])
    (row,) = [r for r in rows if (r.agent, r.scope) == ("claude", "user")]
    assert not row.current and any("cannot bring it up to date" in r and "CF117" in r for r in row.reasons)


def test_dry_run_and_setup_refuse_a_settings_file_in_a_read_only_folder(isolated_home: Any) -> None:
    env, settings = _claude_user(isolated_home)
    settings.parent.chmod(0o555)
    try:
        with pytest.raises(ConfigError) as raised:  # the plan, all `--dry-run` makes, is refused
            set_up(env, isolated_home, "claude", "user")
        assert raised.value.code == "CF117" and str(settings.parent) in raised.value.message
        assert "chmod u+w" in raised.value.hint
    finally:
        settings.parent.chmod(0o755)
    assert "hooks" not in json.loads(settings.read_text(encoding="utf-8"))
