"""A setup whose writing fails partway still records the files it wrote, so that `--remove`
gives back every one of them (deletes what it created) byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import set_up

from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.hooks import setup


def test_remove_after_a_setup_that_failed_partway_leaves_nothing_behind(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = isolated_home.home / "repo"
    (repo / ".git").mkdir(parents=True)
    env = Env.for_test(cwd=repo, home=isolated_home.home, codex_home=isolated_home.codex_home)
    isolated_home.codex_home.mkdir()
    config = isolated_home.codex_home / "config.toml"
    config.write_text('model = "gpt-5"\n', encoding="utf-8")
    write = setup._write

    def failing(path: Path, text: str) -> None:
        if path == config:
            raise FileAccessError(f"cannot write {path}", hint="", code="SS005")
        write(path, text)

    monkeypatch.setattr(setup, "_write", failing)
    with pytest.raises(FileAccessError):
        set_up(env, isolated_home, "codex")
    assert (repo / ".codex" / "hooks.json").is_file()  # written before config.toml failed
    monkeypatch.setattr(setup, "_write", write)

    set_up(env, isolated_home, "codex")
    set_up(env, isolated_home, "codex", remove=True)
    assert not (repo / ".codex").exists()
    assert config.read_text(encoding="utf-8") == 'model = "gpt-5"\n'
