"""The parts of :func:`skillshelf.context.build_context`, one function per part.

Each function calls one area's library API and returns :class:`ContextPart` values; the
composition and its order live in :mod:`skillshelf.context`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.context import ContextOptions, ContextPart
from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.skills.model import Discovery, Skill

if TYPE_CHECKING:
    from skillshelf.config import Config, ModedSkills
    from skillshelf.skills.catalog.window import BudgetChoice

__all__ = [
    "ContextSkills",
    "catalog_part",
    "discover_for_context",
    "index_cache_dir",
    "instructions_part",
    "memory_part",
    "mentioned_part",
    "pinned_part",
    "resolve_modes",
    "suggestions_part",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextSkills:
    """Skills sorted by what the context does with them (from the per-skill modes)."""

    listed: tuple[Skill, ...]  # in the catalog with their description
    name_only: tuple[Skill, ...]  # in the catalog, name and path only
    pinned: tuple[Skill, ...]  # body always in context
    loadable: tuple[Skill, ...]  # everything not disabled (mentions, load, suggestions)
    manual: tuple[Skill, ...]  # never listed or suggested; loadable by mention


def discover_for_context(env: Env, options: ContextOptions) -> tuple[Config, Discovery]:
    """Load the config layers, then discover skills with what they say."""
    from skillshelf.config import load_config
    from skillshelf.skills.discover import DiscoveryOptions, discover_skills

    config = load_config(env, overrides=options.config_overrides)
    include_builtin = options.include_builtin and config.builtin_enabled
    discovery = discover_skills(
        env,
        DiscoveryOptions(
            extra_roots=options.extra_roots + tuple(config.extra_roots) + _memory_roots(env, options),
            include_builtin=include_builtin,
            include_claude=config.include_claude,
            use_cache=options.use_cache,
        ),
    )
    return config, discovery


def _memory_roots(env: Env, options: ContextOptions) -> tuple[Path, ...]:
    """Skills the memory pipeline wrote for this project (and the global scope)."""
    if not options.memory:
        return ()
    from skillshelf.memory.read import memory_skill_roots

    return memory_skill_roots(env)


def resolve_modes(config: Config, discovery: Discovery) -> ContextSkills:
    """Apply ``[[skills.config]]`` modes; fail when a ``required`` skill is missing."""
    from skillshelf.config import apply_skill_modes

    moded: ModedSkills = apply_skill_modes(discovery.skills, config.skill_rules)
    moded.check_required()
    return ContextSkills(
        listed=tuple(moded.visible),
        name_only=tuple(moded.name_only),
        pinned=tuple(moded.pinned),
        loadable=tuple(moded.loadable),
        manual=tuple(moded.manual),
    )


def instructions_part(
    env: Env, options: ContextOptions, config: Config, *, diagnostics: list[Diagnostic] | None = None
) -> list[ContextPart]:
    """AGENTS.md (or CLAUDE.md) layers; the profile comes from the options, else from config.

    The findings about the instruction files (unreadable, not UTF-8, cut) are appended to
    ``diagnostics`` when it is given.
    """
    from skillshelf.instructions import load_instructions

    profile = options.profile or config.instructions_profile
    instructions = load_instructions(
        env,
        profile="claude" if profile == "claude" else "codex",
        max_bytes=config.instructions_max_bytes,
        fallback_filenames=config.instructions_fallback_filenames,
    )
    if diagnostics is not None:
        diagnostics.extend(instructions.diagnostics)
    if not instructions.text:
        return []
    sources = tuple(str(layer.path) for layer in instructions.layers)
    title = "CLAUDE.md" if profile == "claude" else "AGENTS.md"
    return [ContextPart(name="instructions", title=title, text=instructions.text, sources=sources)]


def _config_value(config: Config, *keys: str) -> str:
    """Where a skillshelf config value came from, for the budget's source."""
    for key in keys:
        prov = config.provenance.get(key)
        if prov is not None:
            return f"{key} in {prov.file}" if prov.file else f"{key} ({prov.layer})"
    return keys[0]


def _budget(env: Env, options: ContextOptions, config: Config) -> BudgetChoice:
    """Explicit options, else config, else Codex's model window; never above ``max_catalog_tokens``."""
    from skillshelf.skills.catalog import CharBudget, TokenBudget
    from skillshelf.skills.codex_config import catalog_budget

    chars = None if options.budget_chars is None else (options.budget_chars, "--budget-chars")
    tokens = None if options.budget_tokens is None else (options.budget_tokens, "--budget-tokens")
    if tokens is None and config.skills_max_context_tokens is not None:
        where = _config_value(config, "catalog.budget_tokens", "skills.max_context_tokens")
        tokens = (config.skills_max_context_tokens, where)
    window = None if options.context_window is None else (options.context_window, "--context-window")
    if window is None and config.context_window is not None:
        window = (config.context_window, _config_value(config, "catalog.context_window"))
    choice = catalog_budget(env, chars=chars, tokens=tokens, window=window)
    cap, budget = config.max_catalog_tokens, choice.budget
    if cap is None:
        return choice
    if isinstance(budget, TokenBudget) and budget.tokens > cap:
        budget = TokenBudget(tokens=cap)
    elif isinstance(budget, CharBudget) and budget.chars > cap * 4:
        budget = CharBudget(chars=cap * 4)
    else:
        return choice
    return dataclasses.replace(
        choice, budget=budget, source=f"{choice.source}, cut to requirements.max_catalog_tokens"
    )


def catalog_part(
    skills: ContextSkills,
    discovery: Discovery,
    options: ContextOptions,
    config: Config,
    *,
    env: Env,
) -> tuple[ContextPart, dict[str, object]]:
    """The stable catalog: listed skills in full, name-only skills without description."""
    from skillshelf.skills.catalog import render_catalog

    shown = [*skills.listed, *(_without_description(s) for s in skills.name_only)]
    choice = _budget(env, options, config)
    rendered = render_catalog(
        shown, choice.budget, options.catalog_format, roots=[r.path for r in discovery.roots]
    )
    used_roots = tuple(dict.fromkeys(str(s.root) for s in shown))
    part = ContextPart(name="catalog", title="Skills catalog", text=rendered.text, sources=used_roots)
    return part, dataclasses.replace(rendered.report, budget_source=choice.source).to_dict()


def _without_description(skill: Skill) -> Skill:
    return dataclasses.replace(skill, description="", short_description=None)


def _fragment(skill: Skill) -> str:
    from skillshelf.errors import FileAccessError
    from skillshelf.skills.load import skill_fragment

    try:
        contents = skill.path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:  # changed since discovery (removed, replaced by a folder...)
        raise FileAccessError(
            f"cannot read {skill.path}: {exc.strerror or exc}",
            hint="check that the skill file still exists and is readable, then run again",
        ) from exc
    return skill_fragment(skill, contents)


def pinned_part(skills: ContextSkills) -> list[ContextPart]:
    if not skills.pinned:
        return []
    text = "\n\n".join(_fragment(s) for s in skills.pinned)
    sources = tuple(str(s.path) for s in skills.pinned)
    return [ContextPart(name="pinned", title="Pinned skills", text=text, sources=sources)]


def memory_part(env: Env, options: ContextOptions) -> list[ContextPart]:
    from skillshelf.memory.read import memory_summary_for

    summary = memory_summary_for(env, token_cap=options.memory_tokens)
    if summary is None or not summary.text.strip():
        return []
    return [
        ContextPart(name="memory", title="Memory summary", text=summary.text, sources=(str(summary.path),))
    ]


def suggestions_part(
    skills: ContextSkills, task: str, mentioned: Sequence[Skill], options: ContextOptions
) -> list[ContextPart]:
    """Per-turn: the skills most relevant to ``task`` (never manual or already pinned)."""
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.suggest import suggestion_fragment

    excluded = {s.path for s in (*skills.manual, *skills.pinned)}
    candidates = [s for s in (*skills.listed, *skills.name_only) if s.path not in excluded]
    if not candidates:
        return []
    index = SkillIndex.build(candidates, cache_dir=index_cache_dir(options))
    suggestions = suggestion_fragment(
        index, task, budget_tokens=options.suggestion_tokens, mentioned=mentioned
    )
    if not suggestions.text:
        return []
    sources = tuple(str(s.path) for s in suggestions.skills)
    return [
        ContextPart(
            name="suggestions", title="Relevant skills for this task", text=suggestions.text, sources=sources
        )
    ]


def index_cache_dir(options: ContextOptions) -> Path | None:
    if not options.use_cache:
        return None
    from skillshelf.dirs import user_cache_dir

    return user_cache_dir() / "index"


def mentioned_part(mentioned: Sequence[Skill]) -> list[ContextPart]:
    if not mentioned:
        return []
    text = "\n\n".join(_fragment(s) for s in mentioned)
    return [
        ContextPart(
            name="mentioned",
            title="Skills the task mentions",
            text=text,
            sources=tuple(str(s.path) for s in mentioned),
        )
    ]
