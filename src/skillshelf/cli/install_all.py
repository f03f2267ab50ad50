"""``skillshelf install SOURCE --all``: the report of every skill found in the source."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence

import click

from skillshelf.cli.output import echo_json, print_diagnostics, printable
from skillshelf.diagnostics import Diagnostic
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
    findings: Sequence[Diagnostic] = (),
) -> None:
    """Install every skill in ``source`` and report each; exit 1 when one failed (the others
    are still installed). ``findings``: the config's, already printed on stderr; ``--json``
    carries them too, as ``diagnostics`` (each skill's own are in its entry)."""
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
        echo_json({**result.to_dict(), "diagnostics": [d.to_dict() for d in findings]})
    else:
        _report(result)
    if result.failed:
        sys.exit(1)


#: Up to this many installed skills (or findings about them) are a line each; more are folded
#: into a list of names (or a count per code), since a pack can hold hundreds.
FOLD_OVER = 20


def _report(result: InstallAllResult) -> None:
    present = [item for item in result.not_installed if item.status == "present"]
    _print_findings(
        [d for item in result.installed for d in item.diagnostics]
        + [d for p in present for d in p.diagnostics]
    )
    at = f" at {result.commit[:12]}" if result.commit else ""
    count = len(result.installed)
    verb = "Would install" if result.dry_run else "Installed"
    if count:
        click.echo(printable(f"{verb} {count} skill{'s' if count != 1 else ''} from {result.source}{at}"))
    _print_installed(result)
    if present:
        lead = (
            "Already installed"
            if count or result.failed
            else f"Nothing new in {result.source}: already installed"
        )
        click.echo(
            printable(
                f"{lead} from it ({len(present)}): {', '.join(item.name for item in present)}; "
                "`skillshelf update` updates them"
            )
        )
    if result.failed:
        _print_failed(result)
    if result.dry_run:
        click.echo("(a dry run: nothing was written)")
    if result.search_cut:
        click.echo(
            "warning: the search for SKILL.md files stopped at its depth or folder limit, so skills "
            "deeper in the source were not looked at; install those with SOURCE#subfolder",
            err=True,
        )


def _print_findings(findings: list[Diagnostic]) -> None:
    """Each finding about the installed skills, or past :data:`FOLD_OVER` a count per code."""
    unique = list(dict.fromkeys(findings))
    if len(unique) <= FOLD_OVER:
        print_diagnostics(unique)
        return
    counts = Counter(f"{d.severity.value} {d.code}" for d in unique)
    listed = ", ".join(f"{what} x{n}" for what, n in counts.most_common())
    click.echo(
        f"{len(unique)} findings in the installed skills ({listed}); `skillshelf validate` lists each "
        "with its fix",
        err=True,
    )


def _print_installed(result: InstallAllResult) -> None:
    """A line per skill, or past :data:`FOLD_OVER` their names on one line; a skill that replaced
    another, and where the replaced folder was kept, always on its own."""
    installed = result.installed
    folded = len(installed) > FOLD_OVER
    for item in installed:
        if folded and not item.replaced:
            continue
        replaces = " (replaces the one there)" if item.replaced else ""
        click.echo(printable(f"  {item.entry.skill_name}{replaces} -> {item.path}"))
        if item.kept is not None:
            click.echo(printable(f"    the folder it replaced is kept in {item.kept}"))
    if folded:
        roots = ", ".join(dict.fromkeys(str(item.path.parent) for item in installed))
        names = ", ".join(item.entry.skill_name for item in installed if not item.replaced)
        click.echo(printable(f"  into {roots}: {names}"))
    if installed:
        agents = installed[0].entry.agents
        seen = " and ".join(_AGENTS[a] for a in agents)
        click.echo(f"  read by {seen or 'skillshelf only (not by Codex or Claude Code)'}")


def _print_failed(result: InstallAllResult) -> None:
    """Each skill that failed; those failing with the same words are one entry with their folders."""
    click.echo(f"Not installed ({len(result.failed)}):", err=True)
    same: dict[tuple[str, str, str], list[str]] = {}
    for failed in result.failed:  # each one's findings are in --json; `validate` lists them
        same.setdefault((failed.code, failed.message, failed.fix), []).append(failed.folder)
    for (code, message, fix), folders in same.items():
        if len(folders) == 1:
            click.echo(printable(f"  {folders[0]}: error {code}: {message}"), err=True)
        else:
            click.echo(printable(f"  {len(folders)} skills: error {code}: {message}"), err=True)
            click.echo(printable(f"    {', '.join(folders)}"), err=True)
        if fix:
            click.echo(printable(f"    fix: {fix}"), err=True)
    done = "the others were installed" if result.installed else "nothing was installed"
    if result.dry_run:
        done = "the others would be installed" if result.installed else "nothing would be installed"
    click.echo(f"  {done}; fix these and run the same command again", err=True)
