"""The memory commands on a database the file system will not let them write (a read-only
mount): the ones that only read still answer; the ones that write say why they cannot."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.env import Env
from skillshelf.memory.store import SessionRow, default_db_path, open_store
from skillshelf.memory.store import sqlite as backend


@pytest.fixture
def read_only_database(isolated_home: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        store.register_sessions(
            [
                SessionRow(
                    id="s1", source="codex", path="/t/s1.jsonl", cwd="/p", project="/p", updated_at_ms=1
                )
            ],
            10**12,
        )

    def refuse(path: Path, *, own_folder: bool) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(backend, "_private_database", refuse)
    return default_db_path(Env.from_os().dirs.data)


@pytest.mark.parametrize("command", [("status", "--json"), ("search", "deploy", "--no-usage")], ids=" ".join)
def test_the_commands_that_only_read_answer_from_a_read_only_database(
    read_only_database: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    before = read_only_database.read_bytes()
    code, out, err = run_cli(capsys, "memory", *command)
    assert code == 0, err
    if command[0] == "status":
        assert [s["id"] for s in json.loads(out)["session_list"]] == ["s1"]
    assert read_only_database.read_bytes() == before


def test_a_command_that_writes_says_the_database_cannot_be_opened(
    read_only_database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run_cli(capsys, "memory", "forget", "s1")
    assert code == 1 and "error ME010:" in err and "Read-only file system" in err
