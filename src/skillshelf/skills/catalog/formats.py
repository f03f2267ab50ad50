"""The catalog for other agents: ``xml`` and ``markdown``, under the same budget rules.

* ``xml`` follows the Agent Skills integration guide (what ``skills-ref to-prompt`` prints):
  ``<available_skills>`` with one ``<skill>`` per skill holding ``<name>``,
  ``<description>`` and ``<location>`` (the absolute ``SKILL.md`` path), each value on its
  own line and HTML-escaped. A skill that keeps no description character loses its
  ``<description>`` element.
* ``markdown`` is a plain list: ``- name: description``, or ``- name`` when no description
  character fits.

Both use Codex's order, 1,024-character description cap and three degradation levels; each
entry costs its text plus a newline. The short intro line is not charged. A skill from an
untrusted project has ``[untrusted project]`` before its description, in its minimum form too;
the tag is charged like the name, so shortening never cuts into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillshelf.skills.catalog.aliases import display_path
from skillshelf.skills.catalog.budget import Budget
from skillshelf.skills.catalog.codex import cap_description, catalog_order
from skillshelf.skills.catalog.lines import Entry, allocate
from skillshelf.skills.catalog.spec import CatalogFormatSpec, FormatRendering
from skillshelf.skills.load import UNTRUSTED_TAG
from skillshelf.skills.model import Skill

__all__ = [
    "MARKDOWN_FORMAT",
    "MARKDOWN_INTRO",
    "XML_FORMAT",
    "XML_INTRO",
    "markdown_entry",
    "render_markdown",
    "render_xml",
    "xml_entry",
]

XML_INTRO = (
    "The skills below can be used in this session. When a task matches a skill's description, "
    "read the SKILL.md file at its location in full before acting on it."
)
MARKDOWN_INTRO = (
    "The skills below can be used in this session. When a task matches a skill's description, "
    "load the skill by name and follow its instructions."
)


def xml_entry(skill: Skill) -> Entry:
    """One ``<skill>`` element; each description character is escaped on its own."""
    from html import escape  # only for this format (html.entities is a large table)

    name = escape(skill.name)
    location = escape(display_path(skill.path))
    head = f"<skill>\n<name>\n{name}\n</name>\n"
    tail = f"<location>\n{location}\n</location>\n</skill>"
    tag = "" if skill.trusted else escape(UNTRUSTED_TAG)
    return Entry(
        prefix=f"{head}<description>\n{tag}{' ' if tag else ''}",
        units=tuple(escape(ch) for ch in cap_description(skill.description)),
        suffix=f"\n</description>\n{tail}",
        minimum=f"{head}<description>\n{tag}\n</description>\n{tail}" if tag else head + tail,
    )


def markdown_entry(skill: Skill) -> Entry:
    """``- name: description``; ``- name`` without description (``- name: [untrusted project]``
    for an untrusted skill)."""
    tag = "" if skill.trusted else UNTRUSTED_TAG
    return Entry(
        prefix=f"- {skill.name}: {tag}{' ' if tag else ''}",
        units=cap_description(skill.description),
        suffix="",
        minimum=f"- {skill.name}: {tag}" if tag else f"- {skill.name}",
        single_chars=True,
    )


def render_xml(
    skills: Sequence[Skill], budget: Budget, *, roots: Sequence[Path] | None = None
) -> FormatRendering:
    """The ``<available_skills>`` block (with our intro line); ``roots`` is not used (full paths)."""
    ordered = tuple(catalog_order(skills))
    allocation = allocate([xml_entry(s) for s in ordered], budget)
    body = "\n".join(["<available_skills>", *allocation.lines, "</available_skills>"])
    text = f"{XML_INTRO}\n{body}" if ordered else ""
    return FormatRendering(text=text, ordered=ordered, allocation=allocation)


def render_markdown(
    skills: Sequence[Skill], budget: Budget, *, roots: Sequence[Path] | None = None
) -> FormatRendering:
    """A ``## Skills`` section with one ``- name: description`` line per listed skill."""
    ordered = tuple(catalog_order(skills))
    allocation = allocate([markdown_entry(s) for s in ordered], budget)
    text = "\n".join(["## Skills", MARKDOWN_INTRO, "", *allocation.lines]) if ordered else ""
    return FormatRendering(text=text, ordered=ordered, allocation=allocation)


XML_FORMAT = CatalogFormatSpec(
    name="xml", render=render_xml, help="<available_skills> XML (the Agent Skills integration guide)"
)
MARKDOWN_FORMAT = CatalogFormatSpec(
    name="markdown", render=render_markdown, help="a markdown list, one '- name: description' line a skill"
)
