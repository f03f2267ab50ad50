"""`skillshelf context TASK`: the main job, what the model would get for TASK here."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from skillshelf.cli.catalog_notes import catalog_warning
from skillshelf.cli.choices import catalog_options
from skillshelf.cli.output import (
    TEXT,
    echo_json,
    echo_text,
    print_diagnostics,
    print_run_findings,
    printable,
    root_options,
    stdout_console,
)
from skillshelf.cli.progress import working
from skillshelf.context import MENTION_NOTE_CODES, ContextOptions, ContextResult, build_context
from skillshelf.env import Env


@click.command("context")
@click.argument("task", required=False, default="", type=TEXT)
@root_options
@click.option(
    "--profile",
    type=click.Choice(["codex", "claude"]),
    default=None,
    help="Whose instruction files to load: AGENTS.md (codex) or CLAUDE.md (claude); "
    "default: `instructions.profile` from config, else codex. With claude, the suggestions "
    "name the skills Claude Code lists for its Skill tool, as its hook does.",
)
@catalog_options
@click.option(
    "-c", "--config", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config value."
)
@click.option("--no-instructions", is_flag=True, help="Leave the AGENTS.md / CLAUDE.md layers out.")
@click.option("--no-suggestions", is_flag=True, help="Leave the per-task skill suggestions out.")
@click.option("--no-memory", is_flag=True, help="Leave the memory summary out.")
@click.option(
    "--no-semantic",
    is_flag=True,
    help="Rank the suggestions without the embedding models even when installed (as `search --no-semantic`).",
)
@click.option("--raw", is_flag=True, help="Print exactly the text the model gets, nothing else.")
@click.option("--json", "as_json", is_flag=True, help="Print the parts and figures as JSON.")
def context(
    task: str,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    profile: str | None,
    catalog_format: str | None,
    context_window: int | None,
    budget_tokens: int | None,
    budget_chars: int | None,
    overrides: tuple[str, ...],
    no_instructions: bool,
    no_suggestions: bool,
    no_memory: bool,
    no_semantic: bool,
    raw: bool,
    as_json: bool,
) -> None:
    """Show what the model would get for TASK in this folder (`-`: read TASK from stdin).

    The parts come in context order: instructions, the skills catalog, pinned skills, the
    memory summary, skills suggested for TASK, and the skills TASK mentions ($name, /name),
    loaded. Token counts use Codex's 4-bytes-per-token estimate.
    """
    options = ContextOptions(
        extra_roots=tuple(p.absolute() for p in roots),
        include_builtin=not no_builtin,
        use_cache=not no_cache,
        profile=profile,  # type: ignore[arg-type]
        skill_tool=None,  # as the profile says
        catalog_format=catalog_format,
        context_window=context_window,
        budget_tokens=budget_tokens,
        budget_chars=budget_chars,
        config_overrides=overrides,
        instructions=not no_instructions,
        suggestions=not no_suggestions,
        memory=not no_memory,
        semantic=False if no_semantic else None,
    )
    with working("Finding skills and building the context"):
        result = build_context(Env.from_os(), task, options)
    if as_json:
        echo_json(_as_json(result))
    elif raw:
        echo_text(result.text)
    else:
        _print_for_people(result, suggestions=not no_suggestions)
    if _print_notes(result):
        # a config layer, an override or an instruction file was skipped: not the intended context
        sys.exit(1)


def _print_for_people(result: ContextResult, *, suggestions: bool) -> None:
    from rich.rule import Rule
    from rich.table import Table
    from rich.text import Text

    console = stdout_console()
    for part in result.parts:
        console.print(Rule(Text(f"{part.title}  ({part.tokens:,} tokens)", style="bold cyan"), align="left"))
        console.print(Text(printable(part.text)), soft_wrap=True)
    title = Text(printable(f"Context for {_title_task(result.task)!r}" if result.task else "Context"))
    table: Any = Table(title=title, title_justify="left")
    table.add_column("part")
    table.add_column("tokens", justify="right")
    table.add_column("from")
    for part in result.parts:
        table.add_row(part.title, f"{part.tokens:,}", Text(printable(_sources(part.sources))))
    table.add_row(
        "[bold]total[/bold]", f"[bold]{result.tokens:,}[/bold]", f"{result.skills_total} skills found"
    )
    console.print(table)
    from skillshelf.skills.catalog.report import cut_summary

    for line in cut_summary(result.catalog_report):
        console.print(Text(printable(line), style="dim"))
    if suggestions and result.task.strip() and not any(p.name == "suggestions" for p in result.parts):
        hint = f"skillshelf search {_search_argument(result.task)}"
        note = f"no skill suggested for this task: `{hint}` shows the ranking and its confidence"
        console.print(Text(printable(note), style="dim"))


def _search_argument(task: str) -> str:
    """``task`` as `search`'s argument in a command to copy: quoted for the shell, after ``--``
    when it starts with a dash (else `search` reads it as an option); ``-`` (read from stdin)
    when it is long or spans lines."""
    if len(task) > 200 or "\n" in task:
        return "-"
    return f"-- {shlex.quote(task)}" if task.startswith("-") else shlex.quote(task)


TITLE_TASK_CHARS = 80


def _title_task(task: str) -> str:
    """The task as the table's title shows it: its first line, cut to :data:`TITLE_TASK_CHARS`
    characters with an ellipsis (a task read from stdin can be a whole file)."""
    line = task.strip().split("\n", 1)[0]
    cut = len(line) > TITLE_TASK_CHARS or line != task.strip()
    return line[:TITLE_TASK_CHARS].rstrip() + "…" if cut else line


def _sources(sources: tuple[str, ...]) -> str:
    if not sources:
        return ""
    if len(sources) == 1:
        return sources[0]
    return f"{sources[0]} (+{len(sources) - 1} more)"


def _as_json(result: ContextResult) -> dict[str, object]:
    """``context --json``: the result, with the catalog's warning (``SK380``, ``SK381``) among
    the ``diagnostics`` as an object with its code and fix, as the mentions' notes are."""
    data = result.to_dict()
    warning = catalog_warning(result.catalog_report)
    if warning is not None:
        data["diagnostics"] = [warning.to_dict(), *[d.to_dict() for d in result.diagnostics]]
    return data


def _print_notes(result: ContextResult) -> bool:
    """Warnings for the user (never for the model) go to stderr, in plain click as ``catalog``
    prints them (rich is not imported for a line or two), each with its code and fix: the
    catalog's, then each mention that loads nothing, then the run's findings. True when a
    non-skill finding is an error."""
    warning = catalog_warning(result.catalog_report)
    mentions = [d for d in result.diagnostics if d.code in MENTION_NOTE_CODES]
    print_diagnostics([*([warning] if warning is not None else []), *mentions])
    return print_run_findings([d for d in result.diagnostics if d.code not in MENTION_NOTE_CODES])
