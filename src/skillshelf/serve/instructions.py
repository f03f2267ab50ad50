"""The MCP server's instructions: how to use the tools, then the catalog, shaped for the client.

- Any client: the head, then the budgeted catalog of the skills the catalog lists (the tools'
  budget: for ``serve``, the one Codex uses when the window is unknown, 8,000 characters, or the
  config's when smaller, :func:`~skillshelf.serve.loading.served_budget`); none while the skills
  list is switched off (:mod:`.unlisted`).
- Claude Code (``client = "claude"``) cuts a server's instructions at
  :data:`CLAUDE_INSTRUCTIONS_CAP` characters as JavaScript counts them, in UTF-16 code units
  (an emoji is two; 2.1.197 logs "Server instructions truncated from N to 2048 chars"), and
  lists the skills in its own folders itself, for its Skill tool. So the catalog holds only the
  skills Claude Code does not list (``.agents/skills``, built-in, extra roots), shortened as the
  catalog shortens to fit the cap, and the head says where the others are.

Either way the descriptions are shown as :func:`~skillshelf.serve.shown.catalog_skills` shows
them (one line, no control or bidirectional characters, ``<`` and ``>`` escaped; the ``codex``
format as Codex renders it).

:func:`client_for` picks the shape: ``auto`` is ``claude`` over stdio when Claude Code started
the process (it sets ``CLAUDECODE=1`` in an MCP server's environment, checked with the real CLI).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from skillshelf.serve.shown import catalog_skills
from skillshelf.serve.unlisted import SETTING

if TYPE_CHECKING:
    from skillshelf.env import Env
    from skillshelf.serve.tools import SkillTools
    from skillshelf.skills.model import Skill

__all__ = [
    "CLAUDE_INSTRUCTIONS_CAP",
    "CLIENTS",
    "Client",
    "claude_instructions",
    "client_for",
    "server_instructions",
]

Client = Literal["generic", "claude"]
CLIENTS: tuple[str, ...] = ("auto", "generic", "claude")
CLAUDE_INSTRUCTIONS_CAP = 2048
INSTRUCTIONS_HEAD = (
    "This server holds a library of skills: folders of instructions, scripts and references for "
    "specific tasks. When a task matches a skill below, call load_skill with its name first and "
    "follow it; read the files it lists with read_skill_file. If none fits, search_skills ranks "
    "every skill against a few words about the task; list_skills pages through all of them."
)
UNLISTED_HEAD = (
    "This server holds a library of skills: folders of instructions, scripts and references for "
    f"specific tasks. No list of them is given here ({SETTING}): "
    "search_skills ranks the skills against a few words about a task, and when one fits, call "
    "load_skill with its name first and follow it; read the files it lists with read_skill_file."
)
CLAUDE_HEAD = (
    "Skills beyond those your Skill tool lists: when a task matches one below, call load_skill "
    "with its name and follow it; read its files with read_skill_file. search_skills ranks every "
    "skill (yours too) against a few words about the task."
)
CLAUDE_NONE_OF_ITS_OWN = (
    "Every skill this server holds is one your Skill tool lists already; search_skills ranks "
    "them against a few words about the task."
)
_FIT_ATTEMPTS = 4


def client_for(choice: str, environ: Mapping[str, str], transport: str) -> Client:
    """The client shape for ``--client`` ``choice`` (``auto``: Claude Code when it started this
    stdio server, else generic)."""
    if choice in ("generic", "claude"):
        return "claude" if choice == "claude" else "generic"
    return "claude" if transport == "stdio" and environ.get("CLAUDECODE") == "1" else "generic"


def server_instructions(tools: SkillTools, *, client: Client = "generic", env: Env | None = None) -> str:
    """The instructions for ``client``; ``env`` (where Claude Code looks) is needed for ``claude``."""
    if tools.withheld and tools.skills:
        return UNLISTED_HEAD
    if client == "claude" and env is not None:
        return claude_instructions(tools, env)
    catalog = tools.catalog()
    return (
        f"{INSTRUCTIONS_HEAD}\n\n{catalog}"
        if catalog
        else INSTRUCTIONS_HEAD + "\n\n(No skills are installed.)"
    )


def claude_instructions(tools: SkillTools, env: Env) -> str:
    """The head and the catalog of the listed skills Claude Code does not list itself, within
    :data:`CLAUDE_INSTRUCTIONS_CAP` characters."""
    from skillshelf.context_parts import ClaudeNames

    names = ClaudeNames(env)
    others = [skill for skill in tools.listed if names.tool_name(skill) is None]
    if not others:
        return f"{CLAUDE_HEAD}\n\n{CLAUDE_NONE_OF_ITS_OWN}" if tools.listed else CLAUDE_HEAD
    room = CLAUDE_INSTRUCTIONS_CAP - js_length(CLAUDE_HEAD) - 2
    shown = catalog_skills(others, tools.catalog_format)
    return f"{CLAUDE_HEAD}\n\n{_fitted_catalog(shown, tools.catalog_format, room)}"


def js_length(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units (a character past U+FFFF is two)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _fitted_catalog(skills: list[Skill], format: str, room: int) -> str:
    """The catalog of ``skills`` in at most ``room`` UTF-16 code units, header included (the
    catalog's budget counts the skill lines only, in code points: it is lowered by what the rest
    took, then cut hard)."""
    from skillshelf.skills.catalog import CharBudget, render_catalog

    budget = room
    text = ""
    for _ in range(_FIT_ATTEMPTS):
        text = render_catalog(skills, CharBudget(max(1, budget)), format).text
        if js_length(text) <= room:
            return text
        budget -= js_length(text) - room
    while js_length(text) > room - 1:
        text = text[: len(text) - (js_length(text) - room + 1)]
    return text.rstrip() + "…"
