"""The parts of :func:`skillshelf.context.build_context`, one function per part.

Each function calls one area's library API and returns :class:`ContextPart` values; the
composition and its order live in :mod:`skillshelf.context`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.context_model import ContextOptions, ContextPart, MentionedSkill
from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.skills.model import Skill
from skillshelf.skills.slots import replaced
from skillshelf.workspace import WorkspaceSkills as ContextSkills

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.select.service import TurnCandidates
    from skillshelf.skills.catalog import RenderedCatalog
    from skillshelf.skills.mentions import Agent
    from skillshelf.workspace import Workspace

__all__ = [
    "ClaudeNames",
    "ContextSkills",
    "catalog_part",
    "instructions_part",
    "load_mentioned",
    "memory_part",
    "mentioned_in",
    "mentioned_part",
    "never_suggested",
    "pinned_part",
    "read_skill_fragment",
    "suggestion_candidates",
    "suggestions_part",
    "turn_candidates",
]


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


def catalog_part(workspace: Workspace, options: ContextOptions) -> tuple[ContextPart, RenderedCatalog]:
    """The stable catalog: listed skills in full, name-only skills without description, in the
    format and budget the options (else the config, else Codex's) ask for; and the rendering (its
    report says which budget, its placements what became of each skill)."""
    from skillshelf.skills.catalog import DEFAULT_FORMAT, render_catalog, withheld_catalog

    skills = workspace.skills
    shown = [*skills.listed, *(_without_description(s) for s in skills.name_only)]
    choice = workspace.budget_choice(
        context_window=options.context_window,
        budget_tokens=options.budget_tokens,
        budget_chars=options.budget_chars,
    )
    chosen = options.catalog_format or workspace.config.catalog_format or DEFAULT_FORMAT
    rendered = render_catalog(shown, choice.budget, chosen, roots=list(workspace.roots))
    listing = workspace.config.skills_instructions
    if not listing.on:  # skills.include_instructions = false (skillshelf's config, else Codex's)
        rendered = withheld_catalog(rendered, listing.source or "skills.include_instructions = false")
    used_roots = tuple(dict.fromkeys(str(s.root) for s in shown))
    part = ContextPart(name="catalog", title="Skills catalog", text=rendered.text, sources=used_roots)
    report = dataclasses.replace(rendered.report, budget_source=choice.source)
    return part, dataclasses.replace(rendered, report=report)


def _without_description(skill: Skill) -> Skill:
    return replaced(skill, description="", short_description=None)


def read_skill_fragment(skill: Skill) -> str:
    """One skill as the model gets it whole (``<skill>`` with its body and trust note), read
    now: a mentioned or pinned skill, or one put back after a compaction.

    Raises:
        FileAccessError: its file cannot be read any more.
    """
    from skillshelf.errors import FileAccessError, reason
    from skillshelf.skills.load import cut_note, skill_fragment, with_trust_note
    from skillshelf.skills.model import MAX_SKILL_BYTES
    from skillshelf.skills.skill_files import read_head_text

    try:
        contents, size = read_head_text(skill.path, MAX_SKILL_BYTES)
    except OSError as exc:  # changed since discovery (removed, replaced by a folder...)
        raise FileAccessError(
            f"cannot read {skill.path}: {reason(exc)}",
            hint="check that the skill file still exists and is readable, then run again",
        ) from exc
    if size > MAX_SKILL_BYTES:  # listed from its frontmatter (SK119): its first bytes only
        contents += cut_note(size)
    return with_trust_note(skill, skill_fragment(skill, contents))


def pinned_part(skills: ContextSkills) -> list[ContextPart]:
    if not skills.pinned:
        return []
    text = "\n\n".join(read_skill_fragment(s) for s in skills.pinned)
    sources = tuple(str(s.path) for s in skills.pinned)
    return [ContextPart(name="pinned", title="Pinned skills", text=text, sources=sources)]


def memory_part(env: Env, options: ContextOptions, config: Config) -> list[ContextPart]:
    """The memory summary of the scope ``memory.scope`` (in ``config``) writes, if any, cut to
    ``options.memory_tokens``, else to ``memory.summary_token_cap``.

    Raises:
        UsageError: ``memory.summary_token_cap`` is not a whole number from 100 to 100,000
            (``ME022``, ``ME029``, ``ME027``).
    """
    from skillshelf.memory.read import memory_summary_for, scope_setting, summary_token_cap

    cap = summary_token_cap(config) if options.memory_tokens is None else options.memory_tokens
    summary = memory_summary_for(env, setting=scope_setting(config), token_cap=cap)
    if summary is None or not summary.text.strip():
        return []
    return [
        ContextPart(name="memory", title="Memory summary", text=summary.text, sources=(str(summary.path),))
    ]


MANUAL_WHY = "manual: loads when mentioned"
PINNED_WHY = "pinned: always in the context whole"
MENTIONED_WHY = "mentioned: the task loads it whole"
OVERRIDE_WHY = "kept from the model by skillOverrides in Claude Code's settings"


def never_suggested(skills: ContextSkills) -> dict[str, str]:
    """Each loadable skill the per-turn ranking never suggests (by its path as text, the key the
    search index gives it), with why: its mode (``manual``: only a mention loads it; ``pinned``:
    its body is in the context already) or the skill itself (hidden from implicit use:
    ``allow_implicit_invocation: false`` or ``disable-model-invocation``)."""
    why = {str(s.path): MANUAL_WHY for s in skills.manual}
    why.update((str(s.path), PINNED_WHY) for s in skills.pinned if str(s.path) not in why)
    for skill in (*skills.listed, *skills.name_only):
        if not skill.model_visible and str(skill.path) not in why:
            why[str(skill.path)] = _hidden_why(skill)
    return why


def _hidden_why(skill: Skill) -> str:
    if not skill.policy.allow_implicit_invocation:
        return "hidden from the model by agents/openai.yaml: allow_implicit_invocation: false"
    return "hidden from the model by disable-model-invocation: true"


def suggestion_candidates(skills: ContextSkills) -> tuple[Skill, ...]:
    """The skills the per-turn ranking chooses suggestions among, in the order it indexes them
    (listed, then name-only): every listed one but those :func:`never_suggested` names. The
    context, `skillshelf search` and `skillshelf eval` rank these for what the model is shown."""
    why = never_suggested(skills)
    return tuple(s for s in (*skills.listed, *skills.name_only) if str(s.path) not in why)


def turn_candidates(skills: ContextSkills, task: str, *, claude: ClaudeNames | None = None) -> TurnCandidates:
    """The rule :func:`suggestions_part` follows for ``task`` (given the mentions
    :func:`mentioned_in` finds), for `skillshelf search` and the page to show:
    :func:`suggestion_candidates`, with :func:`never_suggested` and, for this task, the skills
    it mentions (``$name``, ``[$name](path)``, ``/name``: loaded, not suggested) and, for Claude
    Code (``claude``), those its ``skillOverrides`` keep from the model."""
    from skillshelf.select.service import TurnCandidates

    candidates = suggestion_candidates(skills)
    why = never_suggested(skills)
    mentioned = mentioned_in(skills, task, agent="codex" if claude is None else "claude")
    for skill in mentioned:
        why.setdefault(str(skill.path), MENTIONED_WHY)
    for skill in () if claude is None else claude.withheld(candidates):
        why.setdefault(str(skill.path), OVERRIDE_WHY)
    pinned = {skill.path for skill in skills.pinned}
    return TurnCandidates(
        candidates=candidates,
        never_suggested=why,
        mentioned=tuple(s for s in mentioned if s.path not in pinned),
        pinned=skills.pinned,
    )


def mentioned_in(skills: ContextSkills, task: str, *, agent: Agent = "codex") -> tuple[Skill, ...]:
    """The loadable skills ``task`` mentions, in the order the context loads them, for ``agent``:
    a ``$name`` is counted over the skills that agent reads itself first
    (:func:`skillshelf.skills.mentions.named_choice`)."""
    if "$" not in task and not task.lstrip().startswith("/"):
        return ()  # no sigil, no mention (as select_mentioned says): skip importing it
    from skillshelf.skills.mentions import select_mentioned

    return select_mentioned(skills.loadable, [task], agent=agent)


def suggestions_part(
    skills: ContextSkills,
    task: str,
    options: ContextOptions,
    *,
    cache_dir: Path | None = None,
    config: Config | None = None,
    env: Env | None = None,
) -> list[ContextPart]:
    """Per-turn: the skills the ranking suggests for ``task`` under the rule of
    :func:`turn_candidates`, the one `skillshelf search` marks its suggestions by (never manual
    or pinned, nor hidden from implicit use by the skill itself: ``allow_implicit_invocation:
    false`` or ``disable-model-invocation``, nor one the task mentions, loaded whole instead,
    nor a copy of a mentioned or pinned one), with the same ranking
    (:func:`skillshelf.select.ranking.shared_ranker`, without the embedding models when
    ``options.semantic`` is False, as `search --no-semantic`); the index is cached under ``cache_dir``
    (``Workspace.index_cache_dir``). With ``env`` (``options.skill_tool``), the skills Claude
    Code lists there are named for its Skill tool, and those its ``skillOverrides`` keep from the
    model are not suggested (:class:`ClaudeNames`)."""
    from skillshelf.select.ranking import RankingSettings, shared_ranker
    from skillshelf.select.suggest import suggestion_fragment

    names = None if env is None else ClaudeNames(env)
    turn = turn_candidates(skills, task, claude=names)
    if not turn.candidates:
        return []
    settings = RankingSettings.from_config(config.get) if config is not None else RankingSettings()
    ranker = shared_ranker(turn.candidates, cache_dir=cache_dir, settings=settings, models=options.semantic)
    suggestions = suggestion_fragment(
        ranker,
        task,
        budget_tokens=options.suggestion_tokens,
        turn=turn,
        tool_name=None if names is None else names.tool_name,
    )
    if not suggestions.text:
        return []
    sources = tuple(str(s.path) for s in suggestions.skills)
    return [
        ContextPart(
            name="suggestions", title="Relevant skills for this task", text=suggestions.text, sources=sources
        )
    ]


class ClaudeNames:
    """What Claude Code here makes of skills: the name its Skill tool takes for one it lists
    (seen in one of its roots, or a copy of it is, without ``paths`` and not turned off by
    ``skillOverrides``), and which ones ``skillOverrides`` keeps from the model (``off`` or
    ``user-invocable-only``: the user turned them off in Claude Code, so no suggestion points
    the model at their files either)."""

    def __init__(self, env: Env) -> None:
        from skillshelf.install.visibility import Visibility
        from skillshelf.skills.claude_settings import merged_settings, skill_overrides

        self._visibility = Visibility(env)
        self._overrides = skill_overrides(merged_settings(env))

    def tool_name(self, skill: Skill) -> str | None:
        """The Skill tool's name for ``skill``, else None (suggest it by its path)."""
        from skillshelf.skills.claude_settings import unlisted_by_override

        name = None if skill.claude.paths else self._visibility.claude_name(skill, copies=True)
        return None if name is None or unlisted_by_override(self._overrides, name) else name

    def withheld(self, skills: Sequence[Skill]) -> tuple[Skill, ...]:
        """Those of ``skills`` that Claude Code sees and ``skillOverrides`` keeps from the model."""
        from skillshelf.skills.claude_settings import unlisted_by_override

        off = {
            str(key).rpartition(":")[2]
            for key in self._overrides
            if unlisted_by_override(self._overrides, key)
        }
        if not off:  # the usual case: no candidate is looked at
            return ()
        return tuple(
            skill
            for skill in skills
            if skill.folder.name in off
            and (name := self._visibility.claude_name(skill, copies=True)) is not None
            and unlisted_by_override(self._overrides, name)
        )


def load_mentioned(mentioned: Sequence[Skill]) -> tuple[MentionedSkill, ...]:
    """Each mentioned skill with its fragment, read now (:func:`read_skill_fragment`).

    Raises:
        FileAccessError: a skill's file cannot be read any more.
    """
    return tuple(MentionedSkill(skill, read_skill_fragment(skill)) for skill in mentioned)


def mentioned_part(loaded: Sequence[MentionedSkill]) -> list[ContextPart]:
    if not loaded:
        return []
    return [
        ContextPart(
            name="mentioned",
            title="Skills the task mentions",
            text="\n\n".join(item.fragment for item in loaded),
            sources=tuple(str(item.skill.path) for item in loaded),
        )
    ]
