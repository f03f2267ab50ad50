"""A skill's name and description from its frontmatter fields, by the reader's rules: Codex
falls back to the folder name, refuses names over :data:`MAX_NAME_CHARS` characters and
requires a description; Claude Code names a skill after its folder and takes a missing
description from the first line of the body. Pure; every finding is a diagnostic."""

from __future__ import annotations

from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.skills.frontmatter import collapse_whitespace

__all__ = ["MAX_NAME_CHARS", "skill_description", "skill_name"]

MAX_NAME_CHARS = 64


def skill_name(
    declared: str | None, *, path: Path, claude: bool, out: list[Diagnostic], self_named: bool = False
) -> str | None:
    """The name the agent gives the skill at ``path`` (its ``SKILL.md``); None when it does not
    load (SK108: too long for Codex). ``self_named``: a skill Claude Code names by its ``name``
    (a plugin's skill folder that its manifest names), else by its folder."""
    name = collapse_whitespace(declared or "")
    if claude and self_named:
        return name or path.parent.name
    if claude:
        if name and name != path.parent.name:
            out.append(
                diagnostic(
                    "SK124",
                    Severity.WARNING,
                    f"Claude Code names this skill {path.parent.name!r} after its folder, not {name!r}",
                    "rename the folder or the `name` so they match",
                    path,
                    field="name",
                )
            )
        return path.parent.name
    if not name:
        name = collapse_whitespace(path.parent.name) or "skill"
        out.append(
            diagnostic(
                "SK109",
                Severity.INFO,
                f"no `name`; the folder name {name!r} is used",
                f"add `name: {name}` to the frontmatter",
                path,
                field="name",
            )
        )
    if len(name) > MAX_NAME_CHARS:
        out.append(
            diagnostic(
                "SK108",
                Severity.ERROR,
                f"invalid name: exceeds maximum length of {MAX_NAME_CHARS} characters ({len(name)})",
                f"shorten the name to at most {MAX_NAME_CHARS} characters",
                path,
                field="name",
            )
        )
        return None
    return name


def skill_description(
    declared: str | None, body: str, *, path: Path, claude: bool, out: list[Diagnostic]
) -> str | None:
    """The description the agent shows; None when there is none (SK107)."""
    description = collapse_whitespace(declared or "")
    if not description and claude:
        description = _first_line(body)
        if description:
            out.append(
                diagnostic(
                    "SK125",
                    Severity.WARNING,
                    "no `description`; Claude Code uses the first line of the body",
                    "add a `description:` that says what the skill does and when to use it",
                    path,
                    field="description",
                )
            )
    if description:
        return description
    out.append(
        diagnostic(
            "SK107",
            Severity.ERROR,
            "missing field `description`",
            "add `description:` saying what the skill does and when to use it",
            path,
            field="description",
        )
    )
    return None


def _first_line(body: str) -> str:
    for line in body.splitlines():
        text = collapse_whitespace(line.lstrip("#"))
        if text:
            return text
    return ""
