"""``skillshelf validate``: check skills against the specification, Codex or Claude Code.

Each PATH is a skill folder, a ``SKILL.md`` file, or any folder whose skills are found by
walking it. The walk (:mod:`skillshelf.skills.validate_walk`) also finds what agents would
silently skip (``skill.md`` spellings, hidden and too-deep folders, symlinked files), so every
skill-like file gets a verdict (a ``SKILL.md`` that is no regular file, and a skill Codex's own
scan misses at its limits, are checked and not loaded), and every problem comes with a fix:

- ``codex`` (default): what Codex would load, and why not;
- ``claude``: what Claude Code would list;
- ``spec``: the Agent Skills specification's rules.

For ``codex`` the set of loaded files comes from skillshelf's own discovery of the PATH as a
skills root (:func:`skillshelf.skills.discover.discover_in`), with Codex's depth but the walk's
folder and entry limits (:class:`WalkLimits`, five times Codex's) instead of Codex's; a PATH that
is over Codex's limits is scanned with them too (:mod:`skillshelf.skills.validate_limits`). That
scan's notes on links it could not follow
(broken or refused: SK205) are reported as they are.

Skills roots below a PATH are judged as the roots they are: a skill under ``<dir>/.agents/skills``
or ``<dir>/.codex/skills`` (Codex) or ``<dir>/.claude/skills`` (Claude Code), or under one of the
user's roots (``$CODEX_HOME/skills`` and its ``.system``, ``~/.agents/skills``,
``~/.claude/skills``, from the ``Env``), is placed, counted in depth and checked for hidden
folders from that root, not from the PATH, so ``validate .`` in a project judges the project's
own skills as the agent loads them.

Without a PATH, :func:`roots_here` gives the skill roots the profile's agent scans from the
working folder (the project's, then the user's), those that hold anything.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, get_args

from skillshelf.diagnostics import Diagnostic, Severity, has_errors, sort_diagnostics
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.skills.model import Skill
from skillshelf.skills.roots import (
    claude_roots,
    claude_user_dir,
    codex_roots,
    codex_skill_switches,
    enabled_claude_plugins,
)
from skillshelf.skills.same_names import copied_from
from skillshelf.skills.validate_inventory import inventory_of, path_problem
from skillshelf.skills.validate_limits import limits_notes
from skillshelf.skills.validate_profiles import (
    CODEX_MAX_DEPTH,
    Judgement,
    judge_claude,
    judge_codex,
    judge_spec,
)
from skillshelf.skills.validate_walk import (
    CLAUDE_ROOT_OWNERS,
    CODEX_ROOT_OWNERS,
    SKILL_FILE,
    Candidate,
    Inventory,
    WalkLimits,
    nested_root,
    real_path,
    rebase,
)

__all__ = ["PROFILES", "Profile", "SkillCheck", "ValidationReport", "roots_here", "validate_paths"]

Profile = Literal["spec", "codex", "claude"]
PROFILES: tuple[str, ...] = get_args(Profile)
# discovery notes that validation says better itself: same names (SK362), symlinked SKILL.md (SK356),
# a skill below Codex's depth (SK355)
_SUPERSEDED = frozenset({"SK220", "SK206", "SK210"})
# discovery notes on a link in a skill's tree (never on a SKILL.md), reported where they are:
# a link that cannot be followed (SK205: to nothing, or refused, as /proc/1/cwd is)
_LINK_NOTES = frozenset({"SK205"})


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillCheck:
    """The verdict on one skill file: would the profile's agent load it, and list it to the model."""

    path: Path
    name: str | None
    loaded: bool
    listed: bool

    def to_dict(self) -> dict[str, object]:
        return {"path": str(self.path), "name": self.name, "loaded": self.loaded, "listed": self.listed}


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationReport:
    """``checked`` skill files, every finding about them, and one verdict per file."""

    checked: int
    diagnostics: tuple[Diagnostic, ...]
    profile: str = "codex"
    skills: tuple[SkillCheck, ...] = ()

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def to_dict(self) -> dict[str, object]:
        """Exactly ``{"checked": N, "diagnostics": [...]}``, as ``validate --json`` prints it."""
        return {"checked": self.checked, "diagnostics": [d.to_dict() for d in self.diagnostics]}


def _discover(
    path: Path, walk: WalkLimits, out: dict[Diagnostic, None]
) -> tuple[dict[str, Skill], dict[str, list[Diagnostic]]]:
    """Canonical SKILL.md path -> skill as skillshelf's scan of ``path`` loads it (Codex's depth,
    no further than the inventory walk goes); notes not about one SKILL.md go to ``out`` (once:
    a root nested in a PATH is scanned with it too)."""
    from skillshelf.skills.discover import ScanLimits, discover_in

    limits = ScanLimits(max_depth=CODEX_MAX_DEPTH, max_dirs=walk.max_dirs, max_entries=walk.max_entries)
    discovery = discover_in([path], limits=limits)
    loaded = {real_path(s.path): s for s in discovery.skills}
    by_path: dict[str, list[Diagnostic]] = {}
    for diag in discovery.diagnostics:
        if diag.code in _SUPERSEDED:
            continue
        if diag.path is None or diag.code in _LINK_NOTES:
            out[diag] = None
        else:
            by_path.setdefault(real_path(diag.path), []).append(diag)
    return loaded, by_path


def _merge(judgement: Judgement, extra: Sequence[Diagnostic]) -> tuple[Diagnostic, ...]:
    seen = {(d.code, d.line, d.message) for d in judgement.diagnostics}
    return judgement.diagnostics + tuple(d for d in extra if (d.code, d.line, d.message) not in seen)


def _judge(
    cand: Candidate, profile: Profile, loaded: dict[str, Skill], notes: dict[str, list[Diagnostic]]
) -> Judgement:
    if profile == "claude":
        return judge_claude(cand)
    if profile == "spec":
        return judge_spec(cand)
    scan_notes = tuple(replace(d, path=cand.path) for d in notes.get(real_path(cand.path), ()))
    judgement = judge_codex(cand, loaded)
    if has_errors(scan_notes):  # the scan says why it did not load the file: no SK366 guess
        judgement = replace(
            judgement, diagnostics=tuple(d for d in judgement.diagnostics if d.code != "SK366")
        )
    return Judgement(
        name=judgement.name,
        loaded=judgement.loaded,
        listed=judgement.listed,
        diagnostics=_merge(judgement, scan_notes),
    )


def _without_claude_copies(group: Sequence[SkillCheck], claude_homes: Sequence[str]) -> list[SkillCheck]:
    """``group`` without the skills of Claude Code's roots that copy one of another root byte for
    byte (one plugin installed in both agents): discovery lists those once."""
    entries = [
        (c.name or "", c.path, any(_inside(real_path(c.path), home) for home in claude_homes)) for c in group
    ]
    return [c for c, original in zip(group, copied_from(entries), strict=True) if original is None]


def _same_names(
    checks: Sequence[SkillCheck], profile: Profile, claude_homes: Sequence[str] = ()
) -> list[Diagnostic]:
    if profile == "spec":
        return []
    by_name: dict[str, list[SkillCheck]] = {}
    for check in checks:
        if check.loaded and check.name:
            by_name.setdefault(check.name, []).append(check)
    out: list[Diagnostic] = []
    for name, named in by_name.items():
        group = _without_claude_copies(named, claude_homes)
        if len(group) < 2:
            continue
        others = ", ".join(str(c.path) for c in group)
        consequence = (
            "a plain `$name` selects neither"
            if profile == "codex"
            else "which one `/name` runs depends on the folder"
        )
        out += [
            path_problem(
                c.path,
                "SK362",
                f"{len(group)} skills are named {name!r} ({others}); {consequence}",
                "give each skill a distinct name",
                Severity.WARNING,
            )
            for c in group
        ]
    return out


def _special_checks(special: Sequence[Path], done: set[str]) -> list[SkillCheck]:
    """A verdict on each SKILL.md that is no regular file (a FIFO, a device, a broken link): checked,
    and loaded by no agent (its SK350/SK351 says why)."""
    out = []
    for path in special:
        key = real_path(path)
        if key not in done:
            done.add(key)
            out.append(SkillCheck(path=path, name=None, loaded=False, listed=False))
    return out


def roots_here(env: Env, profile: Profile) -> list[Path]:
    """The skill roots that ``profile``'s agent scans from ``env.cwd`` and that hold anything, in
    its order: Codex's for ``codex``, Claude Code's for ``claude``, both for ``spec``. A root
    inside another one is left to that one (which judges it as the root it is)."""
    roots = [] if profile == "claude" else codex_roots(env)
    roots += [] if profile == "codex" else claude_roots(env)
    chosen: dict[str, Path] = {}  # real path -> the root as the agent names it
    for root in roots:
        real = real_path(root.path)
        if real not in chosen and _has_entries(real):
            chosen[real] = root.path
    return [path for real, path in chosen.items() if not any(_inside(real, other) for other in chosen)]


def _has_entries(folder: str) -> bool:
    """Whether ``folder`` is a readable folder with anything in it (an empty root is no finding)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is not None
    except OSError:
        return False


def _inside(path: str, folder: str) -> bool:
    return path != folder and Path(path).is_relative_to(folder)


def _user_roots(env: Env | None, profile: Profile) -> list[Path]:
    if env is None or profile == "spec":
        return []
    if profile == "claude":  # the user's skills folder, and the skill folders of Claude Code's plugins
        return [claude_user_dir(env) / "skills", *_claude_plugin_folders(env)]
    skills = env.codex_home / "skills"
    return [skills, skills / ".system", env.home / ".agents" / "skills", env.admin_skills_dir]


def _system_off(env: Env | None, profile: Profile) -> tuple[str, Path] | None:
    """Codex's system skills folder (real path) and the config that turns it off
    (``[skills.bundled] enabled = false``), when it is off for ``profile``."""
    if env is None or profile != "codex":
        return None
    switch = codex_skill_switches(env).bundled
    if switch.on or switch.file is None:
        return None
    return real_path(env.codex_home / "skills" / ".system"), switch.file


def _without_system(
    placed: list[tuple[Candidate, Path | None]], off: tuple[str, Path], out: list[Diagnostic]
) -> list[tuple[Candidate, Path | None]]:
    """``placed`` without the skills of a system folder Codex does not load, and one note for them."""
    folder, config = off
    kept = [(cand, root) for cand, root in placed if not _inside(real_path(cand.path), folder)]
    if len(kept) < len(placed):
        out.append(
            Diagnostic(
                code="SK375",
                severity=Severity.INFO,
                message=f"Codex loads none of the {len(placed) - len(kept)} system skill(s) here: "
                f"[skills.bundled] enabled = false in {config}",
                fix="nothing to do if that is intended; remove that setting to have them loaded",
                path=Path(folder),
            )
        )
    return kept


def _claude_plugin_folders(env: Env | None) -> dict[Path, str]:
    """The skill folders of Claude Code's plugins, each with its plugin's name (its skills'
    ``NAME:`` prefix)."""
    if env is None:
        return {}
    return {
        folder.parent if folder.name == SKILL_FILE else folder: plugin.name
        for plugin in enabled_claude_plugins(env)
        for folder in plugin.skill_folders
    }


def _roots_below(base: Path, roots: Sequence[Path]) -> frozenset[Path]:
    """``roots`` that lie below ``base``, written as the walk of ``base`` reaches them."""
    real_base = real_path(base)
    out: set[Path] = set()
    for root in roots:
        rel = os.path.relpath(real_path(root), real_base)
        if rel != "." and not rel.startswith(".."):
            out.add(base / rel)
    return frozenset(out)


def _placed(
    inventory: Inventory, profile: Profile, known: frozenset[Path]
) -> list[tuple[Candidate, Path | None]]:
    """Each candidate as seen from the skills root below the PATH that holds it (``None``: none)."""
    if profile == "spec":
        return [(cand, None) for cand in inventory.candidates]
    owners = CLAUDE_ROOT_OWNERS if profile == "claude" else CODEX_ROOT_OWNERS
    out: list[tuple[Candidate, Path | None]] = []
    for cand in inventory.candidates:
        root = nested_root(cand, owners, known)
        out.append((cand, None) if root is None else (rebase(cand, root), root))
    return out


def validate_paths(
    paths: Sequence[Path],
    *,
    profile: Profile = "codex",
    limits: WalkLimits | None = None,
    env: Env | None = None,
) -> ValidationReport:
    """Check every skill at or below ``paths`` against ``profile``; never raises on bad content.

    ``env`` names the user's own skill roots, recognised below a PATH like project roots are.

    Raises:
        UsageError: ``profile`` is not one of :data:`PROFILES`, or no path was given.
    """
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}", hint=f"use one of: {', '.join(PROFILES)}")
    if not paths:
        raise UsageError(
            "no path to validate", hint="pass a skill folder, a SKILL.md file or a folder of skills"
        )
    limits = limits or WalkLimits()
    user_roots = _user_roots(env, profile)
    system_off = _system_off(env, profile)
    plugin_names = (
        {real_path(k): v for k, v in _claude_plugin_folders(env).items()} if profile == "claude" else {}
    )
    out: list[Diagnostic] = []
    scan_notes: dict[Diagnostic, None] = {}
    checks: list[SkillCheck] = []
    done: set[str] = set()
    for path in paths:
        inventory = inventory_of(Path(path), limits, out)
        if inventory is None:
            continue
        if not inventory.candidates:
            out += limits_notes(Path(path), inventory, [], None)[0]
            checks += _special_checks(inventory.special, done)
            continue
        placed = _placed(inventory, profile, _roots_below(Path(path), user_roots))
        if system_off is not None:
            placed = _without_system(placed, system_off, out)
        loaded: dict[str, Skill] = {}
        notes: dict[str, list[Diagnostic]] = {}
        if profile == "codex":
            for root in dict.fromkeys(root or Path(path) for _, root in placed):
                found, found_notes = _discover(root, limits, scan_notes)
                loaded.update(found)
                for key, diags in found_notes.items():
                    notes.setdefault(key, []).extend(diags)
        notes_here, missed = limits_notes(
            Path(path), inventory, placed, loaded if profile == "codex" else None
        )
        out += notes_here
        for cand, skills_root in placed:
            key = real_path(cand.path)
            if key in done:
                continue
            done.add(key)
            judgement = _judge(cand, profile, loaded, notes)
            out += judgement.diagnostics
            plugin = plugin_names.get(real_path(skills_root or path))
            name = f"{plugin}:{judgement.name}" if plugin and judgement.name else judgement.name
            kept = key not in missed  # a skill Codex's own scan misses at its limits is not loaded
            checks.append(
                SkillCheck(
                    path=cand.path,
                    name=name,
                    loaded=judgement.loaded and kept,
                    listed=judgement.listed and kept,
                )
            )
        checks += _special_checks(inventory.special, done)
    out += scan_notes
    claude_homes = [real_path(root.path) for root in claude_roots(env)] if env is not None else []
    out += _same_names(checks, profile, claude_homes)
    return ValidationReport(
        checked=len(checks), diagnostics=tuple(sort_diagnostics(out)), profile=profile, skills=tuple(checks)
    )
