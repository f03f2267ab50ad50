"""The main job: everything the model would get for a task in a folder, part by part.

:func:`build_context` opens the folder as a :class:`~skillshelf.workspace.Workspace` (config,
skills with their modes, budgets) and composes the parts in the order they go into the model's
context, stable parts first so a prompt-prefix cache keeps working across turns:

1. ``instructions``: the AGENTS.md (or CLAUDE.md) layers;
2. ``catalog``: the budgeted skills catalog (Codex's algorithm), shaped by per-skill modes;
3. ``pinned``: the bodies of skills configured as ``pinned``;
4. ``memory``: the capped memory summary of this project;
5. ``suggestions``: the per-turn list of skills ranked against the task (changes every turn);
6. ``mentioned``: the skills the task names (``$name``, ``[$name](path)``, ``/name``), loaded;
   for Claude Code, not the one its leading ``/name`` loads by itself (:func:`loaded_by_agent`).

Each part carries its token count (Codex's 4-bytes-per-token estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.context_model import ContextOptions, ContextPart, ContextResult, MentionedSkill, TurnParts
from skillshelf.context_parts import (
    catalog_part,
    instructions_part,
    load_mentioned,
    memory_part,
    mentioned_in,
    mentioned_part,
    pinned_part,
    suggestions_part,
)
from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.env import Env
from skillshelf.skills.model import Discovery, Skill
from skillshelf.workspace import Workspace, WorkspaceSkills

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.install.visibility import AgentName
    from skillshelf.skills.catalog import RenderedCatalog
    from skillshelf.skills.mentions import Agent

__all__ = [
    "ContextOptions",
    "ContextPart",
    "ContextResult",
    "MentionedSkill",
    "PreparedContext",
    "TurnParts",
    "MENTION_NOTE_CODES",
    "build_context",
    "loaded_by_agent",
    "mention_notes",
    "prepare_context",
    "turn_parts",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedContext:
    """The parts that stay the same across turns, and what the per-turn parts need."""

    workspace: Workspace
    options: ContextOptions
    stable: tuple[ContextPart, ...]
    catalog_report: dict[str, object]
    diagnostics: tuple[Diagnostic, ...]
    catalog: RenderedCatalog | None = None  # what the budget did to each skill

    @property
    def config(self) -> Config:
        return self.workspace.config

    @property
    def discovery(self) -> Discovery:
        return self.workspace.discovery

    @property
    def skills(self) -> WorkspaceSkills:
        return self.workspace.skills


def prepare_context(
    env: Env, options: ContextOptions = ContextOptions(), *, workspace: Workspace | None = None
) -> PreparedContext:
    """Open the folder (:meth:`Workspace.open <skillshelf.workspace.Workspace.open>`), or take
    the ``workspace`` a long-running caller already opened with ``options.workspace_options()``,
    and build the stable parts, in context order: instructions, catalog, pinned skills, memory.

    Raises:
        RequiredSkillError: a skill configured as ``required`` is missing or invalid.
    """
    if workspace is None:
        workspace = Workspace.open(env, options.workspace_options())
    workspace = workspace.check_required()
    parts: list[ContextPart] = []
    found: list[Diagnostic] = []
    if options.instructions:
        parts += instructions_part(env, options, workspace.config, diagnostics=found)
    catalog, rendered = catalog_part(workspace, options)
    parts.append(catalog)
    parts += pinned_part(workspace.skills)
    if options.memory:
        parts += memory_part(env, options, workspace.config)
    return PreparedContext(
        workspace=workspace,
        options=options,
        stable=tuple(p for p in parts if p.text),
        catalog_report={"format": rendered.format, **rendered.report.to_dict()},
        diagnostics=workspace.diagnostics + tuple(found),
        catalog=rendered,
    )


def turn_parts(prepared: PreparedContext, task: str) -> TurnParts:
    """The per-turn parts for ``task`` (suggestions, then the mentioned skills loaded), and the
    skills it mentions with their fragments, each file read once. A mentioned skill whose body
    the prepared stable parts hold whole (a pinned one) is neither loaded nor listed again.

    Raises:
        FileAccessError: a mentioned skill's file cannot be read any more.
    """
    whole = _whole_in_context(prepared)
    selected = mentioned_in(prepared.skills, task, agent=_agent(prepared))
    in_context = tuple(s for s in selected if s.path in whole)
    mentioned = tuple(s for s in selected if s.path not in whole)
    parts: list[ContextPart] = []
    if prepared.options.suggestions and task.strip():
        parts += suggestions_part(
            prepared.skills,
            task,
            prepared.options,
            cache_dir=prepared.workspace.index_cache_dir,
            config=prepared.config,
            env=prepared.workspace.env if _for_skill_tool(prepared) else None,
        )
    loaded = load_mentioned(mentioned)
    sent = loaded
    if loaded and _for_skill_tool(prepared):  # for Claude Code, which loads a leading /name itself
        native = loaded_by_agent("claude", prepared.workspace.env, task)
        sent = tuple(item for item in loaded if not native(item.skill))
    parts += mentioned_part(sent)
    return TurnParts(parts=tuple(p for p in parts if p.text), loaded=loaded, in_context=in_context)


def loaded_by_agent(agent: AgentName, env: Env, task: str) -> Callable[[Skill], bool]:
    """Whether ``agent`` loads a skill that ``task`` mentions by itself, so nothing else need
    send its body: Codex a ``$name`` of a skill it lists; Claude Code only the task's leading
    ``/name`` of a skill it lists (also its own copy of the skill, as for a plugin installed in
    both agents). Claude Code does nothing with a ``$name`` (measured with Claude Code 2.1.197
    against ``model-standin``: ``/release-notes v2`` puts the body in the request, ``use
    $release-notes for v2`` does not)."""
    from skillshelf.install.visibility import Visibility

    if agent == "codex":
        codex = Visibility(env)
        return lambda skill: agent in codex.agents(skill)
    from skillshelf.skills.mentions import extract_mentions

    slash = extract_mentions(task).slash_command
    if slash is None:
        return lambda skill: False
    claude = Visibility(env)
    return lambda skill: claude.claude_name(skill, copies=True) == slash.name


def _whole_in_context(prepared: PreparedContext) -> frozenset[Path]:
    """The skills whose whole body is in the stable parts: the sources of the pinned part (every
    pinned skill in ``context``; in a hook, those the ``SessionStart`` answer carried whole)."""
    return frozenset(
        Path(source) for part in prepared.stable if part.name == "pinned" for source in part.sources
    )


def _for_skill_tool(prepared: PreparedContext) -> bool:
    """Whether the context is for Claude Code (its Skill tool): ``options.skill_tool``, else the
    profile's (or the config's ``instructions.profile``) being ``claude``."""
    wanted = prepared.options.skill_tool
    if wanted is None:
        return (prepared.options.profile or prepared.config.instructions_profile) == "claude"
    return wanted


def _agent(prepared: PreparedContext) -> Agent:
    """The agent the context is for, whose skills a ``$name`` is counted over: Claude Code when
    the context is for its Skill tool (:func:`_for_skill_tool`: its hook, ``--profile claude``),
    else Codex."""
    return "claude" if _for_skill_tool(prepared) else "codex"


def build_context(env: Env, task: str, options: ContextOptions = ContextOptions()) -> ContextResult:
    """Assemble what the model would get for ``task`` in ``env.cwd``.

    Raises:
        RequiredSkillError: a skill configured as ``required`` is missing or invalid.
    """
    prepared = prepare_context(env, options)
    turn = turn_parts(prepared, task)
    warning = prepared.catalog_report.get("warning")
    notes = mention_notes(prepared, task, turn.mentioned)
    return ContextResult(
        task=task,
        cwd=env.cwd,
        parts=prepared.stable + turn.parts,
        skills_total=len(prepared.discovery.skills),
        mentioned=turn.mentioned,
        catalog_report=prepared.catalog_report,
        warnings=((str(warning),) if warning else ()) + tuple(f"{d.message}; {d.fix}" for d in notes),
        diagnostics=prepared.diagnostics + notes,
    )


MENTION_NOTE_CODES = frozenset({"SK405", "SK420", "SK421", "SK422", "SK423"})
"""The codes of :func:`mention_notes` (a ``context`` prints them as its warnings)."""


def mention_notes(prepared: PreparedContext, task: str, loaded: Sequence[Skill]) -> tuple[Diagnostic, ...]:
    """A warning for each ``$name``, ``[$name](path)`` or ``/name`` of ``task`` that loads no
    skill: one config disables (:func:`_disabled_notes`), and those of
    :func:`~skillshelf.skills.mentions.unselected_mentions` (an unknown, shared or
    environment-variable name; a link to no ``SKILL.md`` path)."""
    if "$" not in task and not task.lstrip().startswith("/"):
        return ()
    from skillshelf.skills.mentions import extract_mentions, unselected_mentions

    names = {skill.name for skill in loaded}
    disabled = _disabled_notes(prepared, [n for n in extract_mentions(task).names if n not in names])
    others = unselected_mentions(
        prepared.skills.loadable,
        task,
        loaded,
        agent=_agent(prepared),
        cwd=prepared.workspace.env.cwd,
        skip={name for name, _ in disabled},
    )
    return tuple(note for _, note in disabled) + tuple(others)


def _disabled_notes(prepared: PreparedContext, names: Sequence[str]) -> list[tuple[str, Diagnostic]]:
    """For each of ``names`` that config disables: the name and a warning naming the entry that
    does and how to enable it, and for Codex what Codex itself does on the name
    (:func:`_codex_note`)."""
    modes = prepared.workspace.modes
    if not modes.disabled:
        return []
    found: list[tuple[str, Diagnostic]] = []
    for name in names:
        error = modes.disabled_error(name)
        if error is None:
            continue
        fix = error.hint + (_codex_note(prepared, name) if _agent(prepared) == "codex" else "")
        skill = next((s for s in modes.disabled if s.name == name), None)
        message = f"the task mentions ${name}, but {error.message}"
        found.append(
            (name, diagnostic(error.code, Severity.WARNING, message, fix, skill.path if skill else None))
        )
    return found


def _codex_note(prepared: PreparedContext, name: str) -> str:
    """What Codex does on ``$name`` by itself, skillshelf's config not being Codex's, counted over
    the skills of that name Codex reads and its own ``config.toml`` leaves on
    (:func:`_codex_still_loads`): one, it still loads it (turned off in Codex by an entry with its
    path); several, it loads none of them, as for any shared name, but the one a link names (an
    entry with the name turns them all off; one with a path would leave Codex another copy to
    load by the name, measured with ``codex exec`` against ``model-standin``); none, nothing."""
    copies = [
        s for s in prepared.workspace.modes.all_skills if s.name == name and _codex_still_loads(prepared, s)
    ]
    if not copies:
        return ""
    config = prepared.workspace.env.codex_home / "config.toml"
    tail = f"enabled = false to {config} (no skillshelf command writes Codex's config)"
    if len(copies) == 1:
        return (
            f"; Codex itself still loads it on `${name}`, as skillshelf's config is not Codex's: to "
            f'turn it off in Codex too, add [[skills.config]] path = "{copies[0].path}" {tail}'
        )
    return (
        f"; Codex itself loads no skill on `${name}` either, as {len(copies)} skills it reads are named "
        f"{name!r} (a shared name loads none; a link [${name}](path) loads the one it names): to turn "
        f'them all off in Codex too, add [[skills.config]] name = "{name}" {tail}'
    )


def _codex_still_loads(prepared: PreparedContext, skill: Skill) -> bool:
    """Whether Codex reads ``skill`` itself and its own ``config.toml`` files (the last of their
    ``[[skills.config]]`` entries that matches it) do not disable it."""
    if not skill.origin.is_codex:
        return False
    from skillshelf.config import SkillMode

    codex = [rule for rule in prepared.config.skill_rules if rule.in_codex_config and rule.matches(skill)]
    return not codex or codex[-1].mode is not SkillMode.DISABLED
