"""``skillshelf update | remove``: thin commands over the lock-driven part of
:mod:`skillshelf.install`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from skillshelf.cli.install_cmds import AGENTS, SCOPE, install_progress, unread_config_files
from skillshelf.cli.output import echo_json, literal, print_diagnostics, printable, stdout_console
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError

if TYPE_CHECKING:
    from skillshelf.diagnostics import Diagnostic

__all__ = ["remove", "update"]


@click.command("update")
@click.argument("names", nargs=-1)
@click.option("--scope", type=SCOPE, default=None, help="Only skills installed in this scope.")
@click.option(
    "--force",
    is_flag=True,
    help="Also update skills that were changed locally (the changed copy is kept in the data folder's "
    "replaced-skills).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Only say which skills have an update (status `available`) and which skills their packs "
    "gained (`new`); change nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def update(names: tuple[str, ...], scope: str | None, force: bool, check: bool, as_json: bool) -> None:
    """Update installed skills (all, or the NAMES given) from their sources.

    Updating all also installs the skills a pack gained since `install SOURCE --all` (a skill
    you removed does not come back); a skill its pack dropped is left as it is. Exit 1 when a
    skill could not be checked or updated (the others still are).
    """
    from skillshelf.install.manage import installed_roots, link_diagnostics, lock_diagnostics, update_skills

    env = Env.from_os()
    problems = (
        *unread_config_files(env),
        *lock_diagnostics(installed_roots(env, scope)),  # type: ignore[arg-type]
        *link_diagnostics(env, scope),  # type: ignore[arg-type]
    )
    print_diagnostics(problems)
    with (
        install_progress(not as_json) as progress,
        _said_above(problems, as_json=as_json),
        _not_installed_explained(env, names),
    ):
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
def _said_above(problems: Sequence[Diagnostic], *, as_json: bool) -> Iterator[None]:
    """An error one of the findings printed above already names (an unreadable lock file: its
    code and file) ends the command with exit 1 without being printed again; with ``as_json``,
    every error is printed on stdout too, as a JSON object (its ``code``, ``message`` and ``fix``)."""
    try:
        yield
    except SkillshelfError as exc:
        if as_json:
            echo_json(exc.to_dict())
        elif any(d.code == exc.code and d.path and str(d.path) in exc.message for d in problems):
            sys.exit(1)
        raise


@contextlib.contextmanager
def _not_installed_explained(env: Env, names: tuple[str, ...]) -> Iterator[None]:
    """An ``IS404`` for a name that is a skill here, but not one skillshelf installed, says where
    that skill is and how to remove or hide it instead."""
    from skillshelf.errors import NotFoundError

    try:
        yield
    except NotFoundError as exc:
        hint = _elsewhere_hint(env, getattr(exc, "names", names)) if exc.code == "IS404" else None
        if hint is None:
            raise
        raise NotFoundError(exc.message, hint=hint, code=exc.code) from None


def _elsewhere_hint(env: Env, names: tuple[str, ...]) -> str | None:
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
        "added": "green",
        "available": "cyan",
        "new": "cyan",
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
@click.argument("names", nargs=-1)
@click.option(
    "--pack",
    "pack",
    metavar="SOURCE",
    default=None,
    help="Remove every skill installed with `install SOURCE --all` (SOURCE as you typed it then, "
    "or as `update` shows it).",
)
@click.option("--scope", type=SCOPE, default=None, help="Where it is installed, when both scopes have it.")
@click.option(
    "--for",
    "folder",
    type=AGENTS,
    default=None,
    help="The skills folder to remove it from, when one name is installed in several (as `install "
    "--for` put it there): codex (.agents/skills), claude (.claude/skills), all (the copy in "
    ".agents/skills and its .claude/skills link), skillshelf (its own data folder).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Remove it even if it was changed locally (the changed copy is kept in the data folder's "
    "replaced-skills).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def remove(
    names: tuple[str, ...],
    pack: str | None,
    scope: str | None,
    folder: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Remove skills that `skillshelf install` installed (NAMES: one or more, or --pack SOURCE).

    With several skills, each is removed on its own: exit 1 when one could not be (the others
    still are); --json then prints {"removed": [...], "failed": [...]}."""
    from skillshelf.install.manage import installed_roots, link_diagnostics, lock_diagnostics

    if not names and pack is None:
        raise click.UsageError("name the skills to remove, or give --pack SOURCE")
    env = Env.from_os()
    problems = (*lock_diagnostics(installed_roots(env, scope)), *link_diagnostics(env, scope))  # type: ignore[arg-type]
    print_diagnostics(problems)
    targets = [(name, scope) for name in names] + _pack_targets(env, pack, scope)
    if len(targets) == 1 and pack is None:
        with _said_above(problems, as_json=as_json):
            result = _remove_one(env, *targets[0], force, folder)
        if as_json:
            echo_json(result)
        else:
            _print_removed(result)
        return
    removed: list[Any] = []
    failed: list[dict[str, object]] = []
    for name, where in targets:
        try:
            removed.append(_remove_one(env, name, where, force, folder))
        except SkillshelfError as exc:
            failed.append({"name": name, **exc.to_dict()})
            if not as_json:
                click.echo(printable(f"skillshelf: {name}: error {exc.code}: {exc.message}"), err=True)
                click.echo(printable(f"  fix: {exc.hint}"), err=True)
            continue
        if not as_json:
            _print_removed(removed[-1])
    if as_json:
        echo_json({"removed": removed, "failed": failed})
    if failed:
        sys.exit(1)


def _pack_targets(env: Env, pack: str | None, scope: str | None) -> list[tuple[str, str | None]]:
    """(name, scope) of each skill of ``pack`` (none without one)."""
    if pack is None:
        return []
    from skillshelf.install.packs import pack_members

    members = pack_members(pack, env=env, scope=scope)  # type: ignore[arg-type]
    return [(item.entry.name, item.scope) for item in members]


def _remove_one(env: Env, name: str, scope: str | None, force: bool, folder: str | None = None) -> Any:
    from skillshelf.install.manage import remove_skill

    owner = "codex" if folder == "all" else folder  # --for all installs the copy in .agents/skills
    with _not_installed_explained(env, (name,)):
        return remove_skill(name, env=env, scope=scope, force=force, folder=owner)  # type: ignore[arg-type]


def _print_removed(result: Any) -> None:
    click.echo(printable(f"Removed {result.name} ({result.scope}) from {result.path}"))
    if result.kept is not None:
        click.echo(printable(f"  your changed copy is kept in {result.kept}"))
