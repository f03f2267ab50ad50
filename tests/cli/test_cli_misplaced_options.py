"""Several options before the command's name, options before a group's subcommand, values
given as ``--top=3`` or ``-cKEY=VALUE``: the usage error's fix is a command line that runs."""

from __future__ import annotations

import shlex
from pathlib import Path

import click
import pytest

from skillshelf.cli.misplaced import misplaced_option
from testkit import IsolatedHome
from testkit import run_cli as cli


def _fix_of(err: str) -> str:
    """The command line the error's fix says to run."""
    line = next(line for line in err.splitlines() if line.startswith("  fix: run `"))
    return line.removeprefix("  fix: run `").partition("`")[0]


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        (["--json", "--top", "3", "search", "pdf"], "skillshelf search --json --top 3 pdf"),
        (["--top=3", "--json", "search", "pdf"], "skillshelf search --top=3 --json pdf"),
        (["--no-semantic", "--top", "2", "search", "pdf"], "skillshelf search --no-semantic --top 2 pdf"),
        (["--json", "memory", "show"], "skillshelf memory show --json"),
        (["memory", "--json", "show"], "skillshelf memory show --json"),
        (["--json", "memory", "search", "pdf"], "skillshelf memory search --json pdf"),
        (["--json", "config", "--explain", "show"], "skillshelf config --explain show --json"),
        (
            ["-cinstructions.profile=claude", "context", "do"],
            "skillshelf context -cinstructions.profile=claude do",
        ),
        (
            ["-c", "instructions.profile=claude", "--no-memory", "context", "do"],
            "skillshelf context -c instructions.profile=claude --no-memory do",
        ),
    ],
)
def test_options_before_the_command_are_all_moved_into_a_line_that_runs(
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    args: list[str],
    fix: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(args, capsys)
    assert code == 2 and "so it goes after the command's name" in err and _fix_of(err) == fix
    code, _, err = cli(shlex.split(fix)[1:], capsys)
    assert code in (0, 1) and "SS002" not in err, err


def test_an_option_before_a_subcommand_is_an_option_of_the_subcommand(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--json", "memory", "show"], capsys)
    assert code == 2 and "it is an option of `skillshelf memory show`" in err
    assert "Did you mean '--version'" not in err


def test_the_message_names_every_option_it_moves(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--json", "--top", "3", "--explain", "search", "pdf"], capsys)
    assert code == 2 and "as '--top', '--explain' do" in err


def test_a_value_that_names_a_command_stays_with_its_option(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--root", "list", "--json", "list"], capsys)
    assert code == 2 and _fix_of(err) == "skillshelf list --root list --json"


def test_an_unknown_option_beside_a_misplaced_one_points_to_the_commands_help(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--json", "--nosuch", "list"], capsys)
    assert code == 2 and "no command of this line takes '--nosuch'" in err
    assert _fix_of(err) == "skillshelf list --help"
    assert cli(["list", "--help"], capsys)[0] == 0


def test_an_option_no_command_of_the_line_takes_keeps_clicks_message(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--json", "memory"], capsys)
    assert code == 2 and "goes after" not in err and "fix: run `skillshelf --help`" in err


@click.group()
def _top() -> None:
    """A root group that takes no option."""


@_top.group("mid")
@click.option("--shared", is_flag=True)
@click.option("--mid-only", is_flag=True)
def _mid(shared: bool, mid_only: bool) -> None:
    """A group with options of its own."""


@_mid.command("leaf")
@click.option("--shared", is_flag=True)
@click.option("--size", type=int)
def _leaf(shared: bool, size: int | None) -> None:
    """A command sharing one option with its group."""


def _usage_error(args: list[str]) -> click.UsageError:
    with pytest.raises(click.UsageError) as caught:
        _top.main(args=args, prog_name="top", standalone_mode=False)
    return caught.value


def test_each_option_goes_after_the_deepest_command_that_takes_it() -> None:
    args = ["--mid-only", "--size=3", "--shared", "mid", "leaf"]
    found = misplaced_option(_usage_error(args), args)
    assert found == (
        "No such option '--mid-only' for `top`: it is an option of `top mid`, so it goes after the "
        "command's name; '--size', '--shared' go after `top mid leaf`",
        "run `top mid --mid-only leaf --size=3 --shared`",
    )
    _top.main(args=shlex.split(found[1][5:-1])[1:], prog_name="top", standalone_mode=False)


def test_an_option_a_group_takes_itself_stays_in_its_place() -> None:
    args = ["mid", "--mid-only", "--size", "3", "leaf"]
    assert misplaced_option(_usage_error(args), args) == (
        "No such option '--size' for `top mid`: it is an option of `top mid leaf`, so it goes after "
        "the command's name",
        "run `top mid --mid-only leaf --size 3`",
    )
