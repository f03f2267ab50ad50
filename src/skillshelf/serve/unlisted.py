"""The skills list switched off for the model (``skills.include_instructions = false``), as
the server and the API tools honour it.

With the switch off (skillshelf's config, else Codex's), ``skillshelf context`` gives the model
no catalog, as Codex sends no skills block at all (measured with codex-oracle); the per-task
suggestions and the skills a task names still come. :class:`~skillshelf.serve.tools.SkillTools`
does the same: no catalog in its system-prompt text or the MCP server's instructions, nothing
from ``list_skills`` (``SV406``) or the MCP resource list; ``load_skill`` and ``read_skill_file``
(and a resource read by URI) still take a skill by name, and ``search_skills`` still ranks the
skills against a task, as the suggestions do.
"""

from __future__ import annotations

from skillshelf.config import Config
from skillshelf.errors import UsageError

__all__ = ["SETTING", "UNLISTED_NOTE", "unlisted_error", "withheld_reason"]

SETTING = "skills.include_instructions = false"
UNLISTED_NOTE = (
    f"(No list of skills is given here: {SETTING}. search_skills finds the skills that fit a "
    "task; load_skill loads one by its name.)"
)
_WAYS_IN = "search_skills finds the skills that fit a task, and load_skill loads one by its name"


def withheld_reason(config: Config) -> str | None:
    """Why the model gets no skills list (the setting and where it is set, as ``context``
    warns), or None when it gets one."""
    listing = config.skills_instructions
    return None if listing.on else (listing.source or SETTING)


def unlisted_error(reason: str) -> UsageError:
    """``list_skills``' answer while the skills list is switched off."""
    return UsageError(
        f"the skills list is switched off ({reason})",
        hint=f"{_WAYS_IN}; the user can set skills.include_instructions = true to list them",
        code="SV406",
    )
