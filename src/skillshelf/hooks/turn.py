"""The library calls behind a ``UserPromptSubmit`` answer, in one place.

:func:`prompt_turn` opens the prompt's folder as a :class:`~skillshelf.workspace.Workspace`
and asks the context pipeline for the per-turn parts exactly as ``skillshelf context`` builds
them (:func:`skillshelf.context.turn_parts`: the ranked suggestion fragment with its threshold
and budget, then the skills the prompt mentions). It skips the parts that stay the same across
turns (instructions, catalog, memory summary): the agent already has its own. Its one stable
part is the block of pinned skills the agent's ``SessionStart`` answer carried
(:mod:`skillshelf.hooks.pinned`). :func:`given_mentions` fits the mentioned skills into the
hook's answer: whole while they fit, then by name and path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from skillshelf.env import Env
from skillshelf.hooks.agents import Agent
from skillshelf.hooks.settings import HookSettings
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.context import ContextPart, MentionedSkill, TurnParts
    from skillshelf.skills.model import Skill

__all__ = ["MENTION_LIST_INTRO", "GivenMentions", "PromptTurn", "given_mentions", "prompt_turn", "warm_index"]

MENTION_LIST_INTRO = (
    "Skills the prompt mentions, too long to include here: read each SKILL.md at the path given "
    "and follow it before you go on:"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptTurn:
    """The per-turn parts for one prompt and what they were made from."""

    settings: HookSettings  # the config's [hooks] table
    turn: TurnParts  # "suggestions", then "mentioned", and the mentioned skills loaded
    memory_scope: str  # the config's memory.scope: the memory the turn's memory lines come from

    def part(self, name: str) -> ContextPart | None:
        return next((p for p in self.turn.parts if p.name == name), None)

    @property
    def mentioned(self) -> tuple[Skill, ...]:
        return self.turn.mentioned

    @property
    def loaded(self) -> tuple[MentionedSkill, ...]:
        return self.turn.loaded


def prompt_turn(env: Env, prompt: str, *, skill_tool: bool = False, agent: Agent | None = None) -> PromptTurn:
    """What ``skillshelf context`` would add for ``prompt`` this turn (the suggestions with the
    ``[hooks]`` budget, or none when ``hooks.suggestions`` is off). ``skill_tool``: for Claude
    Code, whose Skill tool loads the skills it lists by name (``context --profile claude``).
    ``agent``: the agent whose ``SessionStart`` answer carried the pinned skills; those it holds
    whole (:func:`~skillshelf.hooks.pinned.pinned_block`) are the stable ``pinned`` part, so a
    prompt that mentions one loads nothing more for it.

    Raises:
        RequiredSkillError: a skill configured as ``required`` is missing or invalid.
    """
    from skillshelf.context import ContextOptions, PreparedContext, turn_parts
    from skillshelf.workspace import Workspace

    options = ContextOptions(instructions=False)
    workspace = Workspace.open(env, options.workspace_options()).check_required()
    settings = HookSettings.from_config(workspace.config)
    options = replace(
        options,
        suggestions=settings.suggestions,
        suggestion_tokens=settings.suggestion_tokens,
        skill_tool=skill_tool,
    )
    prepared = PreparedContext(
        workspace=workspace,
        options=options,
        stable=_session_parts(workspace.skills.pinned, agent),
        catalog_report={},
        diagnostics=(),
    )
    from skillshelf.memory.read import scope_setting

    return PromptTurn(
        settings=settings, turn=turn_parts(prepared, prompt), memory_scope=scope_setting(workspace.config)
    )


def _session_parts(pinned: tuple[Skill, ...], agent: Agent | None) -> tuple[ContextPart, ...]:
    """The stable parts the agent's ``SessionStart`` answer gave the session: the pinned block."""
    if agent is None or not pinned:
        return ()
    from skillshelf.hooks.pinned import pinned_block

    return (pinned_block(pinned, agent).part(),)


@dataclass(frozen=True, slots=True, kw_only=True)
class GivenMentions:
    """What a prompt's answer holds of the mentioned skills the agent does not load itself."""

    pieces: tuple[str, ...]  # the fragments that fit, then the block naming the others
    listed: tuple[Skill, ...]  # the skills too long to include, named by path


def given_mentions(
    agent: Agent,
    env: Env,
    loaded: Sequence[MentionedSkill],
    prompt: str,
    *,
    before: Sequence[str],
    budget: int,
    keep: int,
) -> GivenMentions:
    """The mentioned skills the agent does not load by itself
    (:func:`skillshelf.context.loaded_by_agent`; none of them is suggested as well): each whole,
    in the prompt's order, while the answer (``before``, then these) leaves ``keep`` of its
    ``budget`` tokens; those too long for that by name and path under
    :data:`MENTION_LIST_INTRO` (within the whole ``budget``), as the ``SessionStart`` answer
    names a pinned skill that does not fit. A skill the prompt names with ``$name`` is nothing
    to Claude Code (2.1.197, against ``model-standin``), so the line is all it gets of one."""
    if not loaded:
        return GivenMentions(pieces=(), listed=())
    from skillshelf.context import loaded_by_agent
    from skillshelf.hooks.reattach import skill_line

    native = loaded_by_agent(agent, env, prompt)
    bodies: list[str] = []
    listed: list[Skill] = []
    for item in loaded:
        if native(item.skill):
            continue
        if approx_tokens("\n\n".join([*before, *bodies, item.fragment])) <= budget - keep:
            bodies.append(item.fragment)
        else:
            listed.append(item.skill)
    block = "\n".join([MENTION_LIST_INTRO, *(skill_line(skill) for skill in listed)])
    if listed and approx_tokens("\n\n".join([*before, *bodies, block])) <= budget:
        bodies.append(block)
    return GivenMentions(pieces=tuple(bodies), listed=tuple(listed))


def warm_index(env: Env) -> None:
    """Build (or bring up to date) the caches a prompt reads for ``env.cwd``: discovery and
    the search index. Ranking any words makes the index and writes its cache.

    Raises:
        RequiredSkillError: a skill configured as ``required`` is missing or invalid.
    """
    prompt_turn(env, "warm")
