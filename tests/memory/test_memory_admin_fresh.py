"""The memory commands on a machine that has no memory database yet: none of them makes one
(only `memory run` does), and with --json their errors are JSON on stdout, as `memory run`'s."""

from __future__ import annotations

import json
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.env import Env
from skillshelf.memory.store import default_db_path

COMMANDS = [
    ("forget", "nosuch"),
    ("prune",),
    ("prune", "--other-scopes"),
    ("reset", "--yes"),
    ("recover",),
    ("status",),
    ("show",),
    ("show", "nosuch"),
    ("search", "deploy"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_admin_or_read_command_makes_the_default_database(
    isolated_home: Any, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    run_cli(capsys, "memory", *command)
    database = default_db_path(Env.from_os().dirs.data)
    assert not database.exists() and not database.parent.exists()


@pytest.mark.parametrize(
    ("command", "code"),
    [(("show",), "ME405"), (("show", "nosuch"), "ME404"), (("forget", "nosuch"), "ME404")],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else value,
)
def test_a_json_command_prints_its_error_as_json_on_stdout(
    isolated_home: Any, capsys: pytest.CaptureFixture[str], command: tuple[str, ...], code: str
) -> None:
    exit_code, out, err = run_cli(capsys, "memory", *command, "--json")
    assert exit_code == 1 and f"error {code}:" in err
    error = json.loads(out)
    assert error["code"] == code and error["message"] and error["fix"]


def test_reset_still_opens_a_database_that_exists(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillshelf.memory.store import open_store

    open_store(None, data_dir=Env.from_os().dirs.data).close()
    database = default_db_path(Env.from_os().dirs.data)
    code, out, err = run_cli(capsys, "memory", "reset", "--yes", "--json")
    assert code == 0 and json.loads(out)["rows"] == 0, err
    assert database.exists()
