"""`skillshelf list`, `validate` and `catalog`: the skills engine on the command line (`load` is
:mod:`skillshelf.cli.load_cmd`).

Thin commands: parse the arguments, make one library call, print. Tables for people, ``--json``
for programs; what the model would get goes to stdout, notes for the user go to stderr.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillshelf.cli.catalog_notes import catalog_warning, print_catalog_report
from skillshelf.cli.choices import catalog_options
from skillshelf.cli.config_cmds import override_option
from skillshelf.cli.output import (
    echo_json,
    echo_rows,
    echo_text,
    print_diagnostics,
    print_run_findings,
    printable,
    root_options,
    run_findings,
    short_path,
    stdout_console,
    stdout_is_terminal,
)
from skillshelf.cli.progress import working
from skillshelf.diagnostics import Diagnostic, Severity, diagnostic, has_errors, sort_diagnostics
from skillshelf.env import Env
from skillshelf.errors import UsageError

if TYPE_CHECKING:
    from skillshelf.config import ModedSkills
    from skillshelf.skills.model import Discovery, Skill
    from skillshelf.skills.validate import ValidationReport
    from skillshelf.workspace import Workspace

__all__ = ["catalog", "list_cmd", "open_workspace", "validate"]

MAX_NOTES = 20


def _options(roots: Sequence[Path], no_builtin: bool, no_cache: bool, **more: Any) -> Any:
    from skillshelf.context import ContextOptions

    return ContextOptions(
        extra_roots=tuple(p.absolute() for p in roots),
        include_builtin=not no_builtin,
        use_cache=not no_cache,
        **more,
    )


def open_workspace(roots: Sequence[Path], no_builtin: bool, no_cache: bool) -> Workspace:
    """This folder opened: config layers, every skill visible from here (Codex's and Claude
    Code's roots), their modes; refused while skills are withheld (``CF118``)."""
    from skillshelf.workspace import Workspace

    with working("Finding skills"):
        options = _options(roots, no_builtin, no_cache).workspace_options()
        return Workspace.open(Env.from_os(), options).check_withheld()


def _print_notes(diagnostics: Sequence[Diagnostic], discovery: Discovery | None = None) -> None:
    """Discovery findings (infos too: two skills of one name, say) and scans cut with folders left
    unvisited on stderr, the worst first, at most MAX_NOTES of them (a scan cut inside one skill's
    bundled files left none: its SK215 says so)."""
    if discovery is not None:
        told = {d.path for d in diagnostics if d.code in {"SK212", "SK213"}}  # the same cut, with its fix
        for scan in discovery.truncated_scans:
            if scan.unvisited_dirs <= 0 or scan.root.path in told:
                continue
            click.echo(
                f"warning: the scan of {scan.root.path} stopped at its {scan.limit or 'scan'} limit; "
                f"{scan.unvisited_dirs:,} folder(s) were not visited",
                err=True,
            )
    ordered = sorted(sort_diagnostics(diagnostics), key=lambda d: d.severity.rank)  # worst first, infos last
    print_diagnostics(ordered[:MAX_NOTES])
    if len(ordered) > MAX_NOTES:
        click.echo(
            f"({len(ordered) - MAX_NOTES} more finding(s); `skillshelf validate [PATH]` lists a folder's)",
            err=True,
        )


# -- list --------------------------------------------------------------------------------------


def _cell(value: str) -> Any:
    """Skill text as a table cell: never read as rich markup, control characters made visible."""
    from rich.text import Text

    return Text(printable(value))


WIDE_LIST = 120
"""From this many columns up ``list`` shows each skill's origin (the root that holds it) and
names up to 40 characters; below, the scope stands for the origin, names stop at 20 and the
other columns may shrink further, so that a row fits an 80-column terminal (rich crops what
does not fit)."""


def _skills_table(
    skills: Sequence[Skill], env: Env, installed: dict[Path, Any], moded: ModedSkills, *, width: int
) -> Any:
    from rich.table import Table

    from skillshelf.config import SkillMode

    hidden = sum(1 for s in skills if not s.model_visible or moded.mode_of(s) is SkillMode.DISABLED)
    untrusted = sum(1 for s in skills if not s.trusted)
    title = f"{len(skills)} skill(s)" + (f", {hidden} hidden from the model (dim)" if hidden else "")
    title += f", {untrusted} from a project you have not trusted (scope !)" if untrusted else ""
    table: Any = Table(title=title, title_justify="left", expand=True)
    wide = width >= WIDE_LIST
    table.add_column(
        "name", style="bold", no_wrap=True, overflow="ellipsis", min_width=8, max_width=40 if wide else 20
    )
    table.add_column("mode", no_wrap=True, min_width=4)
    table.add_column("scope", no_wrap=True, min_width=4)
    if wide:
        table.add_column("origin", no_wrap=True, min_width=6)
    table.add_column("description", overflow="ellipsis", no_wrap=True, ratio=2, min_width=12 if wide else 8)
    table.add_column("path", overflow="fold", ratio=3, min_width=16 if wide else 10)
    if installed:
        table.add_column("installed from", overflow="fold", ratio=2, min_width=12)
    for skill in skills:
        mode = moded.mode_of(skill)
        row = [
            _cell(skill.name),
            mode.value,
            skill.scope.value if skill.trusted else f"{skill.scope.value}!",
            *([skill.origin.value] if wide else []),
            _cell(skill.description),
            _cell(short_path(skill.path, env.cwd, env.home)),
        ]
        if installed:
            row.append(_provenance(installed.get(skill.path)))
        shown = skill.model_visible and mode is not SkillMode.DISABLED
        table.add_row(*row, style=None if shown else "dim")
    return table


def _provenance(info: Any) -> Any:
    """Where an installed skill came from (:func:`_installed_from`), and whether its copy was
    changed by hand since."""
    if info is None:
        return ""
    text = _cell(_installed_from(info))
    if info.locally_modified:
        text.append(" (modified locally)", style="yellow")
    text.append(_seen_by(info), style="dim")
    return text


def _installed_from(info: Any) -> str:
    """The source as the lock records it, which holds the ``@ref`` asked for; a git source taken
    from its default branch (no ref) with the commit it was at."""
    if info.ref is None and info.commit:
        return f"{info.source} at {info.commit[:12]}"
    return str(info.source)


def _seen_by(info: Any) -> str:
    seen = ", ".join({"codex": "Codex", "claude": "Claude Code"}[a] for a in info.agents)
    return f"; seen by {seen}" if seen else "; no agent sees it (skillshelf only)"


def _skill_line(skill: Skill, installed: dict[Path, Any], moded: ModedSkills) -> tuple[str, ...]:
    """One skill as a line of ``list`` into a pipe: the wide table's columns, whole (the full
    description and path), the last one empty for a skill skillshelf did not install."""
    info = installed.get(skill.path)
    source = ""
    if info is not None:
        source = _installed_from(info) + (" (modified locally)" if info.locally_modified else "")
        source += _seen_by(info)
    return (
        skill.name,
        moded.mode_of(skill).value,
        skill.scope.value if skill.trusted else f"{skill.scope.value}!",
        skill.origin.value,
        skill.description,
        str(skill.path),
        source,
    )


def _skill_json(skill: Skill, installed: dict[Path, Any], moded: ModedSkills) -> dict[str, object]:
    info = installed.get(skill.path)
    rule = moded.decided_by.get(skill.path)
    return {
        **skill.to_dict(),
        "mode": moded.mode_of(skill).value,
        "mode_set_by": rule.where if rule is not None else None,
        "installed": info.to_dict() if info is not None else None,
    }


@click.command("list")
@root_options
@click.option("--json", "as_json", is_flag=True, help="Print the skills as a JSON list.")
def list_cmd(roots: tuple[Path, ...], no_builtin: bool, no_cache: bool, as_json: bool) -> None:
    """List the skills found here, in Codex's load order.

    On a terminal, a table; into a pipe or a file, one line per skill, its fields separated by
    tabs: name, mode, scope, origin, description, path, and where skillshelf installed it from.
    Looks where Codex and Claude Code look (project, user, system and admin roots) plus every
    --root DIR. The mode column is what the config's [[skills.config]] entries make of each
    skill (`disabled` ones are listed, dim, but never reach the model). Problems found on the
    way are printed on stderr (a missing `required` skill too: SK410, exit status 1).
    """
    from skillshelf.install.manage import lock_diagnostics
    from skillshelf.install.provenance import installed_provenance

    workspace = open_workspace(roots, no_builtin, no_cache)
    config, discovery, moded = workspace.config, workspace.discovery, workspace.modes
    installed = installed_provenance(discovery.skills, workspace.env)
    locks = lock_diagnostics(s.folder.parent for s in discovery.skills)
    if as_json:
        echo_json([_skill_json(skill, installed, moded) for skill in discovery.skills])
    elif discovery.skills and not stdout_is_terminal():  # for a program: one line per skill
        echo_rows(_skill_line(skill, installed, moded) for skill in discovery.skills)
    elif discovery.skills:
        console = stdout_console()
        console.print(_skills_table(discovery.skills, workspace.env, installed, moded, width=console.width))
    else:
        click.echo(
            "No skills found. Create .agents/skills/<name>/SKILL.md, or pass --root DIR.",
            err=not stdout_is_terminal(),
        )
    error = moded.required_error(discovery.diagnostics)  # SK410: a finding here, the rest still listed
    missing = () if error is None else (diagnostic(error.code, Severity.ERROR, error.message, error.hint),)
    _print_notes((*config.diagnostics, *discovery.diagnostics, *locks, *missing), discovery)
    if has_errors((*config.diagnostics, *missing)):
        sys.exit(1)  # after the output: a config layer was skipped, or a required skill is missing


# -- validate ----------------------------------------------------------------------------------


def _print_report(report: ValidationReport) -> None:
    print_diagnostics(report.diagnostics, err=False)
    errors = sum(1 for d in report.diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in report.diagnostics if d.severity is Severity.WARNING)
    verb = {"codex": "Codex loads", "claude": "Claude Code lists", "spec": "valid by the specification"}[
        report.profile
    ]
    good = sum(1 for s in report.skills if (s.listed if report.profile == "claude" else s.loaded))
    colour = "red" if errors else ("yellow" if warnings else "green")
    summary = (
        f"{report.checked} skill file(s) checked: {good} {verb}; {errors} error(s), {warnings} warning(s)"
    )
    click.echo(click.style(summary, fg=colour, bold=True))


@click.command("validate")
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(path_type=Path))
@click.option(
    "--profile",
    type=click.Choice(["codex", "claude", "spec"]),
    default="codex",
    show_default=True,
    help="Judge by what Codex loads, what Claude Code lists, or the Agent Skills specification.",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"checked": N, "diagnostics": [...]} as JSON.')
@click.pass_context
def validate(ctx: click.Context, paths: tuple[Path, ...], profile: str, as_json: bool) -> None:
    """Check skills: each PATH is a skill folder, a SKILL.md, or a folder of skills; without
    one, every skill root the agent of --profile scans from here (the project's and the user's).

    Every problem is reported at once, each with a fix, including files an agent would skip
    without a word (skill.md spellings, hidden or too deep folders, nested skills). Exits 1
    when there are errors.
    """
    from skillshelf.skills.validate import ValidationReport, roots_here, validate_paths

    env = Env.from_os()
    chosen = list(paths) or roots_here(env, profile)  # type: ignore[arg-type]
    if not chosen:
        click.echo(f"no skill folders here: {profile} would load no skills from {env.cwd}", err=True)
        if as_json:
            echo_json(ValidationReport(checked=0, diagnostics=(), profile=profile).to_dict())
        return
    report = validate_paths(chosen, profile=profile, env=env)  # type: ignore[arg-type]
    listing = _claude_listing(env) if profile == "claude" and not paths else None
    if listing is not None:
        from skillshelf.skills.claude_view import listing_note

        note = listing_note(listing, env.cwd)
        report = dataclasses.replace(report, diagnostics=(*report.diagnostics, *([note] if note else [])))
    if as_json:
        echo_json(report.to_dict())
    else:
        _print_report(report)
        if listing is not None:
            plan = listing.plan
            click.echo(
                f"Claude Code's skill listing: {plan.width:,} of {plan.budget:,} characters "
                f"({listing.budget_source})"
            )
    if not report.ok:
        ctx.exit(1)


def _claude_listing(env: Env) -> Any:
    """What Claude Code's listing shows here; None when it cannot be worked out."""
    from skillshelf.errors import SkillshelfError
    from skillshelf.skills.claude_view import claude_listing

    try:
        return claude_listing(env)
    except SkillshelfError:
        return None


# -- catalog -----------------------------------------------------------------------------------


@click.command("catalog")
@root_options
@catalog_options
@override_option
@click.option("--json", "as_json", is_flag=True, help="Print the text and the report as JSON.")
def catalog(
    roots: tuple[Path, ...],
    no_builtin: bool,
    no_cache: bool,
    catalog_format: str | None,
    context_window: int | None,
    budget_tokens: int | None,
    budget_chars: int | None,
    overrides: tuple[str, ...],
    as_json: bool,
) -> None:
    """Print exactly the skills catalog the model would get here; the report goes to stderr.

    Without a budget option it is Codex's: the config's skills.max_context_tokens, else 2 % of
    the context window (--context-window, catalog.context_window, else the window of Codex's
    configured model); the report says which budget was used and which skills it cut.
    """
    from skillshelf.context import build_context

    if budget_tokens is not None and budget_chars is not None:
        raise UsageError("--budget-tokens and --budget-chars cannot be used together", hint="pass one budget")
    options = _options(
        roots,
        no_builtin,
        no_cache,
        catalog_format=catalog_format,
        context_window=context_window,
        budget_tokens=budget_tokens,
        budget_chars=budget_chars,
        config_overrides=overrides,
        instructions=False,
        suggestions=False,
        memory=False,
    )
    with working("Finding skills and rendering the catalog"):
        result = build_context(Env.from_os(), "", options)
    part = result.part("catalog")
    text = part.text if part is not None else ""
    if as_json:
        found = catalog_warning(result.catalog_report)
        echo_json(
            {
                "format": result.catalog_report["format"],
                "text": text,
                "report": result.catalog_report,
                "diagnostics": [
                    d.to_dict() for d in (*run_findings(result.diagnostics), *([found] if found else []))
                ],
            }
        )
    elif text:
        echo_text(text)
    print_catalog_report(result.catalog_report, result.skills_total)
    if print_run_findings(result.diagnostics):
        sys.exit(1)  # a config layer was skipped: this is not the catalog the config asks for
