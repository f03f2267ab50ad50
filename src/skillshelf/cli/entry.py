"""The ``skillshelf`` console script: ``skillshelf hook EVENT`` without click, all else through it.

An agent runs ``skillshelf hook UserPromptSubmit`` once per prompt, as a whole process, so its
start-up is paid on every turn; click alone is a tenth of a warm answer. A command line that is
plainly well formed (the event, ``--agent codex|claude``, ``--deadline SECONDS``, each at most
once, ``SKILLSHELF_HOOK_DEADLINE`` a plain number or unset) is answered here directly; anything
else (``--help``, a mistyped option, a bad value, every other command) goes to the click group
in :mod:`skillshelf.cli.main`, so help and error messages are exactly click's.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["lean_hook_args", "main"]

AGENTS = ("codex", "claude")
DEADLINE_ENV = "SKILLSHELF_HOOK_DEADLINE"
_PLAIN_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def lean_hook_args(args: Sequence[str], environ: Mapping[str, str]) -> tuple[str, str, float | None] | None:
    """``(event, agent, deadline)`` for the arguments after ``hook`` when click would read them
    the same way without a word to say, else ``None`` (click then parses them)."""
    event: str | None = None
    options: dict[str, str] = {}
    items = list(args)
    while items:
        item = items.pop(0)
        name, eq, value = item.partition("=")
        if name in ("--agent", "--deadline"):
            if name in options or (not eq and not items):
                return None
            options[name] = value if eq else items.pop(0)
        elif item.startswith("-") or event is not None:
            return None
        else:
            event = item
    agent = options.get("--agent", "claude")
    raw_deadline = options.get("--deadline", environ.get(DEADLINE_ENV) or None)
    if event is None or agent not in AGENTS:
        return None
    if raw_deadline is None:
        return event, agent, None
    if not _PLAIN_NUMBER.fullmatch(raw_deadline):
        return None
    return event, agent, float(raw_deadline)


def main() -> Any:
    """Console-script entry point (see the module docstring)."""
    from skillshelf.cli.blas import one_blas_thread
    from skillshelf.cli.interrupt import exit_code_of, sigterm_as_interrupt

    one_blas_thread()
    argv = sys.argv[1:]
    lean = lean_hook_args(argv[1:], os.environ) if argv[:1] == ["hook"] else None
    if lean is None:
        from skillshelf.cli.main import main as click_main

        return click_main()
    from skillshelf.cli.hook_answer import answer_hook

    try:
        with sigterm_as_interrupt():
            answer_hook(*lean)
    except KeyboardInterrupt as stop:
        sys.exit(exit_code_of(stop))
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # a bug: reported as the click path reports it
        from skillshelf.cli.main import report_internal_error

        report_internal_error(exc)
    return None
