"""Whether the program a hook command line starts can run: the first word of the line as the
agent's shell finds it (read with the shell's quoting rules, ``~`` and ``$NAME`` expanded from
this environment; a path, a relative one from the cwd, or a name looked up on ``PATH``).
``setup --status`` says a hook whose program is gone does not run.

The line is read as POSIX ``sh`` (and bash) reads it: single quotes keep everything literal
(``'$HOME'/bin`` is the folder ``$HOME``), double quotes keep all but ``$``, a backslash the
next character; a leading unquoted ``~`` is the home folder; an unquoted ``$NAME`` whose value
the shell would split or glob, and every expansion that cannot be told here (a command
substitution, another user's ``~``, a variable the agent sets for its hooks), says nothing. The
first simple command ends at an operator (``;``, ``&&``, ``|``, ...); redirections and
``NAME=value`` assignments before the program word are skipped.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import reason

__all__ = ["command_problem", "missing_commands", "program_word"]

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # ``NAME=value`` before a command word
#: Words the shell runs itself (reserved words, builtins), not as a program found on PATH: a line
#: starting with one says nothing.
_SHELL_WORDS = frozenset(
    {".", ":", "!", "{", "(", "[[", "builtin", "command", "eval", "exec", "source", "time"}
    | {"if", "while", "until", "for", "case", "select", "function", "coproc"}
    | {"alias", "cd", "export", "exit", "hash", "local", "read", "readonly", "return", "set", "shift"}
    | {"trap", "type", "ulimit", "umask", "unalias", "unset", "wait"}
)
_BLANKS = " \t"
_OPERATORS = ";&|()\n"  # each ends the first simple command (or starts a subshell)
_REDIRECTS = "<>"
_REDIRECTION_OPERATORS = ("<<-", "<<", ">>", "<&", ">&", "<>", ">|", "<", ">")  # longest first
_GLOBS = "*?["
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_SPECIAL = "@*#?-$!0123456789{('\""  # after ``$``: a parameter, substitution or quoting told elsewhere


def missing_commands(env: Env, commands: list[str]) -> list[str]:
    """Why the program each hook command line starts cannot run, once per program
    (:func:`command_problem`). A line whose program cannot be told here says nothing (the
    shell's own errors are not told here)."""
    problems: dict[str, str | None] = {}
    for command in commands:
        program = program_word(env, command)
        if program is not None and program not in problems:
            problems[program] = _not_runnable(env, program)
    return [problem for problem in problems.values() if problem is not None]


def command_problem(env: Env, command: str) -> str | None:
    """Why the program the hook command line ``command`` starts cannot run (``None``: it can,
    or that cannot be told here)."""
    program = program_word(env, command)
    return None if program is None else _not_runnable(env, program)


def program_word(env: Env, command: str) -> str | None:
    """The program ``command``'s first simple command runs, as the shell expands its word;
    ``None`` when that cannot be told here (an expansion of the agent's or the shell's, a word
    the shell runs itself, a line it cannot read) or there is none."""
    words = _first_words(command)
    if words is None:
        return None
    raw = next((w for w in words if not _ASSIGNMENT.match(w)), "")
    program = _expanded(env, raw) if raw else None
    return program if program and program not in _SHELL_WORDS else None


def _first_words(line: str) -> list[str] | None:
    """The words of the first simple command of ``line`` as written (quotes kept), up to its
    program word, without its redirections; ``None`` when they cannot be read here (a quote
    left open, a command substitution, a subshell)."""
    words: list[str] = []
    i = 0
    while i < len(line):
        char = line[i]
        if char in _BLANKS or line.startswith("\\\n", i):
            i += 1 if char in _BLANKS else 2
            continue
        if char in _OPERATORS or char == "#":
            return None if char == "(" and not words else words
        end = _word_end(line, i)
        if end is None:
            return None
        if end < len(line) and line[end] in _REDIRECTS and line[i:end].isascii() and line[i:end].isdigit():
            end = _redirection_end(line, end)  # ``2>file``: a descriptor's redirection
        elif char in _REDIRECTS:
            end = _redirection_end(line, i)
        else:
            words.append(line[i:end])
            if not _ASSIGNMENT.match(words[-1]):
                return words  # the program word: what follows it is not read
        if end is None:
            return None
        i = end
    return words


def _word_end(line: str, start: int) -> int | None:
    """Where the word starting at ``start`` ends (an unquoted blank, operator or redirection);
    ``None`` for a quote left open or a command substitution."""
    i = start
    while i < len(line):
        char = line[i]
        if char in _BLANKS or char in _OPERATORS or char in _REDIRECTS:
            return i
        if char == "\\":
            i += 2
        elif char == "'":
            close = line.find("'", i + 1)
            if close < 0:
                return None
            i = close + 1
        elif char == '"':
            closing = _double_quote_end(line, i)
            if closing is None:
                return None
            i = closing + 1
        elif char == "`" or line.startswith("$(", i):
            return None
        elif line.startswith("${", i):
            close = line.find("}", i)
            if close < 0:
                return None
            i = close + 1
        else:
            i += 1
    return min(i, len(line))


def _double_quote_end(line: str, start: int) -> int | None:
    """The index of the ``"`` closing the one at ``start`` (``None``: open, or a substitution)."""
    i = start + 1
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
        elif char == '"':
            return i
        elif char == "`" or line.startswith("$(", i):
            return None
        else:
            i += 1
    return None


def _redirection_end(line: str, start: int) -> int | None:
    """Where the redirection whose operator starts at ``start`` ends, its target word included
    (``>&-`` has none)."""
    operator = next(op for op in _REDIRECTION_OPERATORS if line.startswith(op, start))
    i = start + len(operator)
    if operator in ("<&", ">&") and line.startswith("-", i):
        return i + 1
    while i < len(line) and line[i] in _BLANKS:
        i += 1
    if i >= len(line) or line[i] in _OPERATORS or line[i] in _REDIRECTS:
        return None
    return _word_end(line, i)


def _expanded(env: Env, raw: str) -> str | None:
    """The word ``raw`` (a whole word, as written) after the shell's tilde and parameter
    expansion and quote removal; ``None`` when that cannot be told here."""
    out: list[str] = []
    i = 0
    if raw.startswith("~"):
        prefix = raw.split("/", 1)[0]
        if prefix == "~":
            out.append(str(env.home))
            i = 1
        elif not any(c in prefix for c in "'\"\\"):
            return None  # another user's home, or bash's ~+ / ~-
    while i < len(raw):
        char = raw[i]
        if char == "\\":
            out.append(raw[i + 1 : i + 2].replace("\n", ""))
            i += 2
        elif char == "'":
            close = raw.index("'", i + 1)
            out.append(raw[i + 1 : close])
            i = close + 1
        elif char == '"':
            i = _in_double_quotes(env, raw, i + 1, out)
            if i < 0:
                return None
        elif char == "$":
            value, i = _parameter(env, raw, i)
            if value is None or any(c in value for c in " \t\n" + _GLOBS):
                return None  # unknown, or split into words / globbed by the shell
            out.append(value)
        elif char in _GLOBS:
            return None  # the shell may put the names of matching files here
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _in_double_quotes(env: Env, raw: str, i: int, out: list[str]) -> int:
    """Append what the double-quoted text from ``i`` stands for to ``out``; the index after the
    closing quote, or -1 when it holds an expansion that cannot be told here."""
    while raw[i] != '"':
        char = raw[i]
        if char == "\\" and raw[i + 1] in '$`"\\\n':
            out.append(raw[i + 1].replace("\n", ""))
            i += 2
        elif char == "$":
            value, i = _parameter(env, raw, i)
            if value is None:
                return -1
            out.append(value)
        else:
            out.append(char)
            i += 1
    return i + 1


def _parameter(env: Env, raw: str, i: int) -> tuple[str | None, int]:
    """The value of the expansion starting with the ``$`` at ``i`` (``None``: not set here or
    not a plain variable) and the index after it; a ``$`` that starts none is itself."""
    match = _VARIABLE.match(raw, i)
    if match is not None:
        return env.environ.get(match.group(1) or match.group(2)), match.end()
    following = raw[i + 1 : i + 2]
    if following and (following in _SPECIAL or following.isalpha() or following == "_"):
        return None, len(raw)
    return "$", i + 1


def _not_runnable(env: Env, program: str) -> str | None:
    """Why the shell cannot start ``program`` (exit 127: not found; 126: not executable)."""
    if "/" not in program:
        path = env.environ.get("PATH", os.defpath)
        if shutil.which(program, path=path) is None:
            return f"the hook command {program!r} is not found on PATH (exit 127)"
        return None
    where = Path(program) if Path(program).is_absolute() else env.cwd / program
    try:
        os.stat(where)
    except FileNotFoundError:
        return f"the hook command {program} does not exist (exit 127)"
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        return f"the hook command {program!r} cannot be started ({reason(exc)}; exit 127)"
    if where.is_dir() or not os.access(where, os.X_OK):
        return f"the hook command {program} is not an executable file (exit 126)"
    return None
