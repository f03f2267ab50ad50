"""Agent settings reached through a symlink (a dotfiles repository): setup writes where the link
leads, ``setup --remove`` gives back exactly what was there (the link kept, a file setup made at
its target deleted), and a link to a folder that does not exist is refused up front, by
``--dry-run`` as by the real run, naming the link."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND, set_up

from skillshelf.env import Env
from skillshelf.errors import ConfigError
from skillshelf.hooks.setup import plan_setup


def _env(box: Any) -> Env:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def test_remove_keeps_a_settings_symlink_and_deletes_the_target_file_setup_created(
    isolated_home: Any,
) -> None:
    env = _env(isolated_home)
    dotfiles = isolated_home.home / "dotfiles"
    dotfiles.mkdir()
    link = isolated_home.home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles / "settings.json")

    set_up(env, isolated_home, "claude", "user")
    assert link.is_symlink() and "hooks" in json.loads(
        (dotfiles / "settings.json").read_text(encoding="utf-8")
    )
    set_up(env, isolated_home, "claude", "user", remove=True)
    assert link.is_symlink() and Path(link.readlink()) == dotfiles / "settings.json"
    assert not (dotfiles / "settings.json").exists()


def test_remove_gives_a_symlinked_settings_file_its_text_back_and_keeps_the_link(isolated_home: Any) -> None:
    env = _env(isolated_home)
    target = isolated_home.home / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text('{"theme": "dark"}\n', encoding="utf-8")
    link = isolated_home.home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)

    set_up(env, isolated_home, "claude", "user")
    set_up(env, isolated_home, "claude", "user", remove=True)
    assert link.is_symlink() and target.read_text(encoding="utf-8") == '{"theme": "dark"}\n'


@pytest.mark.parametrize("dry_run", [True, False])
def test_setup_refuses_a_dangling_claude_folder_symlink_naming_the_link(
    isolated_home: Any, dry_run: bool
) -> None:
    env = _env(isolated_home)
    missing = isolated_home.home / "dotfiles" / "claude"
    missing.parent.mkdir()
    (isolated_home.home / ".claude").symlink_to(missing)

    with pytest.raises(ConfigError) as raised:
        if dry_run:
            plan_setup(env, "claude", "user", command=COMMAND, state_dir=env.dirs.state)
        else:
            set_up(env, isolated_home, "claude", "user")
    assert raised.value.code == "HK124"
    assert str(isolated_home.home / ".claude") in str(raised.value) and str(missing) in raised.value.hint
    assert not missing.exists() and (isolated_home.home / ".claude").is_symlink()


def test_remove_takes_out_the_folders_setup_made_at_a_settings_symlinks_far_end(isolated_home: Any) -> None:
    env = _env(isolated_home)
    link = isolated_home.home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(isolated_home.home / "dotfiles" / "claude" / "settings.json")

    set_up(env, isolated_home, "claude", "user")
    assert (isolated_home.home / "dotfiles" / "claude" / "settings.json").is_file()
    set_up(env, isolated_home, "claude", "user", remove=True)
    assert link.is_symlink() and not (isolated_home.home / "dotfiles").exists()
