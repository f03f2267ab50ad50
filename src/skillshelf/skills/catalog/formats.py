"""The catalog for other agents: ``xml`` and ``markdown``, under the same budget rules.

* ``xml`` follows the Agent Skills integration guide (what ``skills-ref to-prompt`` prints):
  ``<available_skills>`` with one ``<skill>`` per skill holding ``<name>``,
  ``<description>`` and ``<location>`` (the absolute ``SKILL.md`` path), each value on its
  own line and HTML-escaped. A skill that keeps no description character loses its
  ``<description>`` element.
* ``markdown`` is a plain list: ``- name: description``, or ``- name`` when no description
  character fits.

Both use Codex's order, 1,024-character description cap and three degradation levels; each
entry costs its text plus a newline. The short intro line is not charged.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from skillshelf.skills.catalog.aliases import display_path
from skillshelf.skills.catalog.budget import Budget
from skillshelf.skills.catalog.codex import cap_description, catalog_order
from skillshelf.skills.catalog.lines import Allocation, Entry, allocate
from skillshelf.skills.model import Skill

__all__ = ["XML_INTRO", "MARKDOWN_INTRO", "render_markdown", "render_xml", "xml_entry", "markdown_entry"]

XML_INTRO = (
    "The skills below can be used in this session. When a task matches a skill's description, "
    "read the SKILL.md file at its location in full before acting on it."
)
MARKDOWN_INTRO = (
    "The skills below can be used in this session. When a task matches a skill's description, "
    "load the skill by name and follow its instructions."
)


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


def xml_entry(skill: Skill) -> Entry:
    """One ``<skill>`` element; each description character is escaped on its own."""
    name = _escape(skill.name)
    location = _escape(display_path(skill.path))
    head = f"<skill>\n<name>\n{name}\n</name>\n"
    tail = f"<location>\n{location}\n</location>\n</skill>"
    return Entry(
        prefix=f"{head}<description>\n",
        units=tuple(_escape(ch) for ch in cap_description(skill.description)),
        suffix=f"\n</description>\n{tail}",
        minimum=head + tail,
    )


def markdown_entry(skill: Skill) -> Entry:
    """``- name: description``; ``- name`` without description."""
    return Entry(
        prefix=f"- {skill.name}: ",
        units=cap_description(skill.description),
        suffix="",
        minimum=f"- {skill.name}",
        single_chars=True,
    )


def render_xml(skills: Sequence[Skill], budget: Budget) -> tuple[str, list[Skill], Allocation]:
    """The ``<available_skills>`` block (with our intro line), the skills in order, the fit."""
    ordered = catalog_order(skills)
    allocation = allocate([xml_entry(s) for s in ordered], budget)
    if not ordered:
        return "", ordered, allocation
    body = "\n".join(["<available_skills>", *allocation.lines, "</available_skills>"])
    return f"{XML_INTRO}\n{body}", ordered, allocation


def render_markdown(skills: Sequence[Skill], budget: Budget) -> tuple[str, list[Skill], Allocation]:
    """A ``## Skills`` section with one ``- name: description`` line per listed skill."""
    ordered = catalog_order(skills)
    allocation = allocate([markdown_entry(s) for s in ordered], budget)
    if not ordered:
        return "", ordered, allocation
    return "\n".join(["## Skills", MARKDOWN_INTRO, "", *allocation.lines]), ordered, allocation
