"""A setup whose record cannot be saved, after its files were written, is all or nothing too:
the files get their former bytes back and the error (HK123) names the record file."""

from __future__ import annotations

from typing import Any

import pytest
from hooks_helpers import codex_project, failing_write_to, set_up

from skillshelf.errors import FileAccessError
from skillshelf.hooks import setup_apply
from skillshelf.hooks.setup_model import record_path


def test_a_record_that_cannot_be_saved_puts_the_written_files_back(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, env, config = codex_project(isolated_home)
    record = record_path(env.dirs.state)
    write = setup_apply._write
    failing_write_to(monkeypatch, record)

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
