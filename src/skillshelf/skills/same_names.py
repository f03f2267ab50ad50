"""Skills that share a name.

Codex keeps every skill of a name: its catalog lists each one, and a ``$name`` mention then
selects none of those it reads; a skill of the name that only Claude Code reads (in
``.claude/skills``) does not count for Codex, nor one of Codex's for Claude Code (``SK220`` says
what ``$name`` selects for each, :func:`~skillshelf.skills.mentions.named_choice`).

skillshelf's built-in skills are not Codex's: they are there for when nothing of the kind is
installed. A built-in whose name a skill of the user's, the project's or an installed one also
has is therefore left out (``SK222``), so the name keeps pointing at the skill the user chose
and ``$name`` still selects it.

A skill Claude Code reads that is a copy of one Codex reads (same name, same ``SKILL.md``
bytes: one plugin installed in both agents, or one skill copied into both folders) is the same
skill; it is listed once, as Codex's (a copied folder with an ``SK223`` note).

Names that differ only in Unicode normalization (``café`` composed and decomposed) are
different names to Codex and Claude Code, which compare them byte for byte, yet print the same:
the catalog then shows one name twice, and which skill a typed ``$café`` selects depends on the
keyboard. Each such pair gets an ``SK224`` warning.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.fileio import open_regular
from skillshelf.skills.mentions import named_choice
from skillshelf.skills.model import MAX_SKILL_BYTES, RootOrigin, Skill

__all__ = [
    "copied_from",
    "duplicate_names",
    "look_alike_names",
    "mention_selects",
    "same_bytes",
    "without_claude_copies",
    "without_shadowed_builtins",
]


def without_shadowed_builtins(skills: Sequence[Skill]) -> tuple[list[Skill], list[Diagnostic]]:
    """``skills`` without the built-ins another skill shares a name with, and a note for each."""
    own: dict[str, Skill] = {}
    for skill in skills:
        if skill.origin is not RootOrigin.BUILTIN:
            own.setdefault(skill.name, skill)
    kept: list[Skill] = []
    notes: list[Diagnostic] = []
    for skill in skills:
        mine = own.get(skill.name) if skill.origin is RootOrigin.BUILTIN else None
        if mine is None:
            kept.append(skill)
            continue
        notes.append(
            diagnostic(
                "SK222",
                Severity.INFO,
                f"skillshelf's built-in skill {skill.name!r} is left out: this skill has its name",
                f"nothing to do if this is the one you want; rename it to have skillshelf's "
                f"{skill.name!r} as well",
                mine.path,
            )
        )
    return kept, notes


def copied_from(entries: Sequence[tuple[str, Path, bool]]) -> list[int | None]:
    """For each ``(name, SKILL.md path, read by Claude Code)``, the index of the entry of another
    agent's root it copies (same name, same bytes), else ``None``: Claude Code's copies of
    skills that Codex or skillshelf also read."""
    others: dict[str, list[int]] = {}
    for index, (name, _path, claude) in enumerate(entries):
        if not claude:
            others.setdefault(name, []).append(index)
    return [
        next((i for i in others.get(name, []) if same_bytes(path, entries[i][1])), None) if claude else None
        for name, path, claude in entries
    ]


def without_claude_copies(skills: Sequence[Skill]) -> tuple[list[Skill], list[Diagnostic]]:
    """``skills`` without those of Claude Code's roots that copy one of another root (same name,
    same ``SKILL.md`` bytes), and a note for each."""
    originals = copied_from([(s.name, s.path, s.origin.is_claude) for s in skills])
    kept: list[Skill] = []
    notes: list[Diagnostic] = []
    for skill, index in zip(skills, originals, strict=True):
        if index is None:
            kept.append(skill)
            continue
        original = skills[index]
        if skill.origin is RootOrigin.CLAUDE_PLUGIN and original.origin is RootOrigin.CODEX_PLUGIN:
            continue  # one plugin installed in both agents: each keeps its copy, nothing to say
        notes.append(
            diagnostic(
                "SK223",
                Severity.INFO,
                f"the same skill as {original.path} (the same name and text); listed once, as that one",
                "nothing to do; link the two folders instead of copying to keep them in step",
                skill.path,
            )
        )
    return kept, notes


def same_bytes(one: Path, other: Path) -> bool:
    """Whether two skill files hold the same bytes (``False`` when either cannot be read)."""
    try:
        if os.path.getsize(one) != os.path.getsize(other):
            return False
        with open_regular(one) as first, open_regular(other) as second:
            return first.read(MAX_SKILL_BYTES + 1) == second.read(MAX_SKILL_BYTES + 1)
    except OSError:
        return False


def duplicate_names(skills: Sequence[Skill]) -> list[Diagnostic]:
    """An ``SK220`` note for each name that more than one of ``skills`` has."""
    by_name: dict[str, list[Skill]] = {}
    for skill in skills:  # one pass: a scan of every skill per shared name is quadratic at scale
        by_name.setdefault(skill.name, []).append(skill)
    out: list[Diagnostic] = []
    for name, paths in sorted(by_name.items()):
        if len(paths) < 2:
            continue
        where = ", ".join(f"{s.path} ({s.scope.value})" for s in paths)
        selects = mention_selects(name, paths)
        out.append(
            diagnostic(
                "SK220",
                Severity.INFO,
                f"{len(paths)} skills are named {name!r}: {where}; all are kept, and {selects}",
                "rename one of them, or disable the one you do not want; a link to its SKILL.md, "
                f"[${name}](path/to/SKILL.md), selects one",
                paths[0].path,
            )
        )
    return out


def mention_selects(name: str, same_name: Sequence[Skill]) -> str:
    """What ``$name`` selects among ``same_name`` for Codex and for Claude Code (through
    skillshelf's hook)."""
    codex, claude = named_choice(same_name, "codex"), named_choice(same_name, "claude")
    if codex is None and claude is None:
        return f"`${name}` selects none of them"
    for_codex = "none of them" if codex is None else str(codex.path)
    for_claude = "none of them" if claude is None else str(claude.path)
    return f"`${name}` selects {for_codex} for Codex and {for_claude} for Claude Code"


def look_alike_names(skills: Sequence[Skill]) -> list[Diagnostic]:
    """An ``SK224`` warning for each set of distinct names of ``skills`` that are one name in
    Unicode's composed form (NFC)."""
    if all(skill.name.isascii() for skill in skills):
        return []  # the usual library: no name to fold
    by_form: dict[str, dict[str, Skill]] = {}
    for skill in skills:
        by_form.setdefault(unicodedata.normalize("NFC", skill.name), {}).setdefault(skill.name, skill)
    out: list[Diagnostic] = []
    for form, named in sorted(by_form.items()):
        if len(named) < 2:
            continue
        where = ", ".join(f"{s.path} ({ascii(name)})" for name, s in named.items())
        out.append(
            diagnostic(
                "SK224",
                Severity.WARNING,
                f"{len(named)} skills have names that print as {form!r} but differ in their Unicode "
                f"form: {where}; the catalog shows the name twice and `${form}` selects only the one "
                "typed the same way",
                "give them names that differ in their letters, not only in Unicode form (a decomposed "
                "name is often written by a macOS tool), or keep one of the two skills",
                next(iter(named.values())).path,
            )
        )
    return out
