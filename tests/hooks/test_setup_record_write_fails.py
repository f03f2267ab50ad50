"""A setup whose record cannot be saved, after its files were written, is all or nothing too:
the files get their former bytes back and the error (HK123) names the record file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import set_up

from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.hooks import setup_apply
from skillshelf.hooks.setup_model import record_path


def _refusing_the_record(monkeypatch: pytest.MonkeyPatch, record: Path) -> None:
    write = setup_apply._write

    def failing(path: Path, text: str) -> None:
        if path == record:
            raise FileAccessError(f"cannot write {path}: Operation not permitted", hint="", code="SS005")
        write(path, text)

    monkeypatch.setattr(setup_apply, "_write", failing)


def test_a_record_that_cannot_be_saved_puts_the_written_files_back(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = isolated_home.home / "repo"
    (repo / ".git").mkdir(parents=True)
    env = Env.for_test(cwd=repo, home=isolated_home.home, codex_home=isolated_home.codex_home)
    isolated_home.codex_home.mkdir()
    config = isolated_home.codex_home / "config.toml"
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    record = record_path(env.dirs.state)
    write = setup_apply._write
    _refusing_the_record(monkeypatch, record)

    with pytest.raises(FileAccessError) as raised:
        set_up(env, isolated_home, "codex")
    assert raised.value.code == "HK123"
    assert str(record) in raised.value.message and "nothing was changed" in raised.value.message
    assert str(record) in raised.value.hint
    assert not (repo / ".codex").exists()
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n'
    assert not record.exists()

    monkeypatch.setattr(setup_apply, "_write", write)
    set_up(env, isolated_home, "codex")
    assert (repo / ".codex" / "hooks.json").exists() and record.exists()
