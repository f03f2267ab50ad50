"""A setup whose writing fails partway is all or nothing: the files it wrote before the failure
get their former bytes back (a file it created is deleted, with its folder), the record is left
as it was, and the error names the file that could not be written."""

from __future__ import annotations

from typing import Any

import pytest
from hooks_helpers import codex_project, failing_write_to, set_up

from skillshelf.errors import FileAccessError
from skillshelf.hooks.setup_model import record_path


def test_a_setup_that_fails_partway_puts_back_the_files_it_wrote(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env, config = codex_project(isolated_home)
    failing_write_to(monkeypatch, config)

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
    repo, env, config = codex_project(isolated_home)
    hooks = repo / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    mine = '{ "hooks" : {"Stop": [ ]},\r\n  "x": 1 }'
    hooks.write_bytes(mine.encode())
    failing_write_to(monkeypatch, config)

    with pytest.raises(FileAccessError):
        set_up(env, isolated_home, "codex")
    assert hooks.read_bytes() == mine.encode()


def test_after_a_failed_setup_a_second_one_and_remove_leave_nothing_behind(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env, config = codex_project(isolated_home)
    failing_write_to(monkeypatch, config)
    with pytest.raises(FileAccessError):
        set_up(env, isolated_home, "codex")
    monkeypatch.undo()

    set_up(env, isolated_home, "codex")
    set_up(env, isolated_home, "codex", remove=True)
    assert not (repo / ".codex").exists()
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n'
