"""`skillshelf load`: one skill as the model gets it, by name or by the path of its folder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillshelf.cli.output import echo_json, echo_text, print_run_findings, printable, root_options
from skillshelf.cli.skills_cmds import open_workspace

if TYPE_CHECKING:
    from skillshelf.skills.load import LoadedSkill
    from skillshelf.skills.model import Skill

__all__ = ["load"]


def _load_by_path(skills: Sequence[Skill], name: str, max_files: int) -> LoadedSkill | None:
    """The skill whose folder or SKILL.md is at ``name``, a path relative to here (else None)."""
    from skillshelf.errors import SkillNotFoundError
    from skillshelf.skills.load import load_skill

    path = Path(name)
    if len(path.parts) < 2 or not path.exists():
        return None
    try:
        return load_skill(skills, str(path.absolute()), max_files=max_files)
    except SkillNotFoundError:
        return None


@click.command("load")
@click.argument("name")
@root_options
@click.option("--json", "as_json", is_flag=True, help="Print the loaded skill as JSON.")
@click.option(
    "--max-files",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="List at most this many bundled files.",
)
def load(
    name: str, roots: tuple[Path, ...], no_builtin: bool, no_cache: bool, as_json: bool, max_files: int
) -> None:
    """Load the skill NAME as the model gets it: the <skill> fragment and its bundled files.

    NAME may also be the path of a skill's folder or SKILL.md (relative to here). Skills hidden
    from the catalog load too; disabled ones do not (the error says which config entry disabled
    it). Unknown names fail with the closest matches.
    """
    from skillshelf.errors import SkillNotFoundError
    from skillshelf.skills.load import load_skill, with_trust_note

    workspace = open_workspace(roots, no_builtin, no_cache)
    print_run_findings(workspace.config.diagnostics)  # a bad [[skills.config]] entry changes what loads
    skills = workspace.skills.loadable
    try:
        loaded = load_skill(skills, name, max_files=max_files)
    except SkillNotFoundError as exc:
        by_path = _load_by_path(skills, name, max_files)
        if by_path is None:
            raise (workspace.modes.disabled_error(name) or exc) from None
        loaded = by_path
    if as_json:
        echo_json(loaded.to_dict())
        return
    echo_text(with_trust_note(loaded.skill, loaded.fragment))
    if loaded.files:
        click.echo(
            f"\nFiles bundled with {printable(loaded.skill.name)} "
            f"(relative to {printable(str(loaded.skill.folder))}):",
            err=True,
        )
        for path in loaded.files:
            click.echo(f"  {printable(path)}", err=True)
        if loaded.more_files:
            click.echo(f"  ... and {loaded.more_files} more", err=True)
    if loaded.shadowed:
        click.echo(
            f"note: {len(loaded.shadowed)} other skill(s) are also named "
            f"{printable(repr(loaded.skill.name))}: " + printable(", ".join(str(p) for p in loaded.shadowed)),
            err=True,
        )
    click.echo(f"({loaded.tokens:,} tokens)", err=True)
