"""The warnings of `enable` / `disable`, each a coded finding with a fix.

* ``CF122`` no skill visible from here answers to the name or path given: made here
  (:func:`unmatched_warning`, the closest names in its fix);
* ``CF109`` (the file written is not in effect), ``CF123`` (another entry or a requirement still
  decides) and ``CF124`` (Codex's own ``config.toml`` still disables the skill): made where the
  config read again is checked, :func:`skillshelf.config.mode_check.mode_findings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from skillshelf.skills.model import Skill

__all__ = ["selected", "unmatched_warning"]


def unmatched_warning(target: str, skills: tuple[Skill, ...], written: Path) -> Diagnostic | None:
    """``CF122`` when no skill visible from here answers to ``target`` (the fix names the closest
    names, in case of a typo)."""
    from skillshelf.skills.load import close_matches

    if selected(target, skills):
        return None
    close = close_matches(target, [s.name for s in skills], limit=3)
    guess = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
    return Diagnostic(
        code="CF122",
        severity=Severity.WARNING,
        message=f"no skill named {target!r} is visible from here (the entry applies wherever one appears)",
        fix=f"{guess}check the name with `skillshelf list`, or keep the entry for a skill that comes later",
        path=written,
    )


def selected(target: str, skills: tuple[Skill, ...]) -> tuple[Skill, ...]:
    """The skills ``target`` (a name, or a path to a skill's folder or SKILL.md) answers to."""
    wanted = {target, str(Path(target).expanduser().absolute())}
    return tuple(s for s in skills if wanted & {s.name, str(s.path), str(s.folder)})
