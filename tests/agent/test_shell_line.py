"""A bash line read without running it: the command that ends it, and the operators before it."""

from __future__ import annotations

import pytest

from skillshelf.agent.shell_line import last_command


@pytest.mark.parametrize(
    ("line", "operators", "words"),
    [
        ("make build; echo $?", (";",), ("echo", "$?")),
        ("make build | tail -3; echo 'exit:' $?;", (";",), ("echo", "exit:", "$?")),
        ("make &\necho $?\n", ("&", "\n"), ("echo", "$?")),
        ("make & echo $?", ("&",), ("echo", "$?")),
        ("(make)\n\necho $?  # done", (")", "\n", "\n"), ("echo", "$?")),
        ("echo $?", (), ("echo", "$?")),
    ],
)
def test_the_command_ending_a_line_comes_with_the_operators_before_it(
    line: str, operators: tuple[str, ...], words: tuple[str, ...]
) -> None:
    found = last_command(line)
    assert found is not None
    assert (found[0], found[1].words) == (operators, words)


def test_a_redirection_of_the_last_command_is_kept_on_it() -> None:
    found = last_command("make; echo $? > status.txt")
    assert found is not None and found[1].words == ("echo", "$?") and found[1].writes


@pytest.mark.parametrize(
    "line",
    ["make &", "(make)", "make &&", "", "echo $(make); echo $?", "cat <<EOF\nx\necho $?", "echo 'open"],
)
def test_a_line_that_ends_in_no_simple_command_or_cannot_be_read_has_none(line: str) -> None:
    assert last_command(line) is None
