"""A trailing ``echo $?``: which commands print the status of the commands before them, and the
status read back from the last line of the output, exactly or not at all."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skillshelf.agent.shell_line import simple_commands
from skillshelf.agent.status_echo import StatusEcho, read_status, status_echo, trailing_echo
from skillshelf.agent.tool_io import run_clipped


def _echo(command: str) -> StatusEcho | None:
    commands = simple_commands(command)
    assert isinstance(commands, list) and len(commands) == 1
    return status_echo(commands[0])


_PRINTING = pytest.mark.parametrize(
    ("command", "before", "after"),
    [
        ("echo $?", "", ""),
        ('echo "$?"', "", ""),
        ('echo "exit: $?"', "exit: ", ""),
        ("echo EXIT=$?", "EXIT=", ""),
        ("echo exit code: $?", "exit code: ", ""),
        ("echo 'exit:' \"$?\" done", "exit: ", " done"),
        ('echo "[exit ${?}]"', "[exit ", "]"),
        ("echo -n $?", "", ""),
        ('echo "-n" exit $?', "exit ", ""),
        ("echo -- $?", "-- ", ""),
        ("printf '%s\\n' \"$?\"", "", ""),
        ("printf 'exit=%d\\n' $?", "exit=", ""),
        ("printf %d $?", "", ""),
        ('printf "status $?\\n"', "status ", ""),
        ('printf "$?"', "", ""),
    ],
)


@_PRINTING
def test_an_echo_whose_only_expansion_is_the_status_prints_it_between_known_text(
    command: str, before: str, after: str
) -> None:
    assert _echo(command) == StatusEcho(before=before, after=after)


@_PRINTING
def test_bash_prints_the_status_between_that_text(command: str, before: str, after: str) -> None:
    run = subprocess.run(
        ["bash", "-c", f"(exit 7); {command}"], capture_output=True, text=True, encoding="utf-8", check=True
    )
    assert run.stdout.rstrip("\n") == f"{before}7{after}"


@pytest.mark.parametrize(
    "command",
    [
        "echo done",  # no status
        "echo $? $?",  # two
        'echo "$HOME $?"',  # another expansion
        "echo $?$HOME",
        "echo '$?'",  # quoted: printed as it is
        "echo \\$?",
        "echo $? > status.txt",  # not in the output
        "echo $? >&2",
        "echo * $?",  # a glob, braces, a tilde: text not known in advance
        "echo {a,b} $?",
        "echo ~ $?",
        'echo "a\\nb $?"',  # a backslash
        "echo 'line\nbreak' $?",  # a newline
        'echo "cost $ $?"',
        "printf '%s %s\\n' $?",  # printf: one conversion for one status
        "printf '%d%%\\n' $?",
        "printf -v s %d $?",
        "printf '%d\\t\\n' $?",
        'printf "a\\nb $?"',
        "printf 'x=%d' $HOME",
        "printf '$?'",
        "/bin/echo $?",
        "cat $?",
    ],
)
def test_other_commands_are_no_status_echo(command: str) -> None:
    assert _echo(command) is None


_BARE = StatusEcho(before="", after="")
_EXIT = StatusEcho(before="exit: ", after="")
_BRACKETS = StatusEcho(before="[exit ", after="] ")


@pytest.mark.parametrize(
    ("echo", "line_status", "output", "status"),
    [
        (_BARE, 0, "exit code 0\n===== 3 passed =====\n0", 0),
        (_BARE, 0, "exit code 0\n===== 1 failed =====\n1\n", 1),
        (_EXIT, 0, "exit code 0\n....\nexit: 2", 2),
        (_EXIT, 0, "exit code 0\nexit: 0\nexit: 1", 1),  # the check printing the text first
        (_BRACKETS, 0, "exit code 0\n[exit 5]", 5),  # the tool output is right-stripped
        (_BARE, 0, "exit code 0\nhead\n... [9 characters cut] ...\n...\n0", 0),
        (_BARE, 0, "0", 0),
        (_BARE, 0, "255", 255),
    ],
)
def test_the_status_is_read_from_the_last_line_of_the_output(
    echo: StatusEcho, line_status: int, output: str, status: int
) -> None:
    assert read_status(echo, line_status, output) == (status, None)


@pytest.mark.parametrize(
    ("echo", "line_status", "output", "why"),
    [
        (_BARE, 124, "error: timed out after 5 s\n0", "the line exited 124"),
        (_BARE, 1, "exit code 1\n0", "the line exited 1"),
        (_BARE, 0, None, "no output was handed over"),
        (_BARE, 0, "exit code 0\nhead\n... [40000 bytes of output cut] ...\n0", "the output was cut"),
        (_EXIT, 0, "exit code 0\n1 failedexit: 1", "not its echo's"),  # output without a newline
        (_EXIT, 0, "exit code 0\nExit: 0", "not its echo's"),
        (_EXIT, 0, "exit code 0\nexit: 0 passed", "not its echo's"),
        (_EXIT, 0, "exit code 0\nexit: abc", "not its echo's"),
        (_BARE, 0, "exit code 0\n01", "not its echo's"),
        (_BARE, 0, "exit code 0\n256", "not its echo's"),
        (_BARE, 0, "exit code 0\n-1", "not its echo's"),
        (_BARE, 0, "exit code 0\n\u0660", "not its echo's"),  # an Arabic-Indic zero
        (_BARE, 0, "", "not its echo's"),
    ],
)
def test_a_status_that_cannot_be_read_exactly_is_none_with_the_reason(
    echo: StatusEcho, line_status: int, output: str | None, why: str
) -> None:
    status, reason = read_status(echo, line_status, output)
    assert status is None and reason is not None and why in reason


def test_a_last_line_the_output_clip_cut_into_is_not_read(tmp_path: Path) -> None:
    command = "printf '%.0s1' $(seq 3000); echo $?"  # one line of 3001 digits, too long for the clip
    run = run_clipped(command, cwd=tmp_path, timeout=30, limit=1000)
    assert run.exit_code == 0 and run.output.rstrip().endswith("10")
    status, why = read_status(_BARE, 0, run.output)
    assert status is None and why is not None and "cut right before its last line" in why


@pytest.mark.parametrize(
    ("line", "echo"),
    [
        ("make build; echo $?", _BARE),
        ('cargo build 2>&1 | tail -5; echo "exit: $?"', _EXIT),
        ("make || true\necho $?\n", _BARE),
        ("(make); echo $?;", _BARE),
        ("make & wait $!; echo $?", _BARE),
        ("tsc --noEmit  # types\n\necho $?", _BARE),
    ],
)
def test_an_echo_ending_any_line_after_a_separator_is_its_trailing_echo(line: str, echo: StatusEcho) -> None:
    assert trailing_echo(line) == echo


@pytest.mark.parametrize(
    "line",
    [
        "echo $?",  # nothing before it
        "make && echo $?",  # runs only when make passed
        "make | echo $?",
        "make; echo $? > status.txt",
        "make; echo $? &",
        "make; echo done",
        "make; (echo $?)",
        "echo $(make); echo $?",  # a line not read into tokens
    ],
)
def test_lines_that_do_not_end_in_a_status_echo_after_a_separator_have_none(line: str) -> None:
    assert trailing_echo(line) is None


@pytest.mark.parametrize("line", ["make build & echo $?", "make build &\necho $?", "sleep 1 & ; echo $?"])
def test_an_echo_after_a_background_job_is_marked_and_no_status_is_read_from_it(line: str) -> None:
    echo = trailing_echo(line)
    assert echo == StatusEcho(before="", after="", background=True)
    status, why = read_status(echo, 0, "exit code 0\n0")
    assert status is None and why is not None and "follows a background job" in why


@pytest.mark.parametrize(
    ("before", "echo"),
    [
        ("(exit 3) | (exit 4); ", "echo $?"),
        ("(exit 3) || (exit 5); ", "echo $?"),
        ("(exit 2); ", 'echo "exit: $?"'),
        ("(exit 3) && true\n", "echo EXIT=$?"),
        ("{ (exit 6); }; ", "printf 'status %d\\n' $?"),
        ("(exit 7) & wait $!; ", "echo $?"),
    ],
)
def test_a_trailing_echo_prints_the_status_bash_gives_the_line_without_it(before: str, echo: str) -> None:
    found = trailing_echo(before + echo)
    assert found is not None
    expected = subprocess.run(["bash", "-c", before], capture_output=True, check=False).returncode
    run = subprocess.run(
        ["bash", "-c", before + echo], capture_output=True, text=True, encoding="utf-8", check=True
    )
    assert read_status(found, run.returncode, run.stdout) == (expected, None)


def test_bash_prints_0_after_a_background_job_whatever_it_does() -> None:
    run = subprocess.run(
        ["bash", "-c", "(exit 3) & echo $?"], capture_output=True, text=True, encoding="utf-8", check=True
    )
    assert run.stdout.strip() == "0"
