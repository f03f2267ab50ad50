"""Per-skill controls: ``[[skills.config]]`` entries and what they do to a list of skills.

An entry selects skills by ``name`` (every skill with that name) or ``path`` (one SKILL.md or
its folder; in Codex's own config.toml the SKILL.md only, as Codex reads it: see
:mod:`.entry_checks`) and gives a ``mode``; Codex's ``enabled = true|false`` is read as
``enabled`` / ``disabled``. Entries are applied in layer order; the last one that matches a skill
wins.

=============  ==============================================================
``enabled``    listed in the catalog with its description (the default)
``disabled``   gone: not listed or loaded (loading it names the entry)
``name-only``  listed without its description
``manual``     not listed; loads when mentioned or asked for with ``load``
``pinned``     listed, and its body is always put in the context
``required``   listed; skillshelf fails when it is missing or does not load
=============  ==============================================================
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from skillshelf.config.entry_checks import (
    NOT_A_TABLE,
    Problem,
    codex_enable_hint,
    codex_folder_path,
    codex_refusal,
    is_codex_source,
    selector_problem,
    with_unknown_keys,
)
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import RequiredSkillError, SkillDisabledError
from skillshelf.fileio import resolve_path
from skillshelf.skills.model import Skill

__all__ = ["ModedSkills", "SkillMode", "SkillRule", "apply_skill_modes", "parse_rule"]


class SkillMode(StrEnum):
    """What a ``[[skills.config]]`` entry does to the skills it selects."""

    ENABLED = "enabled"
    DISABLED = "disabled"
    NAME_ONLY = "name-only"
    MANUAL = "manual"
    PINNED = "pinned"
    REQUIRED = "required"


MODE_NAMES = tuple(mode.value for mode in SkillMode)


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillRule:
    """One entry: a selector (``name`` or ``path``), a mode, and where it was written."""

    mode: SkillMode
    name: str | None = None
    path: Path | None = None
    source: str = "config"
    file: Path | None = None
    line: int | None = None

    @property
    def selector(self) -> str:
        return f"name {self.name!r}" if self.name is not None else f"path {self.path}"

    def matches(self, skill: Skill) -> bool:
        """By name, or by path: the skill's SKILL.md or (outside Codex's config.toml) folder as
        walked, or with every symlink resolved (``path`` is kept resolved, so a link's path and
        its target's both select it)."""
        if self.name is not None:
            return skill.name == self.name
        if self.path is None:
            return False
        real = skill.real_path
        files = {skill.path} if real is None else {skill.path, real}
        return self.path in (files if self.in_codex_config else files | {p.parent for p in files})

    @property
    def in_codex_config(self) -> bool:
        """Whether the entry is in Codex's own ``config.toml``, which Codex reads too."""
        return is_codex_source(self.source)

    @property
    def where(self) -> str:
        """``file:line`` of the entry, else its source (``a -c override``, a requirement)."""
        if self.file is not None:
            return f"{self.file}:{self.line}" if self.line else str(self.file)
        return "a -c override on the command line" if self.source == "runtime" else self.source

    def refused_by(self, requirement: SkillRule) -> Diagnostic:
        """The ``CF106`` warning for this entry, whose mode ``requirement`` overrules."""
        key, kept = requirement.source, requirement.mode.value
        what = self.selector if self.path is None else f"{self.selector} (skill {requirement.name!r})"
        return Diagnostic(
            code="CF106",
            severity=Severity.WARNING,
            message=f"[[skills.config]] sets {what} to {self.mode.value}, but {key} keeps it {kept}",
            fix=f"remove this entry, or change {key} where it is set",
            path=self.file,
            line=self.line,
            field="skills.config",
        )

    def enable_hint(self) -> str:
        """How to undo this entry's mode: the ``skillshelf enable`` command, or where to edit."""
        if self.source.startswith("requirements."):
            return (
                f"`{self.source}` lists it, and later layers can only add to requirements: remove it "
                f"there ({self.where}; an administrator's file needs its owner)"
            )
        if self.source == "runtime":
            return "drop the -c option that disables it"
        target = self.name if self.name is not None else str(self.path)
        if self.in_codex_config:
            return codex_enable_hint(target, self.where)
        project = " --project" if self.source.startswith("project") else ""
        return f"run `skillshelf enable{project} {target}`, or edit the entry at {self.where}"

    def disabled_error(self, asked: str) -> SkillDisabledError:
        """The error for loading ``asked`` (a name or path) that this entry disabled."""
        return SkillDisabledError(asked, disabled_by=self.where, hint=self.enable_hint())

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "path": str(self.path) if self.path else None,
            "mode": self.mode.value,
            "source": self.source,
            "file": str(self.file) if self.file else None,
            "line": self.line,
        }


def _canonical(path: Path) -> Path:
    try:
        return resolve_path(path)
    except OSError:
        return path


def parse_rule(
    entry: object, *, base: Path, source: str, file: Path | None, line: int | None
) -> tuple[SkillRule | None, Diagnostic | None]:
    """Read one ``[[skills.config]]`` table; a bad entry gives ``(None, diagnostic)``. An entry of
    Codex's ``config.toml`` that Codex refuses or matches to no skill, but skillshelf can read,
    gives ``(rule, warning)``."""

    def bad(problem: Problem) -> Diagnostic:
        message, fix, code = problem
        return Diagnostic(
            code=code,
            severity=Severity.WARNING,
            message=message,
            fix=fix,
            path=file,
            line=line,
            field="skills.config",
        )

    codex = is_codex_source(source)
    problem = selector_problem(entry)
    if problem is not None or not isinstance(entry, Mapping):
        return None, bad(with_unknown_keys(entry, problem, codex=codex) or NOT_A_TABLE)
    problem = codex_refusal(entry) if codex else None
    mode = _mode(entry)
    if not isinstance(mode, SkillMode):
        return None, bad(with_unknown_keys(entry, problem or mode, codex=codex) or mode)
    name, path, selected_path = entry.get("name"), entry.get("path"), None
    if isinstance(path, str):
        raw = Path(path).expanduser()
        selected_path = _canonical(raw if raw.is_absolute() else base / raw)
        problem = problem or (codex_folder_path(path, selected_path) if codex else None)
    stripped = name.strip() if isinstance(name, str) else None
    rule = SkillRule(mode=mode, name=stripped, path=selected_path, source=source, file=file, line=line)
    problem = with_unknown_keys(entry, problem, codex=codex)
    return rule, bad(problem) if problem else None


def _mode(entry: Mapping[str, object]) -> SkillMode | Problem:
    """The entry's mode (``mode``, else Codex's ``enabled``), or why it has none."""
    mode, enabled = entry.get("mode"), entry.get("enabled")
    if mode is None and enabled is None:
        return (
            "a [[skills.config]] entry needs `mode` (or Codex's `enabled`)",
            'add mode = "disabled" (or enabled, name-only, manual, pinned, required)',
            "CF105",
        )
    if mode is not None:
        if isinstance(mode, str) and mode in MODE_NAMES:
            return SkillMode(mode)
        import difflib  # only for a misspelt mode

        close = difflib.get_close_matches(str(mode).replace("_", "-"), MODE_NAMES, n=1)
        hint = f'did you mean mode = "{close[0]}"? ' if close else ""
        return f"unknown skill mode {mode!r}", f"{hint}use one of: {', '.join(MODE_NAMES)}", "CF104"
    if not isinstance(enabled, bool):
        return (
            "`enabled` in [[skills.config]] must be true or false",
            "write enabled = false (no quotes)",
            "CF102",
        )
    return SkillMode.ENABLED if enabled else SkillMode.DISABLED


@dataclass(frozen=True, slots=True, kw_only=True)
class ModedSkills:
    """Skills sorted by mode, each group in input order.

    ``visible``: listed in the catalog with their description (enabled, pinned, required).
    ``name_only``: listed without description (:meth:`catalog_skills` gives both, blanked).
    ``manual``: not listed, loadable. ``disabled``: gone. ``all_skills``: the input.
    """

    visible: tuple[Skill, ...]
    name_only: tuple[Skill, ...]
    manual: tuple[Skill, ...]
    pinned: tuple[Skill, ...]
    required: tuple[Skill, ...]
    disabled: tuple[Skill, ...]
    missing_required: tuple[SkillRule, ...]
    modes: Mapping[Path, SkillMode] = field(hash=False)
    all_skills: tuple[Skill, ...] = ()
    decided_by: Mapping[Path, SkillRule] = field(default_factory=dict, hash=False)  # the last matching entry
    diagnostics: tuple[Diagnostic, ...] = ()  # path entries a requirement overrules (CF106)

    @property
    def loadable(self) -> tuple[Skill, ...]:
        """Skills that may be loaded by name or mention: all but the disabled ones (input order)."""
        if not self.disabled:
            return self.all_skills
        gone = {skill.path for skill in self.disabled}
        return tuple(s for s in self.all_skills if s.path not in gone)

    def mode_of(self, skill: Skill) -> SkillMode:
        return self.modes.get(skill.path, SkillMode.ENABLED)

    def disabled_error(self, asked: str) -> SkillDisabledError | None:
        """Why ``asked`` (a name, ``$name`` or a SKILL.md or folder path) does not load: the
        error naming the entry that disabled it, when no loadable skill answers to ``asked``."""
        if not self.disabled:
            return None
        keys = _lookup_keys(asked)
        if any(_answers(skill, keys) for skill in self.loadable):
            return None
        for skill in self.disabled:
            rule = self.decided_by.get(skill.path)
            if rule is not None and _answers(skill, keys):
                return rule.disabled_error(asked)
        return None

    def catalog_skills(self) -> tuple[Skill, ...]:
        """Everything the catalog lists, in input order, ``name-only`` descriptions emptied."""
        if not self.name_only:
            return self.visible  # already in input order: no paths to hash (thousands on a warm run)
        hidden = {skill.path for skill in self.name_only}
        listed = hidden | {skill.path for skill in self.visible}
        return tuple(
            dataclasses.replace(s, description="", short_description=None) if s.path in hidden else s
            for s in self.all_skills
            if s.path in listed
        )

    def check_required(self, diagnostics: Sequence[Diagnostic] = ()) -> None:
        """Raise :meth:`required_error`'s error when there is one."""
        if (error := self.required_error(diagnostics)) is not None:
            raise error

    def required_error(self, diagnostics: Sequence[Diagnostic] = ()) -> RequiredSkillError | None:
        """The :class:`RequiredSkillError` when a ``required`` skill is missing or did not load.

        ``diagnostics`` (from discovery) explain a missing skill whose SKILL.md failed to parse.
        """
        if not self.missing_required:
            return None
        details = []
        for rule in self.missing_required:
            why = _why_missing(rule, diagnostics)
            where = (
                f" ({rule.file}:{rule.line})"
                if rule.file and rule.line
                else (f" ({rule.source})" if rule.source else "")
            )
            details.append(f"{rule.selector}{where}{why}")
        return RequiredSkillError(
            "required skill missing or invalid: " + "; ".join(details),
            hint="install or fix the skill (skillshelf validate PATH shows why it does not load), "
            "or remove its `required` entry",
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "modes": {str(path): mode.value for path, mode in self.modes.items()},
            "missing_required": [rule.to_dict() for rule in self.missing_required],
        }


def _lookup_keys(asked: str) -> frozenset[str]:
    """What ``asked`` may name, as :func:`skillshelf.skills.load.load_skill` reads it."""
    wanted = asked.strip()
    keys = {wanted, os.path.normpath(wanted)} if wanted else set()
    if wanted[:1] in {"$", "/"}:
        keys.add(wanted[1:])
    return frozenset(keys)


def _answers(skill: Skill, keys: frozenset[str]) -> bool:
    return bool(keys & {skill.name, str(skill.path), str(skill.folder)})


def _why_missing(rule: SkillRule, diagnostics: Sequence[Diagnostic]) -> str:
    for diag in diagnostics:
        if diag.path is None or diag.severity is not Severity.ERROR:
            continue
        if (rule.path is not None and rule.path in {diag.path, diag.path.parent}) or (
            rule.name is not None and diag.path.parent.name == rule.name
        ):
            return f": {diag.path}: {diag.message}"
    return ": no skill found"


def apply_skill_modes(skills: Sequence[Skill], rules: Sequence[SkillRule]) -> ModedSkills:
    """Give every skill its mode (last matching rule wins; default ``enabled``) and sort them."""
    if not rules:  # the usual case: every skill enabled (no hashing of thousands of paths)
        everything = tuple(skills)
        return ModedSkills(
            visible=everything,
            name_only=(),
            manual=(),
            pinned=(),
            required=(),
            disabled=(),
            missing_required=(),
            modes={},
            all_skills=everything,
        )
    decided: dict[Path, SkillRule] = {}
    overruled: dict[SkillRule, Diagnostic] = {}
    for skill in skills:
        matching = [rule for rule in rules if rule.matches(skill)]
        if matching:
            decided[skill.path] = matching[-1]
            overruled |= _overruled_paths(matching)
    modes = {path: rule.mode for path, rule in decided.items()}
    buckets: dict[SkillMode, list[Skill]] = {mode: [] for mode in SkillMode}
    for skill in skills:
        buckets[modes.get(skill.path, SkillMode.ENABLED)].append(skill)
    listed = {SkillMode.ENABLED, SkillMode.PINNED, SkillMode.REQUIRED}
    missing = _missing_required(skills, rules)
    return ModedSkills(
        visible=tuple(s for s in skills if modes.get(s.path, SkillMode.ENABLED) in listed),
        name_only=tuple(buckets[SkillMode.NAME_ONLY]),
        manual=tuple(buckets[SkillMode.MANUAL]),
        pinned=tuple(buckets[SkillMode.PINNED]),
        required=tuple(buckets[SkillMode.REQUIRED]),
        disabled=tuple(buckets[SkillMode.DISABLED]),
        missing_required=missing,
        modes=modes,
        all_skills=tuple(skills),
        decided_by=decided,
        diagnostics=tuple(overruled.values()),
    )


def _overruled_paths(matching: Sequence[SkillRule]) -> dict[SkillRule, Diagnostic]:
    """The ``path`` entries among the rules ``matching`` one skill that its requirement rule (the
    last, when a requirement names the skill) overrules: a disabling entry on a required skill,
    any other mode on a disabled one. Entries by ``name`` are checked as the config loads."""
    last = matching[-1]
    if not last.source.startswith("requirements."):
        return {}
    required = last.mode is SkillMode.REQUIRED
    return {
        rule: rule.refused_by(last)
        for rule in matching[:-1]
        if rule.path is not None
        and not rule.source.startswith("requirements.")
        and (rule.mode is SkillMode.DISABLED) is required
    }


def _missing_required(skills: Sequence[Skill], rules: Sequence[SkillRule]) -> tuple[SkillRule, ...]:
    """The last rule for each selector, when it says ``required`` and selects no skill."""
    last: dict[tuple[str | None, Path | None], SkillRule] = {}
    for rule in rules:
        last.pop((rule.name, rule.path), None)
        last[(rule.name, rule.path)] = rule
    return tuple(
        rule
        for rule in last.values()
        if rule.mode is SkillMode.REQUIRED and not any(rule.matches(skill) for skill in skills)
    )
