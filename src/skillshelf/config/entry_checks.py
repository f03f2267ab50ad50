"""Checks of one ``[[skills.config]]`` entry (its selector), and what Codex 0.171.0 makes of an
entry in its own ``config.toml``. Each problem is ``(message, fix, code)``, which
:func:`skillshelf.config.modes.parse_rule` turns into a diagnostic of the entry.

skillshelf reads the entries of ``$CODEX_HOME/config.toml`` (the ``codex`` layer) as Codex does,
and says where Codex differs from skillshelf's own config (checked with codex-oracle):

* ``enabled`` is required and must be a boolean: without it (``missing field `enabled```), or
  with a string such as ``"false"``, Codex refuses to start with the file. ``mode`` is
  skillshelf's own key; Codex ignores it.
* ``path`` selects a skill by its ``SKILL.md`` (the file as walked, or with its links resolved);
  a path that names the skill's folder selects nothing in Codex.
* Codex reads the entry whatever skillshelf's own config says, so ``skillshelf enable`` (an entry
  in skillshelf's config, a later layer) changes skillshelf's view only.
* Codex ignores a key it does not know (no ``deny_unknown_fields``): an entry with ``modee`` or
  ``nmae`` starts, and an entry left without a selector selects nothing. skillshelf ignores such
  a key too and reports it (``CF103``, with the closest key of an entry).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "NOT_A_TABLE",
    "Problem",
    "codex_enable_hint",
    "codex_folder_path",
    "codex_refusal",
    "is_codex_source",
    "selector_problem",
    "with_unknown_keys",
]

Problem = tuple[str, str, str]  # (message, fix, code)

NOT_A_TABLE: Problem = (
    "a [[skills.config]] entry must be a table",
    'write it as [[skills.config]] with name = "..." and mode = "..."',
    "CF105",
)

_REFUSES = "Codex refuses to start with this config.toml"

#: The keys of an entry: its selector (``name`` or ``path``), skillshelf's ``mode``, Codex's ``enabled``.
ENTRY_KEYS = ("name", "path", "mode", "enabled")


def with_unknown_keys(entry: object, problem: Problem | None, *, codex: bool) -> Problem | None:
    """``problem`` with the keys of ``entry`` no reader knows as its likely cause (each with the
    closest key of an entry) in front of its fix; without a problem, the ``CF103`` warning for
    those keys; ``problem`` itself when there are none."""
    unknown = [str(key) for key in entry if key not in ENTRY_KEYS] if isinstance(entry, Mapping) else []
    if not unknown or not isinstance(entry, Mapping):
        return problem
    import difflib  # only for an unknown key

    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key.lower().replace("-", "_"), ENTRY_KEYS, n=1, cutoff=0.6)
        if close and close[0] not in entry:
            hints.append(f"did you mean `{close[0]}` for `{key}`?")
    fix = " ".join([*hints, f"an entry's keys are {', '.join(ENTRY_KEYS)}"])
    named = f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(f'`{key}`' for key in unknown)}"
    if problem is not None:
        return f"{problem[0]} ({named}, ignored)", f"{fix}; else {problem[1]}", problem[2]
    ignored = "ignored here and by Codex (Codex does not refuse the file)" if codex else "ignored"
    return f"{named} in a [[skills.config]] entry: {ignored}", fix, "CF103"


def selector_problem(entry: object) -> Problem | None:
    """Why ``entry`` selects no skill: not a table, no selector or both, or an empty one."""
    if not isinstance(entry, Mapping):
        return NOT_A_TABLE
    name, path = entry.get("name"), entry.get("path")
    if (name is None) == (path is None):
        return (
            "a [[skills.config]] entry needs exactly one of `name` or `path`",
            'keep one selector: name = "my-skill" or path = "/abs/path/to/SKILL.md"',
            "CF105",
        )
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return "`name` in [[skills.config]] must be a non-empty string", 'write name = "my-skill"', "CF102"
    if path is not None and (not isinstance(path, str) or not path.strip()):
        return (
            "`path` in [[skills.config]] must be a non-empty string",
            'write path = "/abs/path/to/SKILL.md"',
            "CF102",
        )
    return None


def is_codex_source(source: str) -> bool:
    """Whether an entry's ``source`` label is the ``codex`` layer (Codex's own ``config.toml``)."""
    return source == "codex" or source.startswith("codex (")


def codex_refusal(entry: Mapping[str, object]) -> Problem | None:
    """Why Codex refuses to start with a file holding ``entry``: a missing or non-boolean
    ``enabled``; None when Codex reads it."""
    enabled = entry.get("enabled")
    if enabled is None:
        return (
            f"a [[skills.config]] entry in Codex's config.toml needs `enabled`: {_REFUSES} "
            "(missing field `enabled`)",
            "add enabled = false to turn the skill off (enabled = true to turn it on); `mode` is "
            "skillshelf's own key, which Codex ignores: other modes go in skillshelf's config "
            "(`skillshelf enable --mode MODE NAME`)",
            "CF105",
        )
    if not isinstance(enabled, bool):
        return (
            f"`enabled` in [[skills.config]] must be true or false: {_REFUSES} (not a boolean)",
            "write enabled = false (no quotes)",
            "CF102",
        )
    return None


def codex_folder_path(written: str, selected: Path) -> Problem | None:
    """The warning for a ``path`` (``written``, ``selected`` once resolved) that names a folder,
    which Codex matches to no skill; None for any other path."""
    if not os.path.isdir(selected):
        return None
    skill_md = json.dumps(str(Path(written) / "SKILL.md"), ensure_ascii=False)
    return (
        "Codex ignores a [[skills.config]] `path` that names a folder: this entry selects no skill, "
        "in Codex or here",
        f"point it at the skill's SKILL.md: path = {skill_md}",
        "CF115",
    )


def codex_enable_hint(target: str, where: str) -> str:
    """How to turn on a skill an entry of Codex's ``config.toml`` (at ``where``) turns off."""
    return (
        f"set enabled = true in the entry at {where} (or remove it): Codex reads that file itself, "
        f"while `skillshelf enable {target}` would enable it for skillshelf only (its catalog, "
        "context and tools), not in Codex"
    )
