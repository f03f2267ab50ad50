"""Assemble a ready-to-run :class:`~skillshelf.agent.loop.Agent` for a folder.

The prompt comes from the same code as ``skillshelf context``: the stable parts
(instructions, catalog, pinned skills, memory) form the system prompt; the per-turn parts
(skills suggested for and mentioned by each message) are put in front of that message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from skillshelf.agent.folder_tools import FolderTools
from skillshelf.agent.guards import GuardSettings
from skillshelf.agent.loop import SKILL_TOOLS, Agent, AgentSettings, TurnContext
from skillshelf.agent.providers import ModelSpec, Provider, make_provider, parse_model_spec
from skillshelf.agent.shell_env import KEEP_ENV_VARIABLE, kept_names, shell_environment
from skillshelf.agent.skill_reads import SkillFolders
from skillshelf.agent.stripped_values import ScrubbedTranscript, StrippedValues
from skillshelf.config.schema import DEFAULT_MAX_OUTPUT_TOKENS
from skillshelf.context import ContextOptions
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.select.ranking import RankingSettings
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.agent.usage_hooks import SkillUsage
    from skillshelf.memory.transcripts.skillshelf import TranscriptWriter
    from skillshelf.workspace import Workspace

__all__ = ["AGENT_PREAMBLE", "MEMORY_CITATION_NOTE", "AgentOptions", "memory_citation_hook", "open_agent"]

AGENT_PREAMBLE = (
    "You are a careful software agent working in the folder {cwd}. You have a shell (bash), file tools "
    "(read_file, write_file, edit_file) and skill tools (load_skill, search_skills, read_skill_file). "
    "Before a task that a skill covers, load the skill and follow it. Verify your work by running the "
    "project's checks before you give your final answer, and say what you verified."
)

MEMORY_CITATION_NOTE = (
    "Memory folder: {folder} (read-only; search its MEMORY.md for details the summary points to). "
    "When the memory summary above (or memory files it points to) helped you, end your final answer with "
    "one block naming what you used, so useful memories are kept and ranked higher:\n"
    "<oai-mem-citation>\n<citation_entries>\nMEMORY.md:START-END|note=[what it told you]\n"
    "</citation_entries>\n<rollout_ids>\nTHREAD_ID (one per line, from thread_id= in the memory)\n"
    "</rollout_ids>\n</oai-mem-citation>\nLeave the block out when memory did not help, and never put it "
    "in commit or pull-request messages."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentOptions:
    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0  # seconds a model call may take (each is tried 3 times)
    context: ContextOptions = ContextOptions()
    guards: GuardSettings = GuardSettings()
    max_turns: int = 40
    origin: Literal["run", "chat", "subagent"] = "run"
    write_transcript: bool = True
    state_dir: Path | None = None  # transcripts and the usage log (default: the user state folder)
    count_memory_uses: bool = True  # memory citations in final answers count as uses (Phase 2 ranking)
    memory_db: str | None = None  # the memory state database (default: the SQLite file in the data folder)
    record_usage: bool = True  # skill loads feed the usage prior (state folder, select/usage.jsonl)
    shadow_metrics: bool = False  # also record every selector's candidates per turn (`skillshelf stats`)
    context_window: int | None = None  # the model's window in tokens (None: `agent.context_window`)
    max_output_tokens: int | None = None  # one reply's limit (None: `agent.max_output_tokens`)


def memory_citation_hook(data_dir: Path, db: str | None = None, *, setting: str) -> Callable[[str], None]:
    """An ``on_answer`` hook: every session a final answer cites whose memory is of a scope
    ``memory.scope = setting`` writes gets a use counted (in ``db``, default: the database in
    the user data folder ``data_dir``)."""

    def record(text: str) -> None:
        from skillshelf.errors import SkillshelfError
        from skillshelf.memory.read import record_citations

        try:
            record_citations(text, data_dir=data_dir, setting=setting, db=db)
        except (SkillshelfError, OSError):
            return  # usage counts are a ranking hint: never lose the answer over them

    return record


def open_agent(
    env: Env,
    options: AgentOptions,
    *,
    provider: Provider | None = None,
    on_answer: Callable[[str], None] | None = None,
) -> Agent:
    """Discover skills, build the prompt and tools, open the transcript; return the agent.

    When the memory summary is in the context (and ``options.count_memory_uses``), the model is
    asked to cite the memories it used and each final answer's citations are recorded as uses.
    ``on_answer`` is an extra hook called with every accepted final answer.

    Raises:
        UsageError: the model spec is malformed or the SDK for it is not installed.
        RequiredSkillError: a ``required`` skill is missing.
    """
    from skillshelf.context import mention_notes, prepare_context, turn_parts
    from skillshelf.memory.read import scope_setting
    from skillshelf.serve.tools import SkillTools

    spec = parse_model_spec(options.model)
    prepared = prepare_context(env, options.context)
    memory = next((p for p in prepared.stable if p.name == "memory"), None)
    count_uses = memory is not None and options.count_memory_uses
    folder = Path(memory.sources[0]).parent if memory is not None and memory.sources else ""
    system = "\n\n".join(
        [
            AGENT_PREAMBLE.format(cwd=env.cwd),
            *(p.text for p in prepared.stable),
            *([MEMORY_CITATION_NOTE.format(folder=folder)] if count_uses else []),
        ]
    )
    hooks = [
        *(
            [memory_citation_hook(env.dirs.data, options.memory_db, setting=scope_setting(prepared.config))]
            if count_uses
            else []
        ),
        *([on_answer] if on_answer else []),
    ]
    usage = _usage(env, options, prepared.workspace)
    shell = shell_environment(env.environ, keep=kept_names(env.environ.get(KEEP_ENV_VARIABLE)))
    stripped = StrippedValues.left_out(env.environ, shell)
    folder_tools = FolderTools(
        env.cwd,
        environ=shell,
        skill_folders=SkillFolders(prepared.skills.loadable),
        stripped=stripped,
    )

    def turn_context(text: str) -> TurnContext:
        if usage is not None:
            usage.turn(text)
        turn = turn_parts(prepared, text)
        return TurnContext(
            text="\n\n".join(p.text for p in turn.parts),
            skills=tuple((item.skill.name, item.fragment) for item in turn.loaded),
            notes=tuple(
                f"{d.code} {d.message}; {d.fix}" for d in mention_notes(prepared, text, turn.mentioned)
            ),
        )

    return Agent(
        provider=provider or _provider(spec, options, prepared.workspace),
        system_prompt=system,
        skill_tools=SkillTools(
            prepared.skills.loadable,
            listed=prepared.skills.catalog,
            ranking=RankingSettings.from_config(prepared.workspace.config.get),
            why_unavailable=prepared.workspace.modes.disabled_error,
        ),
        folder_tools=folder_tools,
        settings=_settings(options, spec, prepared.workspace, system, folder_tools),
        transcript=_transcript(env, options, str(spec), stripped) if options.write_transcript else None,
        turn_context=turn_context,
        on_skill_used=usage.used if usage is not None else None,
        on_answer=_chain(hooks),
        findings=prepared.diagnostics,
    )


def compaction_threshold(window: int | None, max_output: int | None, fixed_tokens: int) -> int:
    """The history size (tokens) past which the agent compacts: without a ``window``, the
    default's 120,000; with one, what the window leaves for the history once the reply's limit
    (``max_output``, else 4096; 0 when no limit is sent, see :func:`output_reserve`) and
    ``fixed_tokens`` (system prompt and tool definitions) are kept free, less a tenth for the
    estimate's error (tokens are counted as bytes / 4).

    Raises:
        UsageError: (AG008) that leaves the history less than an eighth of the window.
    """
    if window is None:
        return AgentSettings().compact_at_tokens
    output = DEFAULT_MAX_OUTPUT_TOKENS if max_output is None else max_output
    threshold = (window - output - fixed_tokens) * 9 // 10
    if threshold < window // 8:
        limit = f"{output:,} output tokens (the reply's limit) and " if output else ""
        lower = (
            ", or lower the output limit (--max-output-tokens or agent.max_output_tokens)" if output else ""
        )
        raise UsageError(
            f"a context window of {window:,} tokens leaves too little room for the conversation once "
            f"{limit}about {fixed_tokens:,} tokens of system prompt and tools are set aside",
            hint=f"set the model's real window (--context-window or agent.context_window){lower}",
            code="AG008",
        )
    return threshold


def output_reserve(provider: str, max_output: int | None) -> int:
    """The output limit each request of ``provider`` carries, kept free in the window: the one
    set, else 4096 for Anthropic (whose API needs one) and none for OpenAI (none is sent: the
    server's own limit applies, which the agent cannot know)."""
    if max_output is not None:
        return max_output
    return DEFAULT_MAX_OUTPUT_TOKENS if provider == "anthropic" else 0


def _provider(spec: ModelSpec, options: AgentOptions, workspace: Workspace) -> Provider:
    """The model adapter the options ask for, with the output limit of ``--max-output-tokens``,
    else ``agent.max_output_tokens``."""
    limit = options.max_output_tokens or _setting(workspace, "agent.max_output_tokens")
    return make_provider(
        spec, base_url=options.base_url, api_key=options.api_key, timeout=options.timeout, max_tokens=limit
    )


def _settings(
    options: AgentOptions, spec: ModelSpec, workspace: Workspace, system: str, tools: FolderTools
) -> AgentSettings:
    """The loop's settings: the options' turn limit and guards, and the compaction point that
    the window (``--context-window``, else ``agent.context_window``) and the output limit
    ``spec``'s provider sends give for this system prompt and these tools."""
    window = options.context_window or _setting(workspace, "agent.context_window")
    max_output = options.max_output_tokens or _setting(workspace, "agent.max_output_tokens")
    fixed = approx_tokens(system) + approx_tokens(repr([*tools.specs(), *SKILL_TOOLS]))
    return AgentSettings(
        max_turns=options.max_turns,
        guards=options.guards,
        compact_at_tokens=compaction_threshold(window, output_reserve(spec.provider, max_output), fixed),
    )


def _setting(workspace: Workspace, key: str) -> int | None:
    """A whole-number agent setting from config (the config check dropped a value out of range)."""
    value = workspace.config.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(env: Env, options: AgentOptions, workspace: Workspace) -> SkillUsage | None:
    """Usage recording as the options and ``agent.shadow_metrics`` in config ask."""
    if not options.record_usage:
        return None
    from skillshelf.agent.usage_hooks import SkillUsage

    shadow = options.shadow_metrics or workspace.config.get("agent.shadow_metrics") is True
    return SkillUsage(
        workspace.skills.loadable,
        project=env.project_root,
        state_dir=options.state_dir or env.dirs.state,
        shadow=shadow,
        index=workspace.index,
    )


def _chain(hooks: list[Callable[[str], None]]) -> Callable[[str], None] | None:
    if not hooks:
        return None

    def call_all(text: str) -> None:
        for hook in hooks:
            hook(text)

    return call_all


def _transcript(
    env: Env, options: AgentOptions, model: str, stripped: StrippedValues
) -> TranscriptWriter | ScrubbedTranscript:
    """The session's transcript; scrubbed of the values left out of bash's environment."""
    from skillshelf.memory.transcripts.skillshelf import new_transcript

    writer = new_transcript(
        options.state_dir or env.dirs.state, cwd=env.cwd, origin=options.origin, model=model
    )
    return ScrubbedTranscript(writer, stripped) if stripped else writer
