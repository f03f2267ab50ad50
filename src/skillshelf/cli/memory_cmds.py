"""`skillshelf memory ...` (run, show, search, forget, prune; status, recover and reset come from
``memory_admin``) and `skillshelf redact`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillshelf.cli.memory_admin import (
    db_option,
    errors_as_json,
    exit_if_skipped,
    json_option,
    memory_settings,
    overrides_option,
    recover,
    reset,
    status,
)
from skillshelf.cli.memory_read_cmds import search, show
from skillshelf.cli.memory_report import print_report, retry_notes
from skillshelf.cli.output import FiniteFloat, echo_json, print_diagnostics, printable
from skillshelf.env import Env

if TYPE_CHECKING:
    from skillshelf.diagnostics import Diagnostic
    from skillshelf.memory.consolidator import Consolidator
    from skillshelf.memory.service import RunOptions
    from skillshelf.memory.settings import MemorySettings

__all__ = ["memory", "redact"]

_db_option = db_option
_json_option = json_option


@click.group("memory")
def memory() -> None:
    """Distil agent sessions into memories, and inspect or prune them.

    Phase 1 extracts a memory from each finished session (Codex, Claude Code, skillshelf);
    Phase 2 consolidates a project's memories into its memory folder, whose summary then
    goes into `skillshelf context`.
    """


for _command in (status, recover, reset, show, search):
    memory.add_command(_command)


@contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from skillshelf.cli.output import stderr_console

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=stderr_console(),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


@memory.command("run")
@click.option(
    "--sessions",
    "sessions",
    multiple=True,
    type=click.Path(path_type=Path, exists=True),
    help="A transcript file or folder (repeatable; default: Codex, Claude Code and skillshelf folders).",
)
@click.option(
    "--queued",
    "queued_only",
    is_flag=True,
    help="Only the transcripts the agents' hooks queued (`skillshelf setup`), not the usual folders.",
)
@_db_option
@click.option(
    "--model",
    metavar="PROVIDER:NAME",
    help="Model for both phases (openai:NAME or anthropic:NAME; a bare NAME is openai:NAME).",
)
@click.option(
    "--base-url", metavar="URL", help="API base URL (any OpenAI-compatible server, or Anthropic's)."
)
@click.option("--phase", type=click.Choice(["1", "2", "all"]), default="all", show_default=True)
@click.option("--max-calls", type=click.IntRange(min=0), help="Budget: at most N model calls in this run.")
@click.option("--min-idle-hours", type=FiniteFloat(min=0), help="Only sessions idle at least this long.")
@click.option(
    "--scope", type=click.Choice(["project", "global"]), help="Where memories go (default: project)."
)
@click.option(
    "--dry-run", is_flag=True, help="Show what would be sent to the model; call nothing, claim nothing."
)
@click.option(
    "--consolidator",
    type=click.Choice(["auto", "agent", "direct"]),
    help="Who writes Phase 2's files: the reference agent with file tools confined to the memory "
    "folder, or one direct model call returning JSON (default: memory.consolidator, else auto = "
    "the agent when the model's SDK is installed).",
)
@click.option(
    "--force",
    "take_over",
    is_flag=True,
    help="Take over memory folders another memory database consolidated (refused without it, "
    "ME053): each is moved whole to memories-set-aside/ in the user data folder (kept), and this "
    "database's memories are consolidated in its place.",
)
@overrides_option
@_json_option
def run(
    sessions: tuple[Path, ...],
    queued_only: bool,
    db: str | None,
    model: str | None,
    base_url: str | None,
    phase: str,
    max_calls: int | None,
    min_idle_hours: float | None,
    scope: str | None,
    dry_run: bool,
    consolidator: str | None,
    take_over: bool,
    overrides: tuple[str, ...],
    as_json: bool,
) -> None:
    """Run the pipeline once over the given transcripts and report what it did.

    Transcripts queued by the agents' Stop / SessionEnd hooks are extracted at once (their
    session ended), the others once idle for `memory.min_idle_hours`.

    A transcript that cannot be used (unreadable, not a known format, a FIFO...) is skipped
    with a coded warning on stderr and the run goes on with the others; such warnings alone
    leave the exit code at 0, since the run did all it could. Exit 1 means a model call or
    consolidation failed (it is retried after a backoff), or a config layer or a -c could not be
    read (it is reported, and the run used the rest, as `context` does), or a memory folder holds
    what another memory database consolidated (ME053: nothing of it is rewritten; --force sets
    it aside first); 2 means bad arguments or settings.
    """
    from skillshelf.memory.service import RunOptions, run_memory

    with _errors_as_json(as_json):
        env = Env.from_os()
        loaded, findings = memory_settings(env, overrides)
        settings = loaded.with_overrides(
            extract_model=model,
            consolidation_model=model,
            base_url=base_url,
            max_model_calls=max_calls,
            min_idle_hours=min_idle_hours,
            scope=scope,
            consolidator=consolidator,
        )
        options = RunOptions(
            sessions=tuple(p.absolute() for p in sessions),
            db=db,
            phase=phase,  # type: ignore[arg-type]
            dry_run=dry_run,
            queued_only=queued_only,
            take_over=take_over,
        )
        with _progress(not as_json and sys.stderr.isatty()) as progress:
            report = run_memory(
                env, settings, options, progress=progress, consolidator=_consolidator(env, settings, options)
            )
    data = report.to_dict()
    if as_json:
        echo_json({**data, "problems": [d.to_dict() for d in (*findings, *report.problems)]})
    else:
        print_report(data, dry_run=dry_run, phase=phase)
    print_diagnostics(report.problems)
    if report.failed:
        for error in report.errors:
            click.echo(f"skillshelf: failed {printable(error)}", err=True)
        for line in retry_notes(report.exhausted, len(report.errors)):
            click.echo(f"  {line}", err=True)
        for refusal in report.refused:
            click.echo(f"skillshelf: refused {printable(refusal)}", err=True)
        sys.exit(1)
    exit_if_skipped(findings)


@contextmanager
def _errors_as_json(as_json: bool) -> Iterator[None]:
    """With ``--json``, a fatal error is also printed on stdout as a JSON object (its ``code``,
    ``message`` and ``fix``), so a program reading stdout sees why the run stopped; it still goes
    to stderr and sets the exit code as everywhere else."""
    from skillshelf.errors import SkillshelfError

    try:
        yield
    except SkillshelfError as exc:
        if as_json:
            echo_json(exc.to_dict())
        raise


def _consolidator(
    env: Env, settings: MemorySettings, options: RunOptions
) -> Callable[[], Consolidator] | None:
    """``choose_consolidator``'s answer, without importing the agent layer when it cannot matter:
    ``direct`` never uses the agent, and ``auto`` only in a Phase 2 that really runs. ``agent`` is
    always checked, so a missing SDK is reported (ME039) whatever the phase."""
    if settings.consolidator == "direct":
        return None
    if settings.consolidator == "auto" and (options.dry_run or options.phase == "1"):
        return None
    from skillshelf.agent.consolidate import choose_consolidator

    return choose_consolidator(env, settings)


@memory.command("forget")
@click.argument("session_id")
@_db_option
@overrides_option
@_json_option
@errors_as_json
def forget(session_id: str, db: str | None, overrides: tuple[str, ...], as_json: bool) -> None:
    """Forget one session: scrub its memory now; the next run removes it from the folder.

    Exit 1 when a config layer or a -c could not be read (it is reported, and left out).
    """
    from skillshelf.memory.control import forget_session

    env = Env.from_os()
    _, findings = memory_settings(env, overrides)
    scope = forget_session(env, session_id, db=db)
    if as_json:
        echo_json(
            {"forgotten": session_id, "scope": scope or None, "problems": [d.to_dict() for d in findings]}
        )
    else:
        click.echo(f"forgot {session_id}; run `skillshelf memory run --phase 2` to update the memory folder")
    exit_if_skipped(findings)


@memory.command("prune")
@click.option(
    "--max-unused-days",
    type=FiniteFloat(min=0),
    default=None,
    help="Days a memory may go unused (default: memory.max_unused_days from the config, 30).",
)
@click.option(
    "--other-scopes",
    is_flag=True,
    help="Also delete the memories of the scopes memory.scope does not write (left from before a "
    "switch between project and global; `memory status` lists them) and empty their folders.",
)
@_db_option
@_json_option
@errors_as_json
def prune(max_unused_days: float | None, other_scopes: bool, db: str | None, as_json: bool) -> None:
    """Delete memories unused for N days that the last consolidation of their scope did not
    select (Codex's retention): ones it dropped from the memory folder or left out of it. A
    memory whose scope has a consolidation pending is kept until that runs. A pruned session is
    extracted again only once its transcript changes (`memory status` shows it as `pruned`)."""
    import time

    from skillshelf.memory.control import prune_other_scopes
    from skillshelf.memory.store import open_store

    env = Env.from_os()
    days, scope = max_unused_days, ""
    findings: tuple[Diagnostic, ...] = ()
    if days is None or other_scopes:  # the config is read only when needed
        settings, findings = memory_settings(env)
        days, scope = settings.max_unused_days if days is None else days, settings.scope
    with open_store(db, data_dir=env.dirs.data, create=False) as store:  # none: nothing to prune
        count = store.prune(
            max_unused_ms=int(days * 86_400_000), now_ms=int(time.time() * 1000), limit=100_000
        )
    other = prune_other_scopes(env, scope, db=db) if other_scopes else None
    if as_json:
        echo_json({"pruned": count, **({"other_scopes": other.to_dict()} if other else {})})
    else:
        click.echo(f"pruned {count} memory row(s)")
        if other:
            click.echo(
                f"other scopes ({printable(other.scope) or 'none'}): removed {other.rows} memory row(s), "
                f"emptied {len(other.folders)} folder(s)"
            )
            for folder in other.kept:
                click.echo(f"kept {printable(folder)}: another memory database consolidated it (ME053)")
    exit_if_skipped(findings)


@click.command("redact")
@click.option("--report", is_flag=True, help="Print what was found (kind and count) on stderr.")
@click.option("--no-entropy", is_flag=True, help="Only known formats; keep high-entropy strings.")
@_json_option
def redact(report: bool, no_entropy: bool, as_json: bool) -> None:
    """Redact secrets: text on stdin, redacted text on stdout.

    Only text is changed: bytes that are not UTF-8 (binary, Latin-1) pass through as they are
    (with --json, which cannot hold raw bytes, they are shown as U+FFFD). The input is read and
    written 4 MB at a time, so a log of any size can be piped through; a secret is also replaced
    where it is repeated bare later on.
    """
    from collections import Counter

    from skillshelf.memory.redact.stream import redact_stream

    counts: Counter[str] = Counter()
    texts: list[str] = []
    findings: list[dict[str, object]] = []
    sys.stdout.flush()
    for part in redact_stream(sys.stdin.buffer, high_entropy=not no_entropy):
        counts.update(part.counts())
        if as_json:
            texts.append(
                part.text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
            )
            findings += [f.to_dict() for f in part.findings]
        else:
            sys.stdout.buffer.write(part.text.encode("utf-8", errors="surrogateescape"))
    if as_json:
        echo_json({"text": "".join(texts), "findings": findings})
        return
    sys.stdout.buffer.flush()
    if report:
        for kind, count in sorted(counts.items()):
            click.echo(f"{kind}: {count}", err=True)
