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
    from skillshelf.skills.catalog import Budget

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
    from skillshelf.skills.load import mark_untrusted

    marked = mark_untrusted(discovery.skills, trusted_project=config.trusted)
    return config, dataclasses.replace(discovery, skills=marked)


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


def _budget(options: ContextOptions, config: Config) -> Budget:
    """Explicit options, else config, else Codex's default; never above ``max_catalog_tokens``."""
    from skillshelf.skills.catalog import CharBudget, TokenBudget, default_budget

    cap = config.max_catalog_tokens
    if options.budget_chars is not None:
        chars = options.budget_chars if cap is None else min(options.budget_chars, cap * 4)
        return CharBudget(chars=chars)
    window = options.context_window if options.context_window is not None else config.context_window
    tokens = options.budget_tokens if options.budget_tokens is not None else config.skills_max_context_tokens
    budget = default_budget(window, max_context_tokens=tokens)
    if cap is None:
        return budget
    if isinstance(budget, TokenBudget):
        return TokenBudget(tokens=min(budget.tokens, cap))
    return CharBudget(chars=min(budget.chars, cap * 4))


def catalog_part(
    skills: ContextSkills, discovery: Discovery, options: ContextOptions, config: Config
) -> tuple[ContextPart, dict[str, object]]:
    """The stable catalog: listed skills in full, name-only skills without description."""
    from skillshelf.skills.catalog import render_catalog

    shown = [_tagged(s) for s in (*skills.listed, *(_without_description(s) for s in skills.name_only))]
    rendered = render_catalog(
        shown, _budget(options, config), options.catalog_format, roots=[r.path for r in discovery.roots]
    )
    used_roots = tuple(dict.fromkeys(str(s.root) for s in shown))
    part = ContextPart(name="catalog", title="Skills catalog", text=rendered.text, sources=used_roots)
    return part, rendered.report.to_dict()


def _without_description(skill: Skill) -> Skill:
    return dataclasses.replace(skill, description="", short_description=None)


def _tagged(skill: Skill) -> Skill:
    """An untrusted project's skill with :data:`UNTRUSTED_TAG` before its catalog description."""
    from skillshelf.skills.load import UNTRUSTED_TAG

    if skill.trusted:
        return skill
    short = f"{UNTRUSTED_TAG} {skill.short_description}" if skill.short_description else None
    return dataclasses.replace(
        skill, description=f"{UNTRUSTED_TAG} {skill.description}".strip(), short_description=short
    )


def _fragment(skill: Skill) -> str:
    from skillshelf.errors import FileAccessError
    from skillshelf.skills.load import skill_fragment, with_trust_note

    try:
        contents = skill.path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:  # changed since discovery (removed, replaced by a folder...)
        raise FileAccessError(
            f"cannot read {skill.path}: {exc.strerror or exc}",
            hint="check that the skill file still exists and is readable, then run again",
        ) from exc
    return with_trust_note(skill, skill_fragment(skill, contents))


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
