"""Whether a ``[[skills.config]]`` entry just written decides the mode of its skills, and if not, why.

``skillshelf enable`` / ``disable`` write one entry, but the last entry that matches a skill
wins: a ``path`` entry below a ``name`` one, a trusted project's entry, or a requirement
(``requirements.required_skills`` / ``disabled_skills``, applied after every entry) can still
decide, and an entry in a layer that is off (an untrusted project) decides nothing.
:func:`mode_findings` gives the warnings the command prints then as coded findings, made here,
each naming the file that decides, its line, and with the way to change it as its fix:

* ``CF109`` the file written is not in effect (an untrusted project, project config not
  allowed); its fix is the one of the config's own ``CF109`` for that file (what `list` and
  `context` say);
* ``CF123`` another entry, or a requirement, still decides the skill's mode (or the file is not
  read from here);
* ``CF124`` an entry of Codex's own ``config.toml`` still disables a skill being turned on
  (skillshelf's entry decides for skillshelf only).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillshelf.config.layers import ConfigLayer, LayerKind, with_fix
from skillshelf.config.modes import ModedSkills, SkillMode, SkillRule
from skillshelf.config.trust import canonical
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.model import Skill

__all__ = ["mode_findings"]

_SHOW = "run `skillshelf config show` to see the config files read from here and the entries that match"
"""The fix of a finding that has no better one: where to see which files and entries count."""


def mode_findings(
    *,
    target: str,
    wanted: SkillMode,
    skills: Sequence[Skill],
    moded: ModedSkills,
    written: Path,
    layers: Sequence[ConfigLayer],
    command: str,
    config_findings: Sequence[Diagnostic] = (),
) -> tuple[Diagnostic, ...]:
    """Why the entry for ``target`` written to ``written`` does not give ``skills`` (the skills it
    selects) the mode ``wanted`` once the config is read again (``moded``, ``layers``), as
    ``CF109`` / ``CF123`` / ``CF124`` warnings.

    ``command`` is the command that wrote it without ``skillshelf`` and ``--project`` (such as
    ``enable --mode pinned my-skill``), named in the fix for an entry of a project's config;
    ``config_findings`` are the config's findings, whose ``CF109`` for ``written`` gives the fix
    of a file not in effect.
    """
    findings: list[Diagnostic] = []
    off = _layer_off(layers, written)
    if off is not None:
        findings.append(_not_in_effect(written, off, config_findings))
    several = len(skills) > 1
    for skill in skills:
        mode = moded.mode_of(skill)
        rule = moded.decided_by.get(skill.path)
        if mode is wanted or (rule is None and off is not None):
            continue
        what = f"{target} ({skill.path})" if several else target
        _add(findings, _still_decided(what, mode, rule, written, command))
    for skill in skills:
        codex = _codex_mode(layers, skill)
        if codex is not None and codex.mode is SkillMode.DISABLED and wanted is not SkillMode.DISABLED:
            what = f"{target} ({skill.path})" if several else target
            _add(findings, _codex_keeps(what, codex))
    return tuple(findings)


def _add(findings: list[Diagnostic], finding: Diagnostic) -> None:
    """``finding`` once (several skills of one name can give the same one)."""
    if finding not in findings:
        findings.append(finding)


def _not_in_effect(written: Path, off: ConfigLayer, config_findings: Sequence[Diagnostic]) -> Diagnostic:
    """``CF109``: ``written`` is off, for the cause of its layer ``off``; the config's own ``CF109``
    for it, when it has one, gives the fix, which the message then leaves out (said once)."""
    given = next((d for d in config_findings if d.code == "CF109" and _same(d.path, written)), None)
    if off.disabled_cause is None:
        why = "the file cannot be read (see `skillshelf config show`)"
    elif given is not None:
        why = off.disabled_cause
    else:
        why = with_fix(off.disabled_cause, off.disabled_fix)
    return Diagnostic(
        code="CF109",
        severity=Severity.WARNING,
        message=f"{written} is not in effect: {why}",
        fix=given.fix if given is not None else _SHOW,
        path=written,
    )


def _still_decided(
    what: str, mode: SkillMode, rule: SkillRule | None, written: Path, command: str
) -> Diagnostic:
    """``CF123``: another entry or a requirement (``rule``) still gives ``what`` its ``mode``, or
    no entry decides because ``written`` is not read from here."""
    if rule is None:
        message = f"{what} is still {mode.value}: the entry in {written} is not read from here"
        fix = _SHOW
    else:
        message = f"{what} is still {mode.value}: {_decides(rule)}"
        fix = _fix(rule, written, command)
    return Diagnostic(code="CF123", severity=Severity.WARNING, message=message, fix=fix, path=written)


def _codex_keeps(what: str, codex: SkillRule) -> Diagnostic:
    """``CF124``: the entry ``codex`` of Codex's own config.toml keeps ``what`` disabled for Codex."""
    return Diagnostic(
        code="CF124",
        severity=Severity.WARNING,
        message=f"Codex itself still keeps {what} disabled: the entry at {codex.where} in its own "
        "config.toml decides for Codex",
        fix="set `enabled = true` there (or remove it)",
    )


def _same(path: Path | None, written: Path) -> bool:
    """Whether ``path`` names the file ``written`` (as the config loader spells it, or as given)."""
    return path is not None and canonical(path) == canonical(written)


def _codex_mode(layers: Sequence[ConfigLayer], skill: Skill) -> SkillRule | None:
    """The last entry of Codex's own config.toml that matches ``skill`` (Codex reads it itself)."""
    found = None
    for layer in layers:
        if layer.kind is LayerKind.CODEX and layer.active:
            found = next((rule for rule in reversed(layer.rules) if rule.matches(skill)), found)
    return found


def _layer_off(layers: Sequence[ConfigLayer], written: Path) -> ConfigLayer | None:
    """The layer read from ``written`` when it takes no effect (None when it does, or is not read)."""
    for layer in layers:
        if layer.path is not None and canonical(layer.path) == canonical(written) and not layer.active:
            return layer
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
