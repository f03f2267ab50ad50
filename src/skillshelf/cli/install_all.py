"""``skillshelf install SOURCE --all``: the report of every skill found in the source."""

from __future__ import annotations

import sys

import click

from skillshelf.cli.output import echo_json, print_diagnostics, printable
from skillshelf.install.git import ProgressFn
from skillshelf.install.many import InstallAllResult, install_all

__all__ = ["install_every_skill"]

_AGENTS = {"codex": "Codex", "claude": "Claude Code"}


def install_every_skill(
    source: str,
    *,
    scope: str,
    target: str | None,
    force: bool,
    as_json: bool,
    progress: ProgressFn | None,
    dry_run: bool = False,
) -> None:
    """Install every skill in ``source`` and report each; exit 1 when one failed (the others
    are still installed)."""
    from skillshelf.env import Env

    result = install_all(
        source,
        env=Env.from_os(),
        scope=scope,  # type: ignore[arg-type]
        force=force,
        progress=progress,
        target=target,  # type: ignore[arg-type]
        dry_run=dry_run,
    )
    if as_json:
        echo_json(result)
    else:
        _report(result)
    if result.failed:
        sys.exit(1)


def _report(result: InstallAllResult) -> None:
    print_diagnostics(dict.fromkeys(d for item in result.installed for d in item.diagnostics))
    at = f" at {result.commit[:12]}" if result.commit else ""
    count = len(result.installed)
    verb = "Would install" if result.dry_run else "Installed"
    if count:
        click.echo(printable(f"{verb} {count} skill{'s' if count != 1 else ''} from {result.source}{at}"))
    for item in result.installed:
        replaces = " (replaces the one there)" if item.replaced else ""
        click.echo(printable(f"  {item.entry.skill_name}{replaces} -> {item.path}"))
        if item.kept is not None:
            click.echo(printable(f"    the folder it replaced is kept in {item.kept}"))
    if result.installed:
        agents = result.installed[0].entry.agents
        seen = " and ".join(_AGENTS[a] for a in agents)
        click.echo(f"  read by {seen or 'skillshelf only (not by Codex or Claude Code)'}")
    present = [item.name for item in result.not_installed if item.status == "present"]
    if present:
        lead = (
            "Already installed"
            if count or result.failed
            else f"Nothing new in {result.source}: already installed"
        )
        click.echo(
            printable(
                f"{lead} from it ({len(present)}): {', '.join(present)}; `skillshelf update` updates them"
            )
        )
    if result.failed:
        click.echo(f"Not installed ({len(result.failed)}):", err=True)
        for failed in result.failed:  # each one's findings are in --json; `validate` lists them
            click.echo(printable(f"  {failed.folder}: error {failed.code}: {failed.message}"), err=True)
            if failed.fix:
                click.echo(printable(f"    fix: {failed.fix}"), err=True)
        done = "the others were installed" if result.installed else "nothing was installed"
        if result.dry_run:
            done = "the others would be installed" if result.installed else "nothing would be installed"
        click.echo(f"  {done}; fix these and run the same command again", err=True)
    if result.dry_run:
        click.echo("(a dry run: nothing was written)")
    if result.search_cut:
        click.echo(
            "warning: the search for SKILL.md files stopped at its depth or folder limit, so skills "
            "deeper in the source were not looked at; install those with SOURCE#subfolder",
            err=True,
        )
