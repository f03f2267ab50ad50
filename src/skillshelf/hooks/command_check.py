"""Whether the program a hook command line starts can run: the first word of the line as the
agent's shell finds it (``~`` and ``$NAME`` expanded from this environment; a path, a relative
one from the cwd, or a name looked up on ``PATH``). ``setup --status`` says a hook whose
program is gone does not run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import reason

__all__ = ["missing_commands"]

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # ``NAME=value`` before a command word
#: Words the shell runs itself, not as a program found on PATH: a line starting with one says nothing.
_SHELL_WORDS = frozenset({".", "!", "{", "(", "builtin", "command", "eval", "exec", "source", "time"})


def missing_commands(env: Env, commands: list[str]) -> list[str]:
    """Why the program each hook command line starts cannot run, once per program: its first
    word (after ``NAME=value`` assignments) as the agent's shell finds it, a path (a relative
    one from the cwd) or a name looked up on ``PATH``. A line that is not shell words says
    nothing (the shell's own errors are not told here)."""
    problems: dict[str, str | None] = {}
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        word = next((w for w in words if not _ASSIGNMENT.match(w)), "")
        program = _expanded(env, word)
        if program and program not in problems and word not in _SHELL_WORDS:
            problems[program] = _not_runnable(env, program)
    return [problem for problem in problems.values() if problem is not None]


_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _expanded(env: Env, word: str) -> str | None:
    """``word`` as the shell expands a leading ``~`` or ``~/`` and ``$NAME`` / ``${NAME}`` from
    this environment; ``None`` when that cannot be told here (another user's ``~``, a variable
    the agent sets for its hooks, such as ``CLAUDE_PROJECT_DIR``, or one not set here, any other
    expansion): say nothing of it."""
    if word == "~" or word.startswith("~/"):
        word = str(env.home) + word[1:]
    elif word.startswith("~"):
        return None
    unknown = False

    def value(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1) or match.group(2)
        if name not in env.environ:
            unknown = True
            return ""
        return env.environ[name]

    word = _VARIABLE.sub(value, word)
    if unknown or any(c in word for c in "$`*?["):
        return None
    return word


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
