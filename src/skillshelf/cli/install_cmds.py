"""``skillshelf install | deps``: thin commands over :mod:`skillshelf.install`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillshelf.cli.output import (
    echo_json,
    literal,
    print_diagnostics,
    printable,
    root_options,
    stdout_console,
)
from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.install.git import ProgressFn

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.install.installer import InstallResult

__all__ = ["AGENTS", "SCOPE", "deps", "install", "install_progress", "unread_config_files"]

SCOPE = click.Choice(["user", "project"])  # where a skill is installed
AGENTS = click.Choice(["codex", "claude", "all", "skillshelf"])  # whose skills folder (`--for`)


@contextlib.contextmanager
def install_progress(enabled: bool) -> Iterator[ProgressFn | None]:
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
    type=SCOPE,
    default=None,
    help="user: your own agent folders (~/.agents/skills, ~/.claude/skills); project: this repository's. "
    "Default: install.scope in the config, else user.",
)
@click.option(
    "--for",
    "target",
    type=AGENTS,
    default=None,
    help="Which agents read it: codex (.agents/skills), claude (.claude/skills), all (both, one copy "
    "linked), skillshelf (its own data folder). Default: install.agents in the config, else the "
    "agents found on this machine.",
)
@click.option("--name", help="Install under this folder name instead of the skill's name.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace a skill of the same name that is already there, and with --for all a folder in the place "
    "of its Claude Code link (one changed by hand, or not installed by skillshelf, is kept in the data "
    "folder's replaced-skills).",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Install every skill in SOURCE (a repository or folder that holds several), each on its own: "
    "one that fails is reported and the others are installed.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Fetch and check everything, say what would be installed where, and write nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def install(
    source: str,
    scope: str | None,
    target: str | None,
    name: str | None,
    force: bool,
    every: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Install a skill from SOURCE: a folder, a .zip/.skill or .tar/.tar.gz/.tgz/.tar.bz2/.tar.xz
    archive (a path or an http(s) URL), or a git URL[@ref][#subdir] (gh:owner/repo for GitHub;
    a folder's page on GitHub or GitLab works too).

    With --all, every skill in SOURCE; exit 1 when one of them could not be installed. The
    source is then a pack: `update` installs the skills it gains, `remove --pack SOURCE` removes
    them all."""
    from skillshelf.errors import SkillshelfError
    from skillshelf.install.installer import SkillValidationError, install_skill
    from skillshelf.install.taken import AlreadyInstalledError

    try:
        _check_name_option(name, every=every)
        env = Env.from_os()
        scope, findings = _scope_and_findings(env, scope, target)
        if every:
            from skillshelf.cli.install_all import install_every_skill

            with install_progress(not as_json) as progress:
                install_every_skill(
                    source,
                    scope=scope,
                    target=target,
                    force=force,
                    as_json=as_json,
                    progress=progress,
                    dry_run=dry_run,
                    findings=findings,
                )
            return
        with install_progress(not as_json) as progress:
            result = install_skill(
                source,
                env=env,
                scope=scope,  # type: ignore[arg-type]
                name=name,
                force=force,
                progress=progress,
                target=target,  # type: ignore[arg-type]
                dry_run=dry_run,
            )
    except SkillValidationError as exc:
        if as_json:
            echo_json({**exc.to_dict(), "diagnostics": [d.to_dict() for d in exc.diagnostics]})
        else:
            print_diagnostics(exc.diagnostics)
        raise
    except AlreadyInstalledError as exc:  # the same skill, from the same place: nothing to do
        _print_already_installed(exc, as_json=as_json)
        return
    except SkillshelfError as exc:
        if as_json:
            echo_json(exc.to_dict())
        raise
    if as_json:  # the config's findings were printed on stderr too: a program reads them here
        echo_json(
            {**result.to_dict(), "diagnostics": [d.to_dict() for d in (*findings, *result.diagnostics)]}
        )
    else:
        _print_installed(result)


def _print_installed(result: InstallResult) -> None:
    """What ``install`` did, for people."""
    print_diagnostics(result.diagnostics)
    entry = result.entry
    at = f" at {entry.commit[:12]}" if entry.commit else ""
    verb = "Replaced" if result.replaced else "Installed"
    files = f" ({result.files} files)"
    if result.dry_run:
        verb, files = "Would replace" if result.replaced else "Would install", ""
    click.echo(printable(f"{verb} {entry.skill_name}{files} from {entry.source}{at}\n  -> {result.path}"))
    for link in entry.links:
        click.echo(f"  -> {link} (link)")
    if result.kept is not None:
        click.echo(printable(f"  the folder it replaced is kept in {result.kept}"))
    seen = " and ".join({"codex": "Codex", "claude": "Claude Code"}[a] for a in entry.agents)
    click.echo(f"  read by {seen or 'skillshelf only (not by Codex or Claude Code)'}")
    if result.dry_run:
        click.echo("  (a dry run: nothing was written)")


def _print_already_installed(exc: Any, *, as_json: bool) -> None:
    """Say that the skill is installed already, from this same source (an ``AlreadyInstalledError``)."""
    if as_json:
        echo_json(
            {
                "name": exc.target.name,
                "already_installed": True,
                "source_changed": exc.source_changed,
                "skill_name": exc.entry.skill_name,
                "path": str(exc.target),
                "lock": exc.entry.to_dict(),
                "diagnostics": [d.to_dict() for d in exc.diagnostics],
            }
        )
        return
    print_diagnostics(exc.diagnostics)
    click.echo(printable(f"{exc.message}\n  ({exc.hint})"))


def _check_name_option(name: str | None, *, every: bool) -> None:
    """Refuse an empty ``--name`` (``IS003``) and ``--name`` with ``--all`` (``IS002``)."""
    from skillshelf.errors import UsageError

    if name == "":
        raise UsageError(
            "--name is empty", hint="give the folder name to install under, or leave --name out", code="IS003"
        )
    if every and name is not None:
        raise UsageError(
            "--name names one skill, so it cannot be used with --all",
            hint="drop --name, or install one skill with SOURCE#subfolder --name NAME",
            code="IS002",
        )


def _scope_and_findings(env: Env, scope: str | None, target: str | None) -> tuple[str, list[Diagnostic]]:
    """The scope to install in: ``--scope``, else ``install.scope`` from the config, else user
    (:func:`~skillshelf.install.targets.default_scope`), and the findings of the config files
    skipped and of the ``[install]`` keys dropped (a wrong value, ``CF102``: its default applies),
    which it prints on stderr."""
    from skillshelf.config import load_config
    from skillshelf.install.targets import default_scope

    config = load_config(env)
    dropped = [d for d in config.diagnostics if d.code == "CF102" and (d.field or "").startswith("install.")]
    findings = [*unread_config_files(env, config), *dropped]
    print_diagnostics(findings)
    return scope or default_scope(config.get("install.scope"), target), findings


def unread_config_files(env: Env, config: Config | None = None) -> list[Diagnostic]:
    """The findings of the config files skipped because they cannot be read or parsed (``CF100``,
    ``CF101``): install reads its requirements, its default ``--for`` and ``--scope`` from them
    (``config``: the loaded config, else loaded here)."""
    from skillshelf.config import load_config

    config = load_config(env) if config is None else config
    return [d for layer in config.layers if layer.exists and not layer.loaded for d in layer.diagnostics]


@click.command("deps")
@click.argument("name", required=False)
@click.option(
    "--write",
    is_flag=True,
    help="Add the missing servers to Codex's config.toml ($CODEX_HOME/config.toml), where Codex reads them.",
)
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
    """List the MCP servers skills declare and whether Codex has them configured.

    Skills declare them in agents/openai.yaml, Codex's file; a server is configured when Codex's
    config.toml has one with the same endpoint. Claude Code keeps its own list: the report gives
    the `claude mcp add` line of each server (`claude_add` in --json).

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
        Workspace.open(env, options).check_withheld().discovery.skills,
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
        _print_deps(report, write=write, name=name)
    if report.missing or any(e.status in ("conflict", "invalid") for e in report.entries):
        sys.exit(1)


def _print_deps(report: Any, *, write: bool, name: str | None) -> None:
    if not report.entries:
        click.echo(
            printable(f"{name} declares no MCP server.") if name else "No skill declares an MCP server."
        )
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
    for e in report.entries:
        if e.note:
            click.echo(printable(f"{e.dependency.name}: {e.note}"))
    if report.written:
        click.echo(
            f"Added {', '.join(report.written)} to {report.config_file} "
            "(Codex's config: its next session starts them)"
        )
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
    _print_claude_lines(report)


def _print_claude_lines(report: Any) -> None:
    """The ``claude mcp add`` line of each usable server: Claude Code reads neither the skill's
    agents/openai.yaml nor Codex's config."""
    lines = dict.fromkeys(
        e.to_dict()["claude_add"]
        for e in report.entries
        if e.status in ("configured", "missing") and e.dependency.trusted
    )
    lines.pop(None, None)
    if lines:
        click.echo("For Claude Code, which reads neither file, add them with:")
        for line in lines:
            click.echo(printable(f"  {line}"))
