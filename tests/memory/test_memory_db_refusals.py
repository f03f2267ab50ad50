"""A ``--db`` that names no database file is refused with what is wrong with it: an empty one
is never the default database, a link loop is not "missing", a device is not "damaged"."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.memory.store import default_db_path, open_store

COMMANDS = [
    ("reset", "--yes"),
    ("status",),
    ("forget", "nosuch"),
    ("prune",),
    ("recover",),
    ("show",),
    ("search", "deploy"),
    ("run", "--dry-run"),
]


@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_database_url_is_refused_not_read_as_the_default_one(
    empty: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a blank name read as a file's would be made here
    with pytest.raises(UsageError) as refused:
        open_store(empty, data_dir=tmp_path / "data")
    assert refused.value.code == "ME048"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_an_empty_db_option_is_a_usage_error_that_leaves_the_default_database_alone(
    isolated_home: Any, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    default = default_db_path(Env.from_os().dirs.data)
    open_store(None, data_dir=Env.from_os().dirs.data).close()
    before = default.read_bytes()
    code, _, err = run_cli(capsys, "memory", *command, "--db", "")
    assert code == 2 and "error ME048:" in err, err
    assert default.read_bytes() == before


def test_an_empty_db_option_with_json_prints_the_refusal_as_json(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "memory", "status", "--json", "--db", "")
    assert code == 2 and json.loads(out)["code"] == "ME048"
    assert not default_db_path(Env.from_os().dirs.data).exists()


@pytest.mark.parametrize("command", [("status",), ("run", "--dry-run")], ids=lambda c: c[0])
def test_a_db_that_is_a_link_loop_says_so_for_reads_and_runs_alike(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    loop = tmp_path / "loop.db"
    loop.symlink_to(loop.name)
    code, _, err = run_cli(capsys, "memory", *command, "--db", str(loop))
    assert code != 0 and "error ME010:" in err and "loop of symbolic links" in err, err


def test_a_db_whose_link_points_nowhere_does_not_exist(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dangling = tmp_path / "dangling.db"
    dangling.symlink_to("nowhere/state.sqlite")
    code, _, err = run_cli(capsys, "memory", "status", "--db", str(dangling))
    assert code != 0 and "error ME043:" in err, err


@pytest.mark.parametrize("command", [("status",), ("run", "--dry-run")], ids=lambda c: c[0])
def test_a_db_that_is_a_device_or_a_folder_is_not_called_damaged(
    isolated_home: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    for target in (os.devnull, str(tmp_path)):
        code, _, err = run_cli(capsys, "memory", *command, "--db", target)
        assert code != 0 and "error ME010:" in err, err
        assert "damaged" not in err and "not skillshelf's" not in err
        assert "it is no file: pass --db with the path of a database file" in err
