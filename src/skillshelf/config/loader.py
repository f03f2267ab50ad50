"""``load_config``: read every layer, decide trust, merge, and derive the skill rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.config.guards import (
    SYSTEM_DIR_VARIABLE,
    drop_project_requirements,
    drop_projects,
    drop_root_markers,
    moved_system,
    withheld_skills,
)
from skillshelf.config.layers import (
    ConfigLayer,
    LayerKind,
    config_present,
    read_layer,
    runtime_layer,
    with_fix,
)
from skillshelf.config.merge import Merged, Provenance, merge_layers, merge_requirements
from skillshelf.config.modes import SkillMode, SkillRule
from skillshelf.config.tomlmap import parse_dotted_key
from skillshelf.config.trust import TrustDecision, canonical, decide_trust, relative_keys, trust_command
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env, find_project_root, folders_between
from skillshelf.skills.codex_config import read_codex_settings

__all__ = ["Config", "Switch", "load_config"]

CONFIG_NAME = "config.toml"
PROJECT_DIR = ".skillshelf"


@dataclass(frozen=True, slots=True, kw_only=True)
class Switch:
    """An on/off setting and what decided it (``None``: nothing set it, its default)."""

    on: bool = True
    source: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """The merged configuration with where each value came from.

    ``values`` holds only active layers (an untrusted project's values never reach it);
    ``layers`` holds every layer found, active or not, with the reason it is off.
    ``bundled_skills`` and ``skills_instructions`` are Codex's two skills switches as they apply
    here: skillshelf's own config when it sets them, else Codex's config.
    """

    values: Mapping[str, object] = field(hash=False)
    layers: tuple[ConfigLayer, ...]
    provenance: Mapping[str, Provenance] = field(hash=False)
    diagnostics: tuple[Diagnostic, ...]
    skill_rules: tuple[SkillRule, ...]
    trust: TrustDecision
    user_config: Path
    project_root: Path  # by :func:`root_markers`: the root discovery finds the project's skills from
    project_root_markers: tuple[str, ...] | None = None  # skillshelf's own: for discovery, over Codex's
    requirements: Mapping[str, object] = field(default_factory=dict, hash=False)
    bundled_skills: Switch = Switch()  # ``[skills.bundled] enabled``: Codex's system skills
    skills_instructions: Switch = Switch()  # ``skills.include_instructions``: the skills list
    skills_withheld: Diagnostic | None = None  # ``CF118``: the system layer cannot be read, no skills
    system_moved: Diagnostic | None = None  # ``CF121``: $SKILLSHELF_SYSTEM_CONFIG_DIR chose the system folder

    @property
    def trusted(self) -> bool:
        return self.trust.trusted

    def get(self, dotted: str, default: object = None) -> object:
        """The merged value at ``a.b.c`` (``default`` when unset); a key with a dot in it is
        quoted as TOML writes it, as in :attr:`provenance` (``projects."/src/my.app".trust_level``)."""
        node: object = self.values
        for part in parse_dotted_key(dotted) or (dotted,):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return node

    @property
    def include_builtin(self) -> bool:
        """``[skills] builtin`` (default true), forced off by ``requirements.allow_builtin_skills``."""
        if self.requirements.get("allow_builtin_skills") is False:
            return False
        return self.get("skills.builtin", True) is not False

    @property
    def builtin_enabled(self) -> bool:
        """Same as :attr:`include_builtin`."""
        return self.include_builtin

    @property
    def context_window(self) -> int | None:
        """``catalog.context_window``: the model's window, which sizes the catalog (2%)."""
        value = self.get("catalog.context_window")
        return value if isinstance(value, int) else None

    @property
    def catalog_format(self) -> str | None:
        """``catalog.format``: the catalog format when the caller names none (checked on load)."""
        value = self.get("catalog.format")
        return value if isinstance(value, str) else None

    @property
    def skills_max_context_tokens(self) -> int | None:
        """The catalog's token budget: ``catalog.budget_tokens`` (or Codex's
        ``skills.max_context_tokens``), never above ``requirements.max_catalog_tokens``."""
        value = self.get("catalog.budget_tokens", self.get("skills.max_context_tokens"))
        configured = value if isinstance(value, int) else None
        cap = self.max_catalog_tokens
        if cap is None:
            return configured
        return cap if configured is None else min(configured, cap)

    @property
    def instructions_profile(self) -> str:
        """``instructions.profile``: ``codex`` (AGENTS.md, the default) or ``claude`` (CLAUDE.md)."""
        value = self.get("instructions.profile", "codex")
        return value if value in {"codex", "claude"} else "codex"

    @property
    def instructions_max_bytes(self) -> int | None:
        """``instructions.max_bytes``: overrides Codex's ``project_doc_max_bytes`` when set."""
        value = self.get("instructions.max_bytes")
        return value if isinstance(value, int) else None

    @property
    def instructions_fallback_filenames(self) -> tuple[str, ...] | None:
        """``instructions.fallback_filenames``: overrides Codex's ``project_doc_fallback_filenames``."""
        value = self.get("instructions.fallback_filenames")
        return tuple(value) if isinstance(value, list) else None

    @property
    def include_claude(self) -> bool:
        return self.get("skills.claude", True) is not False

    @property
    def extra_roots(self) -> tuple[Path, ...]:
        roots = self.get("skills.roots", [])
        return tuple(Path(p) for p in roots) if isinstance(roots, list) else ()

    @property
    def path_rules_to_check(self) -> tuple[SkillRule, ...]:
        """The ``path`` entries a requirement may overrule (``CF106``): a disabling one while a
        skill is required, any other while one is disabled. Whether it does depends on the skill
        the entry selects, so the warning comes once the skills are found (a ``Workspace``'s
        ``config.diagnostics``); entries by ``name`` are checked as the config loads."""
        kept = {rule.mode is SkillMode.REQUIRED for rule in self.skill_rules if _is_requirement(rule)}
        return tuple(
            rule
            for rule in self.skill_rules
            if rule.path is not None
            and not _is_requirement(rule)
            and (rule.mode is SkillMode.DISABLED) in kept
        )

    @property
    def max_catalog_tokens(self) -> int | None:
        value = self.requirements.get("max_catalog_tokens")
        return value if isinstance(value, int) else None

    def to_dict(self, *, explain: bool = False) -> dict[str, object]:
        out: dict[str, object] = {
            "values": self.values,
            "skill_rules": [rule.to_dict() for rule in self.skill_rules],
            "trust": self.trust.to_dict(),
            "user_config": str(self.user_config),
            "layers": [layer.to_dict() for layer in self.layers],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "system_moved": self.system_moved.to_dict() if self.system_moved else None,
        }
        if explain:
            out["provenance"] = {key: prov.to_dict() for key, prov in sorted(self.provenance.items())}
        return out


def _is_requirement(rule: SkillRule) -> bool:
    return rule.source.startswith("requirements.")


def _project_layers(env: Env, root: Path, user_file: Path) -> list[ConfigLayer]:
    layers = []
    cwd = canonical(env.cwd)
    for folder in folders_between(root, cwd if cwd.is_relative_to(root) else root):
        path = folder / PROJECT_DIR / CONFIG_NAME
        if config_present(path) is not False and canonical(path) != canonical(user_file):
            layers.append(read_layer(LayerKind.PROJECT, path, home=env.home))
    return layers


def _gate_projects(
    projects: list[ConfigLayer], trust: TrustDecision, early: Sequence[ConfigLayer]
) -> tuple[list[ConfigLayer], list[Diagnostic]]:
    """Turn project layers off when the project is untrusted or project config is forbidden."""
    tables = [(layer.label, layer.values.get("requirements")) for layer in early if layer.active]
    allowed, _, _ = merge_requirements((label, table) for label, table in tables if isinstance(table, dict))
    forbidden = allowed.get("allow_project_config") is False
    gated, diags = [], []
    for layer in projects:
        if not trust.trusted:
            layer = _turned_off(layer, trust.cause, trust.fix)
        elif forbidden:
            layer = _turned_off(layer, "requirements.allow_project_config = false (system, user or -c layer)")
        reason = layer.disabled_reason
        if reason and layer.loaded:  # one that cannot be read says why it is off in its own finding
            diags.append(
                Diagnostic(
                    code="CF109",
                    severity=Severity.INFO,
                    message=f"project config is not in effect: {reason}",
                    fix=f"run `{trust_command(trust.root)}` if you trust this project"
                    if not trust.trusted
                    else "ask whoever manages the system or user config to allow project config",
                    path=layer.path,
                )
            )
        gated.append(layer)
    return gated, diags


def _turned_off(layer: ConfigLayer, cause: str, fix: str | None = None) -> ConfigLayer:
    """``layer`` off for ``cause`` (``fix``: how to turn it on), its errors made warnings."""
    unused = _unused(layer.diagnostics, with_fix(cause, fix))
    return dataclasses.replace(
        layer, enabled=False, disabled_cause=cause, disabled_fix=fix, diagnostics=unused
    )


def _unused(found: Sequence[Diagnostic], reason: str) -> tuple[Diagnostic, ...]:
    """The findings of a project layer that is not in effect, as warnings: they are still shown,
    but a layer nothing reads does not fail the command (as Codex ignores an untrusted project's
    ``.codex/config.toml`` that does not parse)."""
    return tuple(
        dataclasses.replace(
            d, severity=Severity.WARNING, message=f"{d.message} (not in effect anyway: {reason})"
        )
        if d.severity is Severity.ERROR
        else d
        for d in found
    )


def _requirement_rules(
    rules: Sequence[SkillRule], requirements: Mapping[str, object], layers: Sequence[ConfigLayer]
) -> tuple[list[SkillRule], list[Diagnostic]]:
    required, disabled = _names(requirements, "required_skills"), _names(requirements, "disabled_skills")
    diags = []
    extra = [_requirement_rule(SkillMode.REQUIRED, n, "required_skills", layers) for n in required]
    extra += [_requirement_rule(SkillMode.DISABLED, n, "disabled_skills", layers) for n in disabled]
    by_name = {rule.name: rule for rule in extra}
    for rule in rules:
        kept = by_name.get(rule.name) if rule.name is not None else None
        if kept is not None and (rule.mode is SkillMode.DISABLED) is (kept.mode is SkillMode.REQUIRED):
            diags.append(rule.refused_by(kept))
    return extra, diags


def _requirement_rule(mode: SkillMode, name: str, key: str, layers: Sequence[ConfigLayer]) -> SkillRule:
    """The rule a requirement makes, with the file and line of the first layer that lists ``name``."""
    for layer in layers:
        requirements = layer.values.get("requirements") if layer.active else None
        listed = _names(requirements, key) if isinstance(requirements, Mapping) else []
        if name in listed:
            line = layer.line_of(("requirements", key, listed.index(name)))
            return SkillRule(mode=mode, name=name, source=f"requirements.{key}", file=layer.path, line=line)
    return SkillRule(mode=mode, name=name, source=f"requirements.{key}")


def _names(requirements: Mapping[str, object], key: str) -> list[str]:
    value = requirements.get(key)
    return [n for n in value if isinstance(n, str)] if isinstance(value, list) else []


def system_config_dir(env: Env, explicit: Path | None = None) -> Path:
    """``explicit``, else ``$SKILLSHELF_SYSTEM_CONFIG_DIR``, else ``Env.system_config_dir``."""
    if explicit is not None:
        return explicit
    from_env = env.environ.get(SYSTEM_DIR_VARIABLE)
    return Path(from_env) if from_env else env.system_config_dir


def _moved_system(env: Env, explicit: Path | None) -> Diagnostic | None:
    """``CF121`` when ``$SKILLSHELF_SYSTEM_CONFIG_DIR`` (not the caller) chose the system folder."""
    if explicit is not None or not env.environ.get(SYSTEM_DIR_VARIABLE):
        return None
    return moved_system(system_config_dir(env), env.system_config_dir, SYSTEM_DIR_VARIABLE)


def own_root_markers(layers: Sequence[ConfigLayer]) -> tuple[str, ...] | None:
    """``project_root_markers`` from the system, user or ``-c`` layer (the later wins), or None."""
    markers: tuple[str, ...] | None = None
    for layer in layers:
        value = layer.values.get("project_root_markers") if layer.active else None
        if isinstance(value, list):
            markers = tuple(value)
    return markers


def root_markers(env: Env, own: tuple[str, ...] | None) -> tuple[str, ...]:
    """The ``project_root_markers`` that find the project root, by discovery's rule
    (:func:`~skillshelf.skills.discover.discover_skills`): skillshelf's own (``own``), else
    those of Codex's ``config.toml``, else ``env``'s (``.git``). So a project's config layers and
    its trust are found from the root its skills are found from."""
    if own is not None:
        return own
    codex = read_codex_settings(env.codex_home).project_root_markers
    return env.project_root_markers if codex is None else codex


def load_config(
    env: Env, *, overrides: Sequence[str] = (), user_dir: Path | None = None, system_dir: Path | None = None
) -> Config:
    """Read and merge system, Codex, user, project and ``-c`` layers for ``env.cwd``."""
    user_file = (env.dirs.config if user_dir is None else user_dir) / CONFIG_NAME
    system = read_layer(LayerKind.SYSTEM, system_config_dir(env, system_dir) / CONFIG_NAME, home=env.home)
    codex = read_layer(LayerKind.CODEX, env.codex_home / CONFIG_NAME, home=env.home, only_rules=True)
    user = read_layer(LayerKind.USER, user_file, home=env.home)
    runtime, diags = drop_projects(runtime_layer(overrides, cwd=env.cwd, home=env.home))
    markers = own_root_markers([system, user, runtime])
    root = canonical(find_project_root(canonical(env.cwd), root_markers(env, markers)))
    projects = []
    for layer in _project_layers(env, root, user_file):
        layer, found = drop_projects(layer)
        layer, moved = drop_root_markers(layer)
        layer, gate = drop_project_requirements(layer)
        projects.append(layer)
        diags += found + moved + gate
    trust = decide_trust(root, [system, user])
    diags += relative_keys([system, user])
    projects, found = _gate_projects(projects, trust, [system, codex, user, runtime])
    diags += found
    layers = (system, codex, user, *projects, runtime)
    merged = merge_layers(layers)
    requirements = merged.values.get("requirements", {})
    requirements = requirements if isinstance(requirements, dict) else {}
    rules = [rule for layer in layers if layer.active for rule in layer.rules]
    extra, found = _requirement_rules(rules, requirements, layers)
    layer_diags = [d for layer in layers for d in layer.diagnostics]
    withheld = withheld_skills(system)
    return Config(
        values=merged.values,
        layers=layers,
        provenance=merged.provenance,
        diagnostics=(*layer_diags, *merged.diagnostics, *found, *diags, *([withheld] if withheld else [])),
        skill_rules=(*rules, *extra),
        trust=trust,
        user_config=user_file,
        project_root=root,
        project_root_markers=markers,
        requirements=requirements,
        skills_withheld=withheld,
        system_moved=_moved_system(env, system_dir),
        **_switches(env, merged),
    )


_SWITCH_KEYS = {
    "bundled_skills": "skills.bundled.enabled",
    "skills_instructions": "skills.include_instructions",
}


def _switches(env: Env, merged: Merged) -> dict[str, Switch]:
    """``[skills.bundled] enabled`` and ``skills.include_instructions``: skillshelf's own config
    when a layer sets them, else Codex's (:func:`~skillshelf.skills.roots.codex_skill_switches`)."""
    found = {name: _own_switch(merged, key) for name, key in _SWITCH_KEYS.items()}
    if None in found.values():
        from skillshelf.skills.roots import codex_skill_switches  # Codex's config and its trusted projects

        codex = codex_skill_switches(env)
        for name, switch in (("bundled_skills", codex.bundled), ("skills_instructions", codex.instructions)):
            if found[name] is None and switch.file is not None:
                source = f"{_SWITCH_KEYS[name]} = {str(switch.on).lower()} in {switch.file}"
                found[name] = Switch(on=switch.on, source=source)
    return {name: switch for name, switch in found.items() if switch is not None}


def _own_switch(merged: Merged, key: str) -> Switch | None:
    """The switch at ``key`` when a layer of skillshelf's config sets it."""
    node: object = merged.values
    for part in key.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    prov = merged.provenance.get(key)
    if not isinstance(node, bool) or prov is None:
        return None
    where = f"in {prov.file}" if prov.file else "(-c)" if prov.layer == "runtime" else f"({prov.layer})"
    return Switch(on=node, source=f"{key} = {str(node).lower()} {where}")
