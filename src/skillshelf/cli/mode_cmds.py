"""`skillshelf enable|disable NAME`: per-skill switches, written to the user or project config."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillshelf.cli.config_cmds import json_option, project_root, user_config_file
from skillshelf.cli.mode_notes import selected, unmatched_warning
from skillshelf.cli.output import echo_json, print_diagnostics, printable
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env

if TYPE_CHECKING:
    from skillshelf.config.modes import SkillMode

__all__ = ["disable", "enable"]


def _spelled_as_found(name: str) -> str:
    """``name``, or the one visible skill's name when that differs from it only in Unicode form
    (composed or decomposed, as ``load`` matches them): an entry matches a name exactly, so it is
    written the way the skill spells it."""
    import unicodedata

    from skillshelf.workspace import Workspace

    skills = Workspace.open(Env.from_os()).discovery.skills
    if selected(name, skills):
        return name
    wanted = unicodedata.normalize("NFC", name.strip())
    spelled = {s.name for s in skills if unicodedata.normalize("NFC", s.name) == wanted}
    return spelled.pop() if len(spelled) == 1 else name


def _edit_mode(name: str, mode: str, project: bool, as_json: bool) -> None:
    from skillshelf.config.edit import set_skill_mode, skill_selector
    from skillshelf.config.loader import CONFIG_NAME, PROJECT_DIR
    from skillshelf.config.modes import SkillMode

    root = project_root(None) if project else None
    path = root / PROJECT_DIR / CONFIG_NAME if root else user_config_file()
    name = _spelled_as_found(name)
    result = set_skill_mode(path, name, SkillMode(mode), within=root)
    key, value = skill_selector(name)
    name = value if key == "name" else name  # the name as written, without spaces around it
    warnings = _warnings(name, SkillMode(mode), result.path)
    if as_json:
        echo_json({"skill": name, **result.to_dict(), "warnings": [w.to_dict() for w in warnings]})
    else:
        before = f" (was {printable(result.previous)})" if result.previous else ""
        done = "" if result.changed else " (no change)"
        shown = name if name.isprintable() else repr(name)  # a line break or an escape, spelled out
        click.echo(f"{printable(shown)}: {mode}{before} in {printable(str(result.path))}{done}")
    print_diagnostics(warnings)


def _warnings(name: str, mode: SkillMode, written: Path) -> list[Diagnostic]:
    """What the config read again says about the entry just written: no skill answers to
    ``name`` (``CF122``), its file is not in effect (``CF109``), or another entry, a requirement
    (``CF123``) or Codex's own config (``CF124``) still decides."""
    import shlex

    from skillshelf.config.mode_check import mode_findings
    from skillshelf.config.modes import SkillMode
    from skillshelf.workspace import Workspace

    workspace = Workspace.open(Env.from_os())
    withheld = workspace.config.skills_withheld
    if withheld is not None:  # no skill is discovered: none can be checked against the entry
        message = f"the entry is written, but no skill is shown while {withheld.code}: {withheld.message}"
        return [Diagnostic(code=withheld.code, severity=Severity.WARNING, message=message, fix=withheld.fix)]
    skills = workspace.discovery.skills
    if mode is SkillMode.DISABLED:
        command = "disable"
    else:
        command = "enable" if mode is SkillMode.ENABLED else f"enable --mode {mode.value}"
    notes = mode_findings(
        target=name,
        wanted=mode,
        skills=selected(name, skills),
        moded=workspace.modes,
        written=written,
        layers=workspace.config.layers,
        command=f"{command} {shlex.quote(name)}",
        config_findings=workspace.config.diagnostics,
    )
    unmatched = unmatched_warning(name, skills, written)
    return [unmatched, *notes] if unmatched is not None else list(notes)


_MODES = ["enabled", "name-only", "manual", "pinned", "required"]
_PROJECT_HELP = "Edit this project's .skillshelf/config.toml instead of the user's."


@click.command("enable")
@click.argument("name")
@click.option(
    "--mode",
    type=click.Choice(_MODES),
    default="enabled",
    show_default=True,
    help="How the skill is offered: listed, name only, manual (not listed), pinned, required.",
)
@click.option("--project", is_flag=True, help=_PROJECT_HELP)
@json_option
def enable(name: str, mode: str, project: bool, as_json: bool) -> None:
    """Enable the skill NAME (a name, or a path to a SKILL.md) in the user or project config.

    The entry is written even when no skill of that name is visible from here (a warning says
    so): the user config applies in every folder, and a skill may come later.
    """
    _edit_mode(name, mode, project, as_json)


@click.command("disable")
@click.argument("name")
@click.option("--project", is_flag=True, help=_PROJECT_HELP)
@json_option
def disable(name: str, project: bool, as_json: bool) -> None:
    """Disable the skill NAME (a name, or a path to a SKILL.md) in the user or project config.

    The entry is written even when no skill of that name is visible from here: the user config
    applies in every folder, so a skill of another project, or one not installed yet, can be
    disabled ahead. A warning says so and names the closest skills, in case of a typo.
    """
    _edit_mode(name, "disabled", project, as_json)
