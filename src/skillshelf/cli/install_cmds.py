"""``skillshelf install | update | remove | deps``: thin commands over :mod:`skillshelf.install`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from skillshelf.cli.output import (
    echo_json,
    literal,
    print_diagnostics,
    printable,
    root_options,
    stdout_console,
)
from skillshelf.env import Env
from skillshelf.install.git import ProgressFn

__all__ = ["deps", "install", "remove", "update"]

_SCOPE = click.Choice(["user", "project"])


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[ProgressFn | None]:
    """A rich progress bar on stderr driven by ``(stage, fraction)`` callbacks."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn

    from skillshelf.cli.output import stderr_console

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        console=stderr_console(),
        transient=True,
    ) as bar:
        task = bar.add_task("Starting", total=None)

        def report(stage: str, fraction: float | None) -> None:
            bar.update(
                task, description=stage, total=None if fraction is None else 1.0, completed=fraction or 0
            )

        yield report


@click.command("install")
@click.argument("source")
@click.option(
    "--scope",
    type=_SCOPE,
    default="user",
    show_default=True,
    help="user: your own agent folders (~/.agents/skills, ~/.claude/skills); project: this repository's.",
)
@click.option(
    "--for",
    "target",
    type=click.Choice(["codex", "claude", "all", "skillshelf"]),
    default=None,
    help="Which agents read it: codex (.agents/skills), claude (.claude/skills), all (both, one copy "
    "linked), skillshelf (its own data folder). Default: install.agents in the config, else the "
    "agents found on this machine.",
)
@click.option("--name", help="Install under this folder name instead of the skill's name.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace a skill of the same name that is already there (one changed by hand, or not installed "
    "by skillshelf, is kept in the data folder's replaced-skills).",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Install every skill in SOURCE (a repository or folder that holds several), each on its own: "
    "one that fails is reported and the others are installed.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def install(
    source: str, scope: str, target: str | None, name: str | None, force: bool, every: bool, as_json: bool
) -> None:
    """Install a skill from SOURCE: a folder, a .zip/.skill or .tar/.tar.gz/.tgz/.tar.bz2/.tar.xz
    archive (a path or an http(s) URL), or a git URL[@ref][#subdir] (gh:owner/repo for GitHub).

    With --all, every skill in SOURCE; exit 1 when one of them could not be installed."""
    from skillshelf.install.installer import SkillValidationError, install_skill

    if every:
        if name is not None:
            from skillshelf.errors import UsageError

            raise UsageError(
                "--name names one skill, so it cannot be used with --all",
                hint="drop --name, or install one skill with SOURCE#subfolder --name NAME",
                code="IS002",
            )
        from skillshelf.cli.install_all import install_every_skill

        with _progress(not as_json) as progress:
            install_every_skill(
                source, scope=scope, target=target, force=force, as_json=as_json, progress=progress
            )
        return
    try:
        with _progress(not as_json) as progress:
            result = install_skill(
                source,
                env=Env.from_os(),
                scope=scope,  # type: ignore[arg-type]
                name=name,
                force=force,
                progress=progress,
                target=target,  # type: ignore[arg-type]
            )
    except SkillValidationError as exc:
        if as_json:
            echo_json({**exc.to_dict(), "diagnostics": [d.to_dict() for d in exc.diagnostics]})
        else:
            print_diagnostics(exc.diagnostics)
        raise
    if as_json:
        echo_json(result)
        return
    print_diagnostics(result.diagnostics)
    entry = result.entry
    at = f" at {entry.commit[:12]}" if entry.commit else ""
    verb = "Replaced" if result.replaced else "Installed"
    click.echo(
        printable(
            f"{verb} {entry.skill_name} ({result.files} files) from {entry.source}{at}\n  -> {result.path}"
        )
    )
    for link in entry.links:
        click.echo(f"  -> {link} (link)")
    if result.kept is not None:
        click.echo(printable(f"  the folder it replaced is kept in {result.kept}"))
    seen = " and ".join({"codex": "Codex", "claude": "Claude Code"}[a] for a in entry.agents)
    click.echo(f"  read by {seen or 'skillshelf only (not by Codex or Claude Code)'}")


@click.command("update")
@click.argument("names", nargs=-1)
@click.option("--scope", type=_SCOPE, default=None, help="Only skills installed in this scope.")
@click.option(
    "--force",
    is_flag=True,
    help="Also update skills that were changed locally (the changed copy is kept in the data folder's "
    "replaced-skills).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Only say which skills have an update (status `available`); change nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def update(names: tuple[str, ...], scope: str | None, force: bool, check: bool, as_json: bool) -> None:
    """Update installed skills (all, or the NAMES given) from their sources.

    Exit 1 when a skill could not be checked or updated (the others still are).
    """
    from skillshelf.install.manage import installed_roots, link_diagnostics, lock_diagnostics, update_skills

    env = Env.from_os()
    problems = (
        *lock_diagnostics(installed_roots(env, scope)),  # type: ignore[arg-type]
        *link_diagnostics(env, scope),  # type: ignore[arg-type]
    )
    print_diagnostics(problems)
    with _progress(not as_json) as progress, _not_installed_explained(env, names):
        results = update_skills(names, env=env, scope=scope, force=force, check=check, progress=progress)  # type: ignore[arg-type]
    if as_json:
        echo_json({"results": [r.to_dict() for r in results], "diagnostics": [d.to_dict() for d in problems]})
    elif not results:
        click.echo("No skills installed by skillshelf.")
    else:
        _print_updates(results)
    if any(r.status == "failed" for r in results):
        sys.exit(1)


@contextlib.contextmanager
def _not_installed_explained(env: Env, names: tuple[str, ...]) -> Iterator[None]:
    """An ``IS404`` for a name that is a skill here, but not one skillshelf installed, says where
    that skill is and how to remove or hide it instead."""
    from skillshelf.errors import NotFoundError

    try:
        yield
    except NotFoundError as exc:
        hint = _elsewhere_hint(env, names) if exc.code == "IS404" else None
        if hint is None:
            raise
        raise NotFoundError(exc.message, hint=hint, code=exc.code) from None


def _elsewhere_hint(env: Env, names: tuple[str, ...]) -> str | None:
    from skillshelf.errors import SkillshelfError
    from skillshelf.skills.model import RootOrigin
    from skillshelf.workspace import Workspace

    try:
        found = [s for s in Workspace.open(env).discovery.skills if s.name in names]
    except SkillshelfError:
        return None  # the IS404 itself is the error to report
    if not found:
        return None
    builtin = RootOrigin.BUILTIN
    where = "; ".join(
        f"{s.name} is built into skillshelf" if s.origin is builtin else f"{s.name} is at {s.folder}"
        for s in found
    )
    return (
        f"{where}; skillshelf updates and removes only the skills it installed. "
        f"`skillshelf disable {found[0].name}` hides a skill without deleting it"
    )


#: Up to this many up-to-date skills are rows of the ``update`` table; more are one summary line.
UP_TO_DATE_ROWS = 10


def _print_updates(results: Any) -> None:
    """A row per skill; when many are up to date, those are a count below the others' rows."""
    from rich.table import Table

    colours = {
        "updated": "green",
        "available": "cyan",
        "up-to-date": "dim",
        "skipped": "yellow",
        "failed": "red",
    }
    quiet = [r for r in results if r.status == "up-to-date"]
    folded = len(quiet) > UP_TO_DATE_ROWS
    rows = [r for r in results if not (folded and r.status == "up-to-date")]
    if rows:
        table = Table(show_header=True, header_style="bold")
        for column in ("skill", "scope", "status", "detail"):
            table.add_column(column)
        for r in rows:
            table.add_row(literal(r.name), r.scope, f"[{colours[r.status]}]{r.status}[/]", literal(r.message))
        stdout_console().print(table)
    if folded:
        click.echo(f"{len(quiet)} skills are up to date (--json lists each one)")


@click.command("remove")
@click.argument("name")
@click.option("--scope", type=_SCOPE, default=None, help="Where it is installed, when both scopes have it.")
@click.option(
    "--force",
    is_flag=True,
    help="Remove it even if it was changed locally (the changed copy is kept in the data folder's "
    "replaced-skills).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def remove(name: str, scope: str | None, force: bool, as_json: bool) -> None:
    """Remove a skill that `skillshelf install` installed."""
    from skillshelf.install.manage import installed_roots, link_diagnostics, lock_diagnostics, remove_skill

    env = Env.from_os()
    print_diagnostics(lock_diagnostics(installed_roots(env, scope)))  # type: ignore[arg-type]
    print_diagnostics(link_diagnostics(env, scope))  # type: ignore[arg-type]
    with _not_installed_explained(env, (name,)):
        result = remove_skill(name, env=env, scope=scope, force=force)  # type: ignore[arg-type]
    if as_json:
        echo_json(result)
    else:
        click.echo(printable(f"Removed {result.name} ({result.scope}) from {result.path}"))
        if result.kept is not None:
            click.echo(printable(f"  your changed copy is kept in {result.kept}"))


@click.command("deps")
@click.argument("name", required=False)
@click.option("--write", is_flag=True, help="Add the missing servers to skillshelf's user config.")
@click.option(
    "--allow-untrusted",
    is_flag=True,
    help="With --write, also add servers of skills from a project you have not trusted.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@root_options
def deps(
    name: str | None,
    write: bool,
    allow_untrusted: bool,
    as_json: bool,
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
) -> None:
    """List the MCP servers skills declare and whether they are configured.

    Servers of skills from a project you have not trusted are marked, and --write leaves them
    out unless --allow-untrusted is given (they run commands from someone else's repository).
    """
    from skillshelf.install.deps import deps_report, write_missing
    from skillshelf.workspace import Workspace, WorkspaceOptions

    env = Env.from_os()
    options = WorkspaceOptions(
        extra_roots=tuple(p.absolute() for p in roots), include_builtin=not no_builtin, use_cache=not no_cache
    )
    report = deps_report(
        Workspace.open(env, options).discovery.skills,
        user_config=env.dirs.config / "config.toml",
        codex_config=env.codex_home / "config.toml",
        name=name,
    )
    if write:
        report = write_missing(report, allow_untrusted=allow_untrusted)
    if as_json:
        echo_json(report)
    else:
        print_diagnostics(report.diagnostics)
        _print_deps(report, write=write)
    if report.missing or any(e.status in ("conflict", "invalid") for e in report.entries):
        sys.exit(1)


def _print_deps(report: Any, *, write: bool) -> None:
    if not report.entries:
        click.echo("No skill declares an MCP server.")
        return
    from rich.table import Table

    colours = {"configured": "green", "missing": "red", "conflict": "yellow", "invalid": "red"}
    table = Table(show_header=True, header_style="bold")
    for column in ("skill", "server", "transport", "endpoint", "status"):
        table.add_column(column)
    for e in report.entries:
        dep = e.dependency
        where = f" ({', '.join(e.configured_as)})" if e.configured_as else ""
        status = f"[{colours[e.status]}]{e.status}[/]{literal(where)}"
        if not dep.trusted:
            status += " [yellow](untrusted project)[/]"
        endpoint = dep.url or dep.command or "-"
        table.add_row(
            literal(dep.skill), literal(dep.name), literal(dep.transport), literal(endpoint), status
        )
    stdout_console().print(table)
    if report.written:
        click.echo(f"Added {', '.join(report.written)} to {report.config_file}")
    elif report.missing and not write:
        untrusted = sum(1 for e in report.missing if not e.dependency.trusted)
        how = (
            f" ({untrusted} from a project you have not trusted: `skillshelf trust` it first, or add "
            "--allow-untrusted)"
            if untrusted
            else ""
        )
        click.echo(
            f"{len(report.missing)} missing; `skillshelf deps --write` adds them to {report.config_file}{how}"
        )
