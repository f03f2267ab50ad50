"""Shared output helpers for commands: JSON for programs, rich for people (imported lazily)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["echo_json", "print_diagnostics", "root_options", "stderr_console", "stdout_console"]


def _default(value: object) -> object:
    if isinstance(value, Path):
        return str(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def echo_json(value: object) -> None:
    """Print ``value`` as indented JSON on stdout."""
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=_default))


def stdout_console() -> Any:
    from rich.console import Console

    return Console(soft_wrap=False, highlight=False)


def stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, soft_wrap=False, highlight=False)


def print_diagnostics(diagnostics: Iterable[Diagnostic], *, err: bool = True) -> None:
    """One block per finding: ``path:line: severity CODE: message`` and a ``fix:`` line."""
    colours = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
    stream = sys.stderr if err else sys.stdout
    for diag in diagnostics:
        where = str(diag.path) if diag.path is not None else "<input>"
        if diag.line is not None:
            where += f":{diag.line}"
        sev = click.style(diag.severity.value, fg=colours[diag.severity], bold=True)
        click.echo(f"{where}: {sev} {diag.code}: {diag.message}", file=stream)
        click.echo(f"  fix: {diag.fix}", file=stream)


def root_options(func: Any) -> Any:
    """The options every skill-reading command shares: extra roots, built-ins, cache."""
    func = click.option("--no-cache", is_flag=True, help="Do not read or write the parsed-skill cache.")(func)
    func = click.option("--no-builtin", is_flag=True, help="Leave skillshelf's built-in skills out.")(func)
    func = click.option(
        "--root",
        "roots",
        multiple=True,
        type=click.Path(path_type=Path, file_okay=False),
        help="An extra folder to scan for skills (repeatable).",
    )(func)
    return func
