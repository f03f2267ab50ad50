"""The program a hook command line starts, read as the agent's shell reads it: its quoting (a
single-quoted ``$HOME`` stays literal), ``~`` and ``$NAME`` expanded only where the shell
expands them, redirections and assignments skipped; checked against bash and dash."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import make_project

from skillshelf.env import Env
from skillshelf.hooks.command_check import command_problem, missing_commands, program_word
from testkit import missing

#: Lines whose first simple command is the whole line: the shell's exit status is its program's.
LINES = [
    "'$HOME'/bin/prog hook SessionEnd --agent claude",
    '"$HOME"/bin/prog hook SessionEnd',
    "$HOME/bin/prog",
    "${HOME}/bin/prog",
    '"${HOME}/bin/gone"',
    "\\$HOME/bin/prog",
    "~/bin/prog",
    "~/bin/gone",
    "'~'/bin/prog",
    '"~"/bin/prog',
    "\\~/bin/prog",
    "~/bin/'pr'og",
    '~/bin/p"r"og',
    "~/bin/pr\\og",
    "$BIN/prog",
    '"$BIN"/gone',
    "$EMPTY~/bin/prog",
    "X='a b' ~/bin/prog",
    "FOO=1 BAR=2 ~/bin/gone x",
    "2>/dev/null ~/bin/gone",
    "</dev/null ~/bin/prog",
    ">/dev/null 2>&1 ~/bin/gone arg",
    "~/bin/gone 2>&-",
    "~/bin/gone>out",
    "\\\n~/bin/gone",
    "'/HOME/bin/prog'",
    "~/bin",
    "nosuchprog-4e2c x",
]


def _env(box: Any) -> Env:
    env = make_project(box)
    bin_dir = box.home / "bin"
    bin_dir.mkdir()
    (bin_dir / "prog").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_dir / "prog").chmod(0o755)
    environ = {"HOME": str(box.home), "PATH": "/usr/bin:/bin", "BIN": str(bin_dir), "EMPTY": ""}
    return dataclasses.replace(env, environ=environ)


def _exit_status(shell: str, line: str, env: Env) -> int:
    done = subprocess.run(
        [shell, "-c", line], env=dict(env.environ), cwd=env.cwd, capture_output=True, timeout=30, check=False
    )
    return done.returncode


def test_single_quotes_keep_dollar_home_literal_and_double_quotes_expand_it(isolated_home: Any) -> None:
    env = _env(isolated_home)
    literal = "'$HOME'/bin/prog hook SessionEnd --agent claude"
    assert program_word(env, literal) == "$HOME/bin/prog"
    assert command_problem(env, literal) == "the hook command $HOME/bin/prog does not exist (exit 127)"
    assert command_problem(env, '"$HOME"/bin/prog hook SessionEnd') is None
    assert program_word(env, "\\$HOME/bin/prog") == "$HOME/bin/prog"
    assert program_word(env, "'~'/bin/prog") == "~/bin/prog"
    assert program_word(env, "2>/dev/null FOO='a b' ~/bin/prog x") == f"{isolated_home.home}/bin/prog"


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_a_hook_program_is_missing_exactly_when_the_shell_cannot_start_it(
    isolated_home: Any, shell: str
) -> None:
    found = shutil.which(shell)
    if found is None:
        missing(f"{shell} is not installed")
    env = _env(isolated_home)
    for line in (text.replace("/HOME", str(isolated_home.home)) for text in LINES):
        assert program_word(env, line) is not None, line
        status = _exit_status(found, line, env)
        assert (command_problem(env, line) is not None) == (status in (126, 127)), (line, status)


def test_what_the_shell_expands_beyond_reach_here_says_nothing(isolated_home: Any) -> None:
    env = _env(isolated_home)
    spaced = dataclasses.replace(env, environ={**env.environ, "SPACED": "/x y"})
    gone = f"{isolated_home.home}/gone/prog"
    for line in (
        f"$(dirname {gone})/prog",
        "`echo /gone`/prog",
        "~someone/bin/prog",
        "$CLAUDE_PROJECT_DIR/.claude/prog",  # the agent sets it for its hooks
        "$SPACED/prog",  # split into two words by the shell
        "~/bin/pro*",
        "${HOME:-/x}/gone",
        f"'{gone}",  # a quote left open
        f"cd /tmp && {gone}",
        f"if {gone}; then :; fi",
        f"( {gone} )",
        f"# {gone}",
    ):
        assert program_word(spaced, line) is None, line
    assert missing_commands(spaced, [f"{gone} a", f'"{gone}" b', "$SPACED/prog"]) == [
        f"the hook command {gone} does not exist (exit 127)"
    ]


def test_an_operator_ends_the_first_command(isolated_home: Any) -> None:
    env = _env(isolated_home)
    prog = Path(isolated_home.home) / "bin" / "prog"
    assert program_word(env, f"{prog};/gone") == str(prog)
    assert program_word(env, f"{prog}&&/gone") == str(prog)
    assert program_word(env, f"{prog}|/gone") == str(prog)
