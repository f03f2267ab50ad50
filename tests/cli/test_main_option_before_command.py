"""An option given before the command's name (``skillshelf --json list``) is a usage error whose
fix is the command line with the option after the name, not click's guess of a group option."""

from __future__ import annotations

import json

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.mark.parametrize(
    ("args", "command", "fix"),
    [
        (["--json", "list"], "skillshelf list", "skillshelf list --json"),
        (["--top", "3", "search", "pdf"], "skillshelf search", "skillshelf search --top 3 pdf"),
        (["--top=3", "search", "pdf"], "skillshelf search", "skillshelf search --top=3 pdf"),
        (["--no-builtin", "catalog"], "skillshelf catalog", "skillshelf catalog --no-builtin"),
    ],
)
def test_an_option_before_the_command_says_to_put_it_after_the_commands_name(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str], args: list[str], command: str, fix: str
) -> None:
    code, _, err = cli(args, capsys)
    assert code == 2 and f"it is an option of `{command}`, so it goes after the command's name" in err
    assert f"\n  fix: run `{fix}`\n" in err and "Did you mean '--version'" not in err


def test_an_option_before_a_json_error_command_gives_the_same_fix_as_json(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(["memory", "--json", "status"], capsys)
    assert code == 2 and json.loads(out)["fix"] == "run `skillshelf memory status --json`"


def test_an_option_no_command_takes_keeps_clicks_message(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--nosuch", "list"], capsys)
    assert code == 2 and "No such option '--nosuch'" in err and "goes after" not in err
    assert "fix: run `skillshelf --help`" in err
