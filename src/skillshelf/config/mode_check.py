"""Whether a ``[[skills.config]]`` entry just written decides the mode of its skills, and if not, why.

``skillshelf enable`` / ``disable`` write one entry, but the last entry that matches a skill
wins: a ``path`` entry below a ``name`` one, a trusted project's entry, or a requirement
(``requirements.required_skills`` / ``disabled_skills``, applied after every entry) can still
decide, and an entry in a layer that is off (an untrusted project) decides nothing.
:func:`mode_warnings` gives the warnings the command prints then, each naming the file that
decides, its line, and how to change it; also when an entry of Codex's own ``config.toml``
still disables a skill being turned on (skillshelf's entry decides for skillshelf only).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillshelf.config.layers import ConfigLayer, LayerKind
from skillshelf.config.modes import ModedSkills, SkillMode, SkillRule
from skillshelf.config.trust import canonical
from skillshelf.skills.model import Skill

__all__ = ["mode_warnings"]


def mode_warnings(
    *,
    target: str,
    wanted: SkillMode,
    skills: Sequence[Skill],
    moded: ModedSkills,
    written: Path,
    layers: Sequence[ConfigLayer],
    command: str,
) -> tuple[str, ...]:
    """Why the entry for ``target`` written to ``written`` does not give ``skills`` (the skills it
    selects) the mode ``wanted`` once the config is read again (``moded``, ``layers``).

    ``command`` is the command that wrote it without ``skillshelf`` and ``--project`` (such as
    ``enable --mode pinned my-skill``), named in the fix for an entry of a project's config.
    """
    warnings: list[str] = []
    off = _layer_off(layers, written)
    if off is not None:
        warnings.append(f"{written} is not in effect: {off}")
    several = len(skills) > 1
    for skill in skills:
        mode = moded.mode_of(skill)
        rule = moded.decided_by.get(skill.path)
        if mode is wanted or (rule is None and off is not None):
            continue
        what = f"{target} ({skill.path})" if several else target
        if rule is None:
            warning = f"{what} is still {mode.value}: the entry in {written} is not read from here"
        else:
            warning = f"{what} is still {mode.value}: {_decides(rule)}; {_fix(rule, written, command)}"
        if warning not in warnings:
            warnings.append(warning)
    for skill in skills:
        codex = _codex_mode(layers, skill)
        if codex is not None and codex.mode is SkillMode.DISABLED and wanted is not SkillMode.DISABLED:
            what = f"{target} ({skill.path})" if several else target
            warning = (
                f"Codex itself still keeps {what} disabled: the entry at {codex.where} in its own "
                "config.toml decides for Codex; set `enabled = true` there (or remove it)"
            )
            if warning not in warnings:
                warnings.append(warning)
    return tuple(warnings)


def _codex_mode(layers: Sequence[ConfigLayer], skill: Skill) -> SkillRule | None:
    """The last entry of Codex's own config.toml that matches ``skill`` (Codex reads it itself)."""
    found = None
    for layer in layers:
        if layer.kind is LayerKind.CODEX and layer.active:
            found = next((rule for rule in reversed(layer.rules) if rule.matches(skill)), found)
    return found


def _layer_off(layers: Sequence[ConfigLayer], written: Path) -> str | None:
    """Why the layer read from ``written`` takes no effect (None when it does, or is not read)."""
    for layer in layers:
        if layer.path is not None and canonical(layer.path) == canonical(written) and not layer.active:
            return layer.disabled_reason or "the file cannot be read (see `skillshelf config show`)"
    return None


def _decides(rule: SkillRule) -> str:
    if rule.source.startswith("requirements."):
        return f"`{rule.source}` ({rule.where}) keeps it {rule.mode.value} whatever the entries say"
    return (
        f"the entry at {rule.where} ({rule.selector} -> {rule.mode.value}) decides, "
        "as the last entry that matches it"
    )


def _fix(rule: SkillRule, written: Path, command: str) -> str:
    if rule.source.startswith("requirements."):
        return "remove it from that list there (an administrator's file needs its owner)"
    in_project = rule.source.startswith("project") and rule.file is not None
    if in_project and canonical(rule.file or written) != canonical(written):
        return f"run `skillshelf {_with_project(command)}`, or edit or remove that entry"
    return "edit or remove that entry"


def _with_project(command: str) -> str:
    verb, _, rest = command.partition(" ")
    return f"{verb} --project {rest}"
