"""Several options before the command's name, options before a group's subcommand, values
given as ``--top=3`` or ``-cKEY=VALUE``: the usage error's fix is a command line that runs."""

from __future__ import annotations

import functools
import json
import shlex
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skillshelf.cli.main import cli as skillshelf
from skillshelf.cli.misplaced import Misplaced, misplaced_option
from skillshelf.errors import SkillshelfError
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
    assert found is not None and (found.message, found.fix) == (
        "No such option '--mid-only' for `top`: it is an option of `top mid`, so it goes after the "
        "command's name; '--size', '--shared' go after `top mid leaf`",
        "run `top mid --mid-only leaf --size=3 --shared`",
    )
    _top.main(args=shlex.split(found.fix[5:-1])[1:], prog_name="top", standalone_mode=False)


def test_an_option_a_group_takes_itself_stays_in_its_place() -> None:
    args = ["mid", "--mid-only", "--size", "3", "leaf"]
    found = misplaced_option(_usage_error(args), args)
    assert found is not None and (found.message, found.fix) == (
        "No such option '--size' for `top mid`: it is an option of `top mid leaf`, so it goes after "
        "the command's name",
        "run `top mid --mid-only leaf --size 3`",
    )


def test_a_word_naming_a_command_is_the_value_of_an_option_only_the_command_after_it_takes(
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "validate").mkdir()  # a folder named like a command (`validate` takes no --root)
    code, _, err = cli(["--json", "--root", "validate", "search", "pdf"], capsys)
    assert code == 2 and "it is an option of `skillshelf search`" in err and "as '--root' does" in err
    assert _fix_of(err) == "skillshelf search --json --root validate pdf"
    code, _, err = cli(shlex.split(_fix_of(err))[1:], capsys)
    assert code in (0, 1) and "SS002" not in err, err


def test_a_word_naming_a_command_stays_a_command_when_no_command_after_it_takes_the_option(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--json", "--root", "validate", "validate"], capsys)
    assert code == 2 and "it is an option of `skillshelf validate`" in err
    assert "no command of this line takes '--root' (an option of `skillshelf catalog`" in err
    assert _fix_of(err) == "skillshelf validate --help"  # --root read without its value: not left out


def test_each_word_naming_a_command_is_read_so_that_every_option_is_taken(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["-c", "validate", "--root", "list", "context", "do"], capsys)
    assert code == 2 and _fix_of(err) == "skillshelf context -c validate --root list do"


def test_a_value_is_read_for_an_option_whose_word_would_leave_the_line_without_a_command() -> None:
    args = ["--size", "mid", "mid", "leaf"]  # `mid` has no command `mid`: the first is --size's value
    found = misplaced_option(_usage_error(args), args)
    assert found is not None and found.fix == "run `top mid leaf --size mid`"


def test_an_option_only_other_commands_take_is_named_with_them_and_left_out_of_the_fix(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["--top", "3", "--json", "list"], capsys)
    assert code == 2
    assert (
        "No such option '--top' for `skillshelf`: no command of this line takes it (an option of "
        "`skillshelf eval`, `skillshelf search`); '--json' goes after `skillshelf list`" in err
    )
    assert "\n  fix: run `skillshelf list --json` (without '--top 3')\n" in err
    code, _, err = cli(shlex.split(_fix_of(err))[1:], capsys)
    assert code in (0, 1) and "SS002" not in err, err


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        (["--top", "3", "list"], "skillshelf list"),
        (["--json", "--top=3", "list"], "skillshelf list --json"),
        (["--explain", "list"], "skillshelf list"),
    ],
)
def test_an_option_no_command_of_the_line_takes_is_left_out_when_others_take_it(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str], args: list[str], fix: str
) -> None:
    code, _, err = cli(args, capsys)
    assert code == 2 and "no command of this line takes" in err and "(an option of `skillshelf" in err
    assert _fix_of(err) == fix


@pytest.mark.parametrize(
    "args",
    [
        ["--nosuch", "--json", "list"],  # no command takes it: a typo, most likely
        ["--explain", "foo", "list"],  # `foo` read as the value of a flag: the line is not certain
    ],
)
def test_an_option_that_cannot_be_left_out_points_to_the_commands_help(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, _, err = cli(args, capsys)
    assert code == 2 and "no command of this line takes" in err
    assert _fix_of(err) == "skillshelf list --help"


def test_an_option_before_a_json_error_command_prints_the_error_as_json(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(["--json", "memory", "show"], capsys)
    assert code == 2 and "skillshelf: error SS002" in err
    assert json.loads(out) == {
        "error": "UsageError",
        "code": "SS002",
        "message": "No such option '--json' for `skillshelf`: it is an option of `skillshelf memory show`, "
        "so it goes after the command's name",
        "fix": "run `skillshelf memory show --json`",
    }


def test_an_option_before_a_command_without_json_errors_prints_no_json(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(["--json", "list"], capsys)
    assert code == 2 and out == ""


def test_the_error_says_which_command_the_line_runs_and_whether_it_takes_json() -> None:
    args = ["--size", "3", "mid", "leaf"]
    found = misplaced_option(_usage_error(args), args)
    assert found is not None and (found.runs, found.takes_json) == ("top mid leaf", False)


# A property over the real command tree: any runnable command, some of its own options (values
# that name commands among them) given before its name or a group's subcommand's name.

_WORDS = ("validate", "list", "search", "memory", "show", "pdf", "x y", "a=b", "1", "2048", "codex")


@functools.cache
def _runnable() -> tuple[tuple[str, ...], ...]:
    """Every command of the tree a line can end at, as its names below the root."""
    ctx = click.Context(skillshelf, info_name="skillshelf")
    found: list[tuple[str, ...]] = []
    stack: list[tuple[click.Command, tuple[str, ...]]] = [(skillshelf, ())]
    while stack:
        command, path = stack.pop()
        if path and (not isinstance(command, click.Group) or command.invoke_without_command):
            found.append(path)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    stack.append((sub, (*path, name)))
    return tuple(sorted(found))


def _command_at(path: tuple[str, ...]) -> list[click.Command]:
    """The root and each command of ``path``."""
    ctx = click.Context(skillshelf, info_name="skillshelf")
    commands: list[click.Command] = [skillshelf]
    for name in path:
        group = commands[-1]
        assert isinstance(group, click.Group)
        sub = group.get_command(ctx, name)
        assert sub is not None
        commands.append(sub)
    return commands


def _valid_words(param: click.Parameter) -> list[str]:
    """The words ``param`` takes (a path: any, the test makes each a folder)."""
    if isinstance(param.type, click.Path):
        return list(_WORDS)
    valid = []
    for word in _WORDS:
        try:
            param.type.convert(word, param, None)
        except click.BadParameter:
            continue
        valid.append(word)
    return valid


@st.composite
def _option_words(draw: st.DrawFn, option: click.Option) -> list[str] | None:
    """The option as a user types it: ``--flag``, ``--name VALUE``, ``--name=VALUE``, ``-cVALUE``."""
    name = draw(st.sampled_from([*option.opts, *option.secondary_opts]))
    if option.is_flag or option.count:
        return [name]
    values = _valid_words(option)
    if option.nargs != 1 or not values:
        return None
    value = draw(st.sampled_from(values))
    glued = f"{name}={value}" if name.startswith("--") else f"{name}{value}"
    return draw(st.sampled_from([[name, value], [glued]]))


@st.composite
def _misplaced_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], list[str], list[click.Option]]:
    """(the command's names, a line with some of its options before them, those options)."""
    path = draw(st.sampled_from(_runnable()))
    commands = _command_at(path)
    own = [
        p
        for p in commands[-1].params
        if isinstance(p, click.Option) and not {"--help", "--version"} & set(p.opts)
    ]
    assume(own)
    chosen = draw(st.lists(st.sampled_from(own), min_size=1, max_size=3, unique_by=id))
    before: list[list[str]] = [[] for _ in path]  # the words given to the group before each name
    for option in chosen:
        words = draw(_option_words(option))
        assume(words is not None)
        assert words is not None
        before[draw(st.integers(0, len(path) - 1))].extend(words)
    line = [word for at, name in enumerate(path) for word in (*before[at], name)]
    for argument in (p for p in commands[-1].params if isinstance(p, click.Argument)):
        values = [w for w in _valid_words(argument) if "=" not in w]
        count = draw(st.integers(1 if argument.required else 0, 1 if argument.nargs == 1 else 2))
        line += [draw(st.sampled_from(values)) for _ in range(count)]
    return path, line, chosen


def _left(ctx: click.Context) -> list[str]:
    """The words a group left for its subcommand (click before 8.2: ``protected_args``)."""
    protected = getattr(ctx, "_protected_args", None)
    return [*(ctx.protected_args if protected is None else protected), *ctx.args]


def _parsed(args: list[str]) -> tuple[list[click.Context], tuple[str, ...]]:
    """The contexts click makes of the line, down to the command it runs (which is not run)."""
    ctx = skillshelf.make_context("skillshelf", list(args))
    contexts: list[click.Context] = [ctx]
    path: tuple[str, ...] = ()
    while isinstance(ctx.command, click.Group) and _left(ctx):
        name, command, rest = ctx.command.resolve_command(ctx, _left(ctx))
        assert name is not None and command is not None
        ctx = command.make_context(name, rest, parent=ctx)
        contexts.append(ctx)
        path = (*path, name)
    return contexts, path


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_misplaced_lines())
def test_any_line_with_a_commands_options_before_it_gets_a_fix_that_runs_that_command(
    isolated_home: IsolatedHome,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: tuple[tuple[str, ...], list[str], list[click.Option]],
) -> None:
    path, line, chosen = case
    monkeypatch.chdir(tmp_path)
    for word in _WORDS:  # every value is a folder too (--root, PATH arguments)
        (tmp_path / word).mkdir(exist_ok=True)
    try:
        _parsed(line)
    except click.NoSuchOption as exc:
        found: Misplaced | None = misplaced_option(exc, line)
    else:  # each option was given to a group that takes it too (`config --json show`)
        return
    assert found is not None and found.runs == " ".join(("skillshelf", *path)), (line, found)
    fix = shlex.split(found.fix.removeprefix("run `").partition("`")[0])
    assert fix[0] == "skillshelf"
    try:
        contexts, parsed = _parsed(fix[1:])
    except (click.BadParameter, SkillshelfError):  # a value its option refuses (--db validate)
        return
    assert parsed == path, (line, fix)
    given_on_line = {option.name for option in chosen}
    from_line = {
        p.name
        for ctx in contexts
        for p in ctx.command.params
        if ctx.get_parameter_source(p.name or "") is click.core.ParameterSource.COMMANDLINE
    }
    assert given_on_line <= from_line, (line, fix)
