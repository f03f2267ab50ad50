"""Assemble a ready-to-run :class:`~skillshelf.agent.loop.Agent` for a folder.

The prompt comes from the same code as ``skillshelf context``: the stable parts
(instructions, catalog, pinned skills, memory) form the system prompt; the per-turn parts
(skills suggested for and mentioned by each message) are put in front of that message.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from skillshelf.agent.guards import GuardSettings
from skillshelf.agent.loop import Agent, AgentSettings
from skillshelf.agent.providers import Provider, make_provider, parse_model_spec
from skillshelf.agent.workspace import WorkspaceTools
from skillshelf.context import ContextOptions
from skillshelf.env import Env

if TYPE_CHECKING:
    from skillshelf.memory.transcripts.skillshelf import TranscriptWriter

__all__ = ["AGENT_PREAMBLE", "AgentOptions", "open_agent"]

AGENT_PREAMBLE = (
    "You are a careful software agent working in the folder {cwd}. You have a shell (bash), file tools "
    "(read_file, write_file, edit_file) and skill tools (load_skill, search_skills, read_skill_file). "
    "Before a task that a skill covers, load the skill and follow it. Verify your work by running the "
    "project's checks before you give your final answer, and say what you verified."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentOptions:
    model: str
    base_url: str | None = None
    api_key: str | None = None
    context: ContextOptions = ContextOptions()
    guards: GuardSettings = GuardSettings()
    max_turns: int = 40
    origin: Literal["run", "chat", "subagent"] = "run"
    write_transcript: bool = True
    state_dir: Path | None = None


def open_agent(env: Env, options: AgentOptions, *, provider: Provider | None = None) -> Agent:
    """Discover skills, build the prompt and tools, open the transcript; return the agent.

    Raises:
        UsageError: the model spec is malformed or the SDK for it is not installed.
        RequiredSkillError: a ``required`` skill is missing.
    """
    from skillshelf.context_parts import (
        catalog_part,
        discover_for_context,
        instructions_part,
        memory_part,
        mentioned_part,
        pinned_part,
        resolve_modes,
        suggestions_part,
    )
    from skillshelf.serve.tools import SkillTools
    from skillshelf.skills.mentions import select_mentioned

    spec = parse_model_spec(options.model)
    ctx = options.context
    config, discovery = discover_for_context(env, ctx)
    skills = resolve_modes(config, discovery)
    stable = [
        *(instructions_part(env, ctx, config) if ctx.instructions else []),
        catalog_part(skills, discovery, ctx, config)[0],
        *pinned_part(skills),
        *(memory_part(env, ctx) if ctx.memory else []),
    ]
    system = "\n\n".join([AGENT_PREAMBLE.format(cwd=env.cwd), *(p.text for p in stable if p.text)])

    def turn_context(text: str) -> str:
        mentioned = select_mentioned(skills.loadable, [text])
        parts = [*(suggestions_part(skills, text, mentioned, ctx) if ctx.suggestions else []),
                 *mentioned_part(mentioned)]
        return "\n\n".join(p.text for p in parts if p.text)

    return Agent(
        provider=provider or make_provider(spec, base_url=options.base_url, api_key=options.api_key),
        system_prompt=system,
        skill_tools=SkillTools(skills.loadable),
        workspace=WorkspaceTools(env.cwd),
        settings=AgentSettings(max_turns=options.max_turns, guards=options.guards),
        transcript=_transcript(env, options, str(spec)) if options.write_transcript else None,
        turn_context=turn_context,
    )


def _transcript(env: Env, options: AgentOptions, model: str) -> TranscriptWriter:
    from skillshelf.dirs import user_state_dir
    from skillshelf.memory.transcripts.skillshelf import TranscriptWriter, transcript_path

    session_id = str(uuid.uuid4())
    path = transcript_path(options.state_dir or user_state_dir(), session_id)
    return TranscriptWriter(path, session_id=session_id, cwd=env.cwd, origin=options.origin, model=model)
