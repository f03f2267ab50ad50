"""`update` and `remove` print what they found wrong once, and the config files they cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome, run_skillshelf


def _unreadable_lock(home: Path) -> Path:
    skill = home / ".agents" / "skills" / "x"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: x\ndescription: The x skill.\n---\nbody\n", encoding="utf-8")
    lock = skill.parent / ".skillshelf-lock.json"
    lock.write_text("{bad", encoding="utf-8")
    return lock


@pytest.mark.parametrize("args", [["update"], ["remove", "x"]])
def test_an_unreadable_lock_is_reported_once_and_the_command_fails(
    args: list[str], isolated_home: IsolatedHome
) -> None:
    lock = _unreadable_lock(isolated_home.home)
    result = run_skillshelf(isolated_home.home, *args)
    assert result.returncode == 1
    assert result.stderr.count("IS401") == 1 and str(lock) in result.stderr


def test_update_names_a_config_file_it_cannot_parse(isolated_home: IsolatedHome) -> None:
    config = isolated_home.write_user_config("[ui\n")
    result = run_skillshelf(isolated_home.home, "update")
    assert result.returncode == 0, result.stderr
    assert "CF100" in result.stderr and str(config) in result.stderr


@pytest.mark.parametrize("args", [["remove", "nosuch"], ["update", "nosuch"]], ids=" ".join)
def test_a_fatal_error_with_json_is_printed_on_stdout_too(
    args: list[str], isolated_home: IsolatedHome
) -> None:
    result = run_skillshelf(isolated_home.home, *args, "--json")
    assert result.returncode == 1, result.stderr
    printed = json.loads(result.stdout)
    assert printed["code"] == "IS404" and "nosuch" in printed["message"] and printed["fix"]
    assert "error IS404" in result.stderr
