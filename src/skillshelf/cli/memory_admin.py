"""`skillshelf memory status | recover | reset`: looking after the memory state."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from skillshelf.cli.output import echo_json, literal, print_run_findings, printable, stdout_console
from skillshelf.env import Env
from skillshelf.errors import UsageError

if TYPE_CHECKING:
    from skillshelf.diagnostics import Diagnostic
    from skillshelf.memory.settings import MemorySettings

__all__ = [
    "db_option",
    "errors_as_json",
    "exit_if_skipped",
    "json_option",
    "memory_settings",
    "overrides_option",
    "recover",
    "reset",
    "status",
]


def _checked_db(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--db`` as given, refused when it is empty (``ME048``: a script's unset variable must not
    reach the default database) or a ``sqlite:///`` URL's relative path looks meant as absolute
    (with ``--json``, read first as an eager option, the refusal is on stdout too, as the
    command's own fatal errors are)."""
    if value is not None:
        from pathlib import Path

        from skillshelf.errors import SkillshelfError
        from skillshelf.memory.store import check_db_url, check_relative_sqlite_url

        try:
            check_db_url(value)
            check_relative_sqlite_url(value, Path.cwd())
        except SkillshelfError as exc:
            if ctx.params.get("as_json"):
                echo_json(exc.to_dict())
            raise
    return value


db_option = click.option(
    "--db",
    metavar="URL",
    callback=_checked_db,
    help="State database: a SQLite file's path (./NAME for a new file named like host=...), "
    "sqlite:///RELATIVE/PATH, sqlite:////ABSOLUTE/PATH, postgresql://... or libpq's "
    "'host=... dbname=...' (default: the SQLite file in the user data folder).",
)
json_option = click.option("--json", "as_json", is_flag=True, is_eager=True, help="Print JSON for programs.")
overrides_option = click.option(
    "-c", "--config", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config value."
)


_Command = TypeVar("_Command", bound=Callable[..., None])


def errors_as_json(command: _Command) -> _Command:
    """A command whose fatal error, with ``--json``, is also printed on stdout as a JSON object
    (its ``code``, ``message`` and ``fix``), as ``memory run --json`` prints it; it still goes to
    stderr and sets the exit code as everywhere else."""
    from skillshelf.errors import SkillshelfError

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except SkillshelfError as exc:
            if kwargs.get("as_json"):
                echo_json(exc.to_dict())
            raise

    return run  # type: ignore[return-value]


def _now_ms() -> int:
    return int(time.time() * 1000)


def memory_settings(env: Env, overrides: Sequence[str] = ()) -> tuple[MemorySettings, tuple[Diagnostic, ...]]:
    """The ``[memory]`` settings, and the config's findings a user must hear of (a layer or a
    ``-c`` skipped, whose values the settings lack), printed at once on stderr as ``context``
    prints them; ``--json`` output carries them too, as ``problems``."""
    from skillshelf.diagnostics import Severity
    from skillshelf.memory.settings import read_memory_settings

    settings, found = read_memory_settings(env, overrides=overrides)
    findings = tuple(d for d in found if d.severity is not Severity.INFO)
    print_run_findings(findings)
    return settings, findings


def exit_if_skipped(findings: Sequence[Diagnostic]) -> None:
    """Exit 1 after the output when a config layer or a ``-c`` was skipped: the output is not
    the one the user's config asked for (as ``context`` does)."""
    from skillshelf.diagnostics import has_errors

    if has_errors(findings):
        raise SystemExit(1)


@click.command("status")
@db_option
@overrides_option
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True, help="Sessions listed.")
@json_option
@errors_as_json
def status(db: str | None, overrides: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Sessions and their states, stuck and stale leases, memories per scope, jobs and recent runs.

    A stuck lease is held by a worker on this machine that is gone; a stale one has had no
    heartbeat for longer than memory.lease_seconds, or has expired. `memory recover` (and the
    next `memory run`) frees both. A session whose transcript an agent's hook queued is queued:
    the next run extracts it without waiting for memory.min_idle_hours.

    Exit 1 when a config layer or a -c could not be read (it is reported, and left out).
    """
    from skillshelf.memory.inspect import memory_status
    from skillshelf.memory.queue import queued
    from skillshelf.memory.store import open_store

    env = Env.from_os()
    settings, findings = memory_settings(env, overrides)
    queue = queued(env.dirs.state, tidy=False)
    with open_store(db, data_dir=env.dirs.data, create=False, read_only=True) as store:
        data = memory_status(store, settings, now_ms=_now_ms(), limit=limit, queue=queue)
    if as_json:
        echo_json({**data, "problems": [d.to_dict() for d in findings]})
    else:
        _print_status(data)
    exit_if_skipped(findings)


def _print_status(data: dict[str, Any]) -> None:
    from rich.table import Table

    console = stdout_console()
    console.print(f"database: {literal(data['db'])}")
    states = ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in data["session_states"].items())
    console.print(f"sessions: {states or 'none'}")
    if data["queued"]:
        console.print(f"queued by the agents' hooks: {data['queued']} transcript(s), taken by the next run")
    if data["session_list"]:
        table = Table("session", "source", "state", "why")
        for row in data["session_list"]:
            table.add_row(literal(row["id"]), row["source"], row["state"], literal(row["reason"]))
        console.print(table)
    _print_leases(console, data)
    if data["scopes"]:
        scopes = Table("scope", "memories", "uses", "selected")
        for row in data["scopes"]:
            scopes.add_row(literal(row["scope"]), str(row["outputs"]), str(row["uses"]), str(row["selected"]))
        console.print(scopes)
    else:
        console.print("memories: none yet (`skillshelf memory run` distils finished sessions into them)")
    _print_other_scopes(console, data)
    for job in data["jobs"]:
        console.print(
            f"jobs {job['kind']} {job['status']}: {job['count']} ({job['live_leases']} live leases)"
        )
    for item in data["consolidation"]:
        dirty = (item["input_watermark"] or 0) > (item["last_success_watermark"] or 0)
        error = f"; last error: {item['last_error']}" if item["last_error"] else ""
        console.print(
            f"consolidation {item['scope']}: {item['status']}{' (new input waiting)' if dirty else ''}"
            f"{error}",
            markup=False,
        )


def _print_other_scopes(console: Any, data: dict[str, Any]) -> None:
    """The scopes left from before a switch of ``memory.scope``, and how to remove them."""
    other = data["other_scopes"]
    if not other:
        return
    count = sum(int(row["outputs"]) for row in other)
    names = ", ".join(str(row["scope"]) for row in other)
    console.print(
        f"other scopes: {count} memories in {len(other)} scope(s) that memory.scope = "
        f"{data['scope_setting']!r} does not write ({names}); kept on disk, but agents do not read them "
        "until memory.scope is switched back",
        markup=False,
    )
    console.print("  fix: `skillshelf memory prune --other-scopes` deletes them and empties their folders")


def _print_leases(console: Any, data: dict[str, Any]) -> None:
    stuck, stale = data["stuck_leases"], data["stale_leases"]
    console.print(f"leases: {len(data['leases'])} held, {stuck} stuck, {stale} stale")
    for lease in data["leases"]:
        if lease["state"] == "live":
            continue
        console.print(f"  {lease['state']} {lease['kind']} {lease['key']}: {lease['reason']}", markup=False)
    if stuck or stale:
        console.print("  fix: run `skillshelf memory recover` (the next `memory run` frees them too)")


@click.command("recover")
@db_option
@overrides_option
@json_option
@errors_as_json
def recover(db: str | None, overrides: tuple[str, ...], as_json: bool) -> None:
    """Free the leases of workers that are gone, so the next run takes their jobs at once.

    Freed: leases held by a process of this machine that has ended (stuck), and leases with no
    heartbeat for longer than memory.lease_seconds (at least twice the holder's heartbeat
    interval) or past their expiry (stale). Each freed job uses one of its retries: a worker
    that died (killed, out of memory) may have died of its transcript, and one that kills every
    worker must not be retried forever. A run stopped by Ctrl-C or SIGTERM hands its jobs back
    itself and uses none; a changed transcript gets its retries back.
    """
    from skillshelf.memory.control import recover_leases

    env = Env.from_os()
    settings, findings = memory_settings(env, overrides)
    result = recover_leases(env, settings, db=db, now_ms=_now_ms())
    if as_json:
        echo_json({**result.to_dict(), "problems": [d.to_dict() for d in findings]})
    else:
        click.echo(f"freed {len(result.freed)} lease(s); {len(result.live)} held by live workers")
        for verdict in result.freed:
            lease = verdict.lease
            click.echo(f"  {verdict.state} {lease.kind} {printable(lease.key)}: {verdict.reason}")
    exit_if_skipped(findings)


@click.command("reset")
@click.option(
    "--all-projects", is_flag=True, help="Reset every scope, not only the one memory.scope writes here."
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
@overrides_option
@json_option
@errors_as_json
def reset(all_projects: bool, yes: bool, db: str | None, overrides: tuple[str, ...], as_json: bool) -> None:
    """Delete extracted memories, their jobs (stuck ones too) and memory folders: those of the
    scope memory.scope writes here (this project's, or the global one), or all.

    Exit 1, deleting nothing, when a config layer or a -c could not be read (it is reported):
    the scope it would name is not known.
    """
    from skillshelf.diagnostics import has_errors
    from skillshelf.memory.control import reset_memories

    env = Env.from_os()
    settings, findings = memory_settings(env, overrides)
    if has_errors(findings):
        click.echo("memory reset: nothing deleted; fix the config first (see above)", err=True)
        raise SystemExit(1)
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError(
                "memory reset deletes memories and asks first, but there is no terminal to ask",
                code="ME017",
                hint="use --yes to confirm without a question",
            )
        what = "of every scope" if all_projects else _scope_words(settings.scope)
        click.confirm(f"Delete the memories {what}?", abort=True)
    result = reset_memories(env, db=db, all_scopes=all_projects, setting=settings.scope)
    if as_json:
        echo_json({**result.to_dict(), "problems": [d.to_dict() for d in findings]})
    else:
        click.echo(
            f"removed {result.rows} memory row(s) and {result.jobs} pending job(s), "
            f"emptied {len(result.folders)} folder(s)"
        )
        for folder in result.kept:
            click.echo(f"kept {printable(folder)}: another memory database consolidated it (ME053)")


def _scope_words(setting: str) -> str:
    return "of the global scope (every project's)" if setting == "global" else "of this project"
