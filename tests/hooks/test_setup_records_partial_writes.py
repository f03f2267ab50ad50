"""A setup whose writing fails partway is all or nothing: the files it wrote before the failure
get their former bytes back (a file it created is deleted, with its folder), the record is left
as it was, and the error names the file that could not be written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import set_up

from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.hooks import setup_apply
from skillshelf.hooks.setup_model import record_path


def _codex_project(box: Any) -> tuple[Path, Env, Path]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    env = Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)
    box.codex_home.mkdir()
    config = box.codex_home / "config.toml"
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    return repo, env, config


def _failing_on(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    write = setup_apply._write

    def failing(path: Path, text: str) -> None:
        if path == target:
            raise FileAccessError(f"cannot write {path}: Operation not permitted", hint="", code="SS005")
        write(path, text)

    monkeypatch.setattr(setup_apply, "_write", failing)


def test_a_setup_that_fails_partway_puts_back_the_files_it_wrote(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env, config = _codex_project(isolated_home)
    _failing_on(monkeypatch, config)

    with pytest.raises(FileAccessError) as raised:
        set_up(env, isolated_home, "codex")
    assert raised.value.code == "HK123"
    assert str(config) in raised.value.message and "nothing was changed" in raised.value.message
    assert str(config) in raised.value.hint
    assert not (repo / ".codex").exists()  # hooks.json, written before config.toml, is gone again
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n'
    assert not record_path(env.dirs.state).exists()


def test_a_failed_setup_gives_an_edited_file_its_bytes_back(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env, config = _codex_project(isolated_home)
    hooks = repo / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    mine = '{ "hooks" : {"Stop": [ ]},\r\n  "x": 1 }'
    hooks.write_bytes(mine.encode())
    _failing_on(monkeypatch, config)

    with pytest.raises(FileAccessError):
        set_up(env, isolated_home, "codex")
    assert hooks.read_bytes() == mine.encode()


def test_after_a_failed_setup_a_second_one_and_remove_leave_nothing_behind(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env, config = _codex_project(isolated_home)
    _failing_on(monkeypatch, config)
    with pytest.raises(FileAccessError):
        set_up(env, isolated_home, "codex")
    monkeypatch.undo()

    set_up(env, isolated_home, "codex")
    set_up(env, isolated_home, "codex", remove=True)
    assert not (repo / ".codex").exists()
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n'
