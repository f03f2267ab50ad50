"""``remove`` of a name installed in several skills folders of one scope (``--for codex`` and
``--for claude``): the refusal names each folder, and ``--for`` picks the one to remove."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, run_cli, write_skill

from skillshelf.env import Env
from skillshelf.errors import InstallError
from skillshelf.install import install_skill, remove_skill
from testkit import IsolatedHome


def _twice(tmp_path: Path, home: Path) -> tuple[Env, Path, Path]:
    env = make_env(tmp_path, home)
    source = write_skill(tmp_path / "src" / "demo", "demo")
    codex = install_skill(str(source), env=env, target="codex").path
    claude = install_skill(str(source), env=env, target="claude").path
    return env, codex, claude


def test_remove_of_a_name_in_two_folders_of_one_scope_names_both_and_how_to_choose(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, codex, claude = _twice(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        remove_skill("demo", env=env, scope="user")
    assert caught.value.code == "IS406"
    assert str(codex) in caught.value.message and str(claude) in caught.value.message
    assert "project" not in caught.value.message
    assert "--for claude" in caught.value.hint and "--for codex" in caught.value.hint
    assert codex.is_dir() and claude.is_dir()


def test_remove_for_one_agent_takes_away_only_that_folders_copy(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, codex, claude = _twice(tmp_path, isolated_home.home)
    removed = remove_skill("demo", env=env, folder="claude")
    assert removed.path == claude and not claude.exists() and codex.is_dir()
    assert remove_skill("demo", env=env).path == codex and not codex.exists()


def test_the_remove_command_takes_for(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    _, codex, claude = _twice(tmp_path, isolated_home.home)
    refused = run_cli(tmp_path, "remove", "demo")
    assert refused.returncode == 1 and "IS406" in refused.stderr
    assert run_cli(tmp_path, "remove", "demo", "--for", "codex").returncode == 0
    assert not codex.exists() and claude.is_dir()
    missing = run_cli(tmp_path, "remove", "demo", "--for", "all")
    assert missing.returncode == 1 and "IS408" in missing.stderr
