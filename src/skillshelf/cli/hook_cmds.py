"""``skillshelf setup codex|claude`` and ``skillshelf hook EVENT``: thin commands over
:mod:`skillshelf.hooks`."""

from __future__ import annotations

from typing import Any

import click

from skillshelf.cli.hook_answer import EVENTS as _EVENTS
from skillshelf.env import Env

__all__ = ["hook", "setup"]


@click.command("setup")
@click.argument("agent", type=click.Choice(["codex", "claude"]), required=False)
@click.option(
    "--scope",
    type=click.Choice(["project", "user"]),
    default="project",
    show_default=True,
    help="project: this repository's agent folder; user: your own agent configuration.",
)
@click.option("--remove", is_flag=True, help="Take skillshelf's entries out again.")
@click.option("--dry-run", is_flag=True, help="Show the changes; write nothing.")
@click.option("--mcp", is_flag=True, help="Also add skillshelf's MCP server (`skillshelf serve`).")
@click.option(
    "--status", is_flag=True, help="Show what is set up where, for both agents, and whether it runs."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
def setup(
    agent: str | None, scope: str, remove: bool, dry_run: bool, mcp: bool, status: bool, as_json: bool
) -> None:
    """Set skillshelf up inside Codex or Claude Code through their hooks.

    Every prompt then gets the skills that fit it (with their descriptions) and the memories
    that match it; finished sessions feed `skillshelf memory run`; skills the agent uses are
    counted for `skillshelf stats`. Only skillshelf's entries change in the agent's files,
    and the diff is shown; `--remove` gives the files back exactly as they were.
    """
    from skillshelf.errors import UsageError
    from skillshelf.hooks.agents import skillshelf_command

    changing = [
        name for name, given in (("--remove", remove), ("--dry-run", dry_run), ("--mcp", mcp)) if given
    ]
    if status and changing:
        raise UsageError(
            f"--status only shows what is set up; it cannot be used with {', '.join(changing)}",
            hint="run `skillshelf setup --status` alone, then the change without --status",
            code="HK140",
        )
    env = Env.from_os()
    if status:
        _print_status(env, skillshelf_command(env), as_json)
        return
    if agent is None:
        raise UsageError(
            "name the agent to set up", hint="run `skillshelf setup codex` or `skillshelf setup claude`"
        )
    from skillshelf.hooks.setup import apply_setup, plan_setup

    state = env.dirs.state
    plan = plan_setup(
        env,
        agent,  # type: ignore[arg-type]
        scope,  # type: ignore[arg-type]
        command=skillshelf_command(env),
        state_dir=state,
        remove=remove,
        mcp=mcp,
    )
    if not dry_run:
        apply_setup(plan, state_dir=state)
    if plan.changed and not (dry_run or remove):
        _warm(env)
    if as_json:
        from skillshelf.cli.output import echo_json

        echo_json({**plan.to_dict(), "dry_run": dry_run})
        return
    _print_plan(plan, dry_run)


def _warm(env: Env) -> None:
    """Build the search index now, so that the agent's first prompt finds it ready."""
    from skillshelf.errors import SkillshelfError
    from skillshelf.hooks.turn import warm_index

    try:
        warm_index(env)
    except SkillshelfError as exc:
        click.echo(
            f"warning: the search index was not built now ({exc.code}: {exc.message}); "
            "the first prompt builds it",
            err=True,
        )


def _print_plan(plan: Any, dry_run: bool) -> None:
    for change in plan.changed:
        click.echo(change.diff(), nl=False)
    name = "Codex" if plan.agent == "codex" else "Claude Code"
    if not plan.changed:
        state = "not set up" if plan.remove else "already set up"
        click.echo(f"skillshelf is {state} in {name} ({plan.scope} scope); nothing to change.")
    else:
        verb = (
            ("would take out" if plan.remove else "would set up")
            if dry_run
            else ("took out" if plan.remove else "set up")
        )
        files = ", ".join(str(c.path) for c in plan.changed)
        click.echo(f"{verb} skillshelf in {name} ({plan.scope} scope): {files}")
    for note in plan.notes:
        click.echo(f"note: {note}", err=True)


def _print_status(env: Env, command: list[str], as_json: bool) -> None:
    from skillshelf.cli.output import printable
    from skillshelf.hooks.status import config_problems, setup_status

    rows = setup_status(env, command=command)
    server = _server_status(env)
    logs = _logs_status(env)
    config = config_problems(env)
    if as_json:
        from skillshelf.cli.output import echo_json

        echo_json(
            {
                "status": [r.to_dict() for r in rows],
                "hook_server": server,
                "logs": logs,
                "config_problems": [d.to_dict() for d in config],
            }
        )
        return
    for row in rows:
        name = "Codex" if row.agent == "codex" else "Claude Code"
        if not row.installed:
            click.echo(f"{name} ({row.scope}): not set up ({row.hooks_file})")
            for reason in row.reasons:
                click.echo(f"  - {printable(reason)}")
            continue
        runs = row.verdict
        current = "" if row.current or not row.events else " (out of date: run setup again)"
        mcp = f"; MCP server in {row.mcp_file}" if row.mcp else ""
        events = [f"{e} (your own)" if e in row.users_events else e for e in row.events]
        files = " and ".join(map(str, row.hooks_files)) or row.hooks_file
        click.echo(
            f"{name} ({row.scope}): hooks {', '.join(events) or 'none'} in {files}{current}{mcp}; {runs}"
        )
        for reason in row.reasons:
            click.echo(f"  - {printable(reason)}")
    click.echo(_server_line(server))
    for line in _logs_lines(logs):
        click.echo(line)
    _print_config_problems(config)


def _print_config_problems(found: Any) -> None:
    """The errors of skillshelf's config that the hooks meet on every call without logging them."""
    from skillshelf.cli.output import printable

    if found:
        click.echo("skillshelf config problems the hooks meet on every call (not in the hook log):")
    for problem in found:
        for line in problem.format().splitlines():
            click.echo(f"  {printable(line)}")


def _logs_status(env: Env) -> dict[str, Any]:
    """Where the hook logs are, and the newest problem in each."""
    from skillshelf.hooks.hooklog import jobs_log_path, log_path
    from skillshelf.hooks.status import last_problems

    last = last_problems(env.dirs.state)
    return {
        "hooks": str(log_path(env.dirs.state)),
        "jobs": str(jobs_log_path(env.dirs.state)),
        "last_hook_problem": last.hook_call,
        "last_job_error": last.job_error,
    }


def _logs_lines(logs: dict[str, Any]) -> list[str]:
    from skillshelf.cli.output import printable

    lines = [
        f"logs: {printable(logs['hooks'])} (each hook call), {printable(logs['jobs'])} (background jobs)"
    ]
    for key, what in (
        ("last_hook_problem", "last hook problem"),
        ("last_job_error", "last background-job error"),
    ):
        lines.append(f"  {what}: {printable(logs[key][:300]) if logs[key] else 'none'}")
    return lines


def _server_status(env: Env) -> dict[str, Any]:
    """Whether the hook server runs, or why it will not."""
    from skillshelf.cli.hook_server_cmds import ask_server_status
    from skillshelf.config import load_config
    from skillshelf.errors import SkillshelfError
    from skillshelf.hooks.address import server_address, server_off
    from skillshelf.hooks.settings import HookSettings

    try:
        settings = HookSettings.from_config(load_config(env))
    except SkillshelfError:  # config_problems names it; the hooks fail before any server
        return {"state": "off"}
    if server_off(env.environ) or not settings.server:
        return {"state": "off"}
    if server_address(env.dirs.state, env.environ) is None:
        return {"state": "unavailable"}
    running = ask_server_status()
    return {"state": "running", **running} if running else {"state": "stopped"}


def _server_line(server: dict[str, Any]) -> str:
    state = server["state"]
    if state == "running":
        return f"hook server: running (pid {server['pid']}, {server['calls']} hooks answered)"
    return {
        "off": "hook server: off ([hooks] server = false or SKILLSHELF_HOOK_SERVER=0)",
        "unavailable": "hook server: unavailable (no safe socket path; hooks work without it)",
    }.get(state, "hook server: not running (the next prompt starts it)")


@click.command("hook")
@click.argument("event", metavar=f"[{'|'.join(_EVENTS)}]")
@click.option("--agent", type=click.Choice(["codex", "claude"]), default="claude", show_default=True)
@click.option(
    "--deadline",
    metavar="SECONDS",
    envvar="SKILLSHELF_HOOK_DEADLINE",
    default=None,
    help="Seconds before answering empty (0: none; default 5, 2 for Stop and SessionEnd). "
    "Kept under the agent's hook timeout (10 s as set up).",
)
def hook(event: str, agent: str, deadline: str | None) -> None:
    """Answer one agent hook call: the agent's JSON on stdin, its answer on stdout.

    Written into the agents' configuration by `skillshelf setup`; whatever goes wrong, it
    answers nothing and exits 0 (the problem goes to skillshelf's hook log, a command line it
    cannot read to stderr).
    """
    from skillshelf.cli.hook_answer import answer_hook

    answer_hook(event, agent, _seconds(deadline))


def _seconds(raw: str | None) -> float | None:
    """``--deadline`` (or ``SKILLSHELF_HOOK_DEADLINE``) in seconds. A value that is not a number
    of at least 0 is reported on stderr and the event's own deadline is used: a mistyped
    variable in the agent's environment must not cost every prompt its answer."""
    import math

    if raw is None or not raw.strip():
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if math.isfinite(seconds) and seconds >= 0:
        return seconds
    from skillshelf.cli.output import shown

    click.echo(
        f"skillshelf: warning SS002: the hook deadline {shown(raw)!r} is not a number of seconds; "
        "the event's own deadline is used",
        err=True,
    )
    click.echo("  fix: set --deadline or SKILLSHELF_HOOK_DEADLINE to seconds, such as 5 (0: none)", err=True)
    return None
