"""What a skill says about itself outside its own body, as the server shows it to a client.

A description reaches the client in the catalog of the server's instructions, in
``list_skills`` and ``search_skills`` rows and in the prompts' descriptions. Each is shown as
the per-turn suggestions show one (:func:`skillshelf.select.suggest.inert`, the one rule), for
every skill, trusted or not (the untrusted tag says whose it is; the cleanup is about display):
on one line, without control or invisible formatting characters (bidirectional, zero-width,
tags), ``<`` and ``>`` written ``&lt;`` and ``&gt;``, so it can neither close a tag, nor open
one of its own, nor hide or reorder what a reader sees. The ``codex`` catalog format keeps
descriptions as Codex renders them.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillshelf.skills.model import Skill
from skillshelf.skills.slots import replaced

__all__ = ["CODEX_CATALOG", "catalog_skills", "shown_text"]

CODEX_CATALOG = "codex"  # the format whose descriptions stay as Codex renders them


def shown_text(text: str) -> str:
    """``text`` (a skill's description) as the server shows it, by the rule of the module's
    docstring."""
    return _cleaned(" ".join(text.split()))


def catalog_skills(skills: Sequence[Skill], catalog_format: str) -> list[Skill]:
    """``skills`` as a catalog in ``catalog_format`` shows them: each description as
    :func:`shown_text` shows it; the ``xml`` format escapes ``<`` and ``>`` itself, so there only
    the control and invisible formatting characters go; the ``codex`` format keeps them as Codex
    renders them."""
    if catalog_format == CODEX_CATALOG:
        return list(skills)
    escape = catalog_format != "xml"
    out: list[Skill] = []
    for skill in skills:
        description = _cleaned(" ".join(skill.description.split()), escape=escape)
        out.append(skill if description == skill.description else replaced(skill, description=description))
    return out


def _cleaned(line: str, *, escape: bool = True) -> str:
    """:func:`~skillshelf.select.suggest.inert` of ``line``; without ``escape`` its ``<`` and
    ``>`` are kept (for a format that escapes them itself). A line that needs none of it is
    returned as it is, without importing the ranking package."""
    if line.isprintable() and not (escape and ("<" in line or ">" in line)):
        return line
    from skillshelf.select.suggest import inert

    if escape:
        return inert(line)
    return "<".join(">".join(inert(part) for part in piece.split(">")) for piece in line.split("<"))
