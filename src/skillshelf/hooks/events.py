"""What each hook event does. Every handler returns the context text to add (``""`` for none);
:mod:`.runner` turns it into the agent's answer and catches whatever goes wrong.

- ``UserPromptSubmit``: the suggestion fragment for the prompt (the ranking, threshold and
  budget of ``skillshelf context``), the bodies of mentioned skills the agent cannot load
  itself (one too long for the answer by name and path, to be read), and memory lines that
  match the prompt; nothing at all when nothing fits. The turn's suggestions are recorded so
  ``skillshelf stats`` can tell how often they were used, and each mentioned skill whose body
  came as loaded (``via: "mention"``; the agent injected its body or the hook did), so a
  compaction puts it back like a skill the model read. A pinned skill the session's
  ``SessionStart`` answer holds whole is neither loaded nor recorded again.
- ``SessionStart``: the pinned skills (:mod:`.pinned`; on a resume only those the transcript does
  not hold yet), after a compaction the skills the session loaded (:mod:`.reattach`), then in
  the room left the project's memory summary (``hooks.session_memory``); transcripts
  queued by earlier sessions are extracted by a detached ``memory run --queued``; a detached
  ``hook warm`` builds the project's search index before the first prompt needs it.
- ``Stop`` / ``SessionEnd``: the transcript queued for the memory pipeline (a file write: the
  event's essential step, :data:`ESSENTIAL`, which the runner waits for past the deadline); then
  after ``SessionEnd`` a detached ``memory run --queued`` may start (``hooks.memory_run``): both
  phases, or Phase 1 alone while the consolidation model cannot be called.
- ``PostToolUse``: a skill used through the shell (its ``SKILL.md`` read or a script run, as
  Codex's detector tells), Claude Code's ``Read`` of a ``SKILL.md`` or its ``Skill`` tool is
  recorded in the usage log behind the usage prior and ``skillshelf stats``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.env import Env
from skillshelf.hooks.agents import Agent
from skillshelf.hooks.answer import CONTEXT_TOKEN_LIMIT
from skillshelf.hooks.hooklog import write_log_line
from skillshelf.hooks.payload import HookInput
from skillshelf.hooks.settings import HookSettings
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.errors import UsageError
    from skillshelf.skills.model import Skill
    from skillshelf.workspace import WorkspaceSkills

__all__ = ["ESSENTIAL", "HANDLERS", "Spawn", "memory_notes", "queue_session"]

Spawn = Callable[[list[str]], None]  # starts `skillshelf ARGS...` detached (see runner)
SUGGESTED = "suggested"  # the name the turn's suggestions are recorded under for `stats`
MEMORY_INTRO = "Notes from earlier sessions in this project that match this prompt (skillshelf memory):"
SUMMARY_INTRO = "Memory from earlier sessions in this project (skillshelf memory summary):"


def _load_config(env: Env) -> Config:
    from skillshelf.config import load_config

    return load_config(env)


def _turn_key(inp: HookInput) -> str:
    return f"{inp.session_id}:{inp.turn_id}" if inp.turn_id else inp.session_id


# ---- UserPromptSubmit --------------------------------------------------------------------------


def user_prompt_submit(agent: Agent, inp: HookInput, env: Env, spawn: Spawn) -> str:
    if not inp.prompt.strip():
        return ""
    from skillshelf.hooks.turn import given_mentions, prompt_turn

    turn = prompt_turn(env, inp.prompt, skill_tool=agent == "claude", agent=agent)
    settings = turn.settings
    budget = CONTEXT_TOKEN_LIMIT[agent]
    pieces: list[str] = []
    suggestions = turn.part("suggestions")
    if suggestions is not None:
        pieces.append(suggestions.text)
    given = given_mentions(
        agent, env, turn.loaded, inp.prompt, before=pieces, budget=budget, keep=settings.memory_tokens
    )
    pieces += given.pieces
    if settings.memory:
        cap = min(settings.memory_tokens, budget - _tokens(pieces))
        notes = memory_notes(env, inp.prompt, token_cap=cap, setting=turn.memory_scope)
        pieces += [notes] if notes else []
    if settings.usage:
        _record_turn(env, inp, suggestions.sources if suggestions is not None else ())
        _record_mentions(env, inp, [item.skill for item in turn.loaded if item.skill not in given.listed])
    _keep_server(env, settings, spawn)
    return "\n\n".join(pieces)


def _keep_server(env: Env, settings: HookSettings, spawn: Spawn) -> None:
    """Start the hook server (detached; at most once a minute) when it is wanted. A hook that the
    server answers never gets here with a spawn that starts one."""
    from skillshelf.hooks.address import server_address, server_off

    if settings.server and not server_off(env.environ) and server_address(env.dirs.state, env.environ):
        spawn(["hook-server", "start"])


def _tokens(pieces: Sequence[str]) -> int:
    return approx_tokens("\n\n".join(pieces))


def _record_turn(env: Env, inp: HookInput, suggested: Sequence[str]) -> None:
    from skillshelf.select.usage import UsageStore

    with _usage_problems_logged(env):
        UsageStore.in_state_dir(env.dirs.state).record_turn(
            _turn_key(inp), {SUGGESTED: list(suggested)}, project=str(env.project_root)
        )


def _record_mentions(env: Env, inp: HookInput, mentioned: Sequence[Skill]) -> None:
    if mentioned:
        from skillshelf.select.usage import MENTION

        _record_loads(env, inp, mentioned, MENTION)


@contextmanager
def _usage_problems_logged(env: Env) -> Iterator[None]:
    """Usage events are a ranking hint: one that cannot be recorded goes to the hook log
    instead of costing the agent the hook's answer."""
    from skillshelf.errors import FileAccessError

    try:
        yield
    except FileAccessError as exc:
        write_log_line(env.dirs.state, f"usage not recorded: {exc.code}: {exc.message}")


def memory_notes(env: Env, prompt: str, *, token_cap: int, setting: str, limit: int = 6) -> str:
    """Lines of this project's memory (of the scope ``memory.scope = setting`` writes) that share
    at least two content words with ``prompt`` (one when the prompt has only one), best first,
    within ``token_cap``; ``""`` when none."""
    from skillshelf.select.tokenize import terms

    wanted = set(terms(prompt))
    if not wanted or token_cap <= 0:
        return ""
    from skillshelf.memory.read import record_memory_use, search_memory

    need = min(2, len(wanted))
    lines: list[str] = []
    used: list[str] = []
    for hit in search_memory(env, prompt, setting=setting, limit=50, record_usage=False):
        if len(wanted & set(terms(hit.text))) < need or hit.text.startswith("#"):
            continue
        line = f"- {hit.text.lstrip('-*+ ').strip()} ({hit.path.name}:{hit.line})"
        if line in lines or approx_tokens("\n".join([MEMORY_INTRO, *lines, line])) > token_cap:
            continue
        lines.append(line)
        used += [hit.session_id] if hit.session_id else []
        if len(lines) >= limit:
            break
    record_memory_use(used, data_dir=env.dirs.data)  # ranks these memories up in consolidation
    return "\n".join([MEMORY_INTRO, *lines]) if lines else ""


# ---- SessionStart ------------------------------------------------------------------------------


def session_start(agent: Agent, inp: HookInput, env: Env, spawn: Spawn) -> str:
    config = _load_config(env)
    settings = HookSettings.from_config(config)
    _maybe_drain(env, settings, spawn)
    _keep_server(env, settings, spawn)
    _warm_for_first_prompt(agent, env, settings, spawn)
    from skillshelf.hooks.pinned import session_pinned
    from skillshelf.hooks.reattach import reattach_text

    @functools.cache
    def workspace_skills() -> WorkspaceSkills:  # the workspace opened once, and only when a part needs it
        from skillshelf.workspace import Workspace

        workspace = Workspace.open(env)
        withheld = workspace.config.skills_withheld
        if withheld is not None:  # no pinned or re-attached skill: say why in the hook log
            write_log_line(env.dirs.state, f"skills withheld: {withheld.code}: {withheld.message}")
        return workspace.skills

    cap = CONTEXT_TOKEN_LIMIT[agent]
    pinned, named = session_pinned(agent, inp, config, workspace_skills)
    left = cap - approx_tokens(pinned) - 1  # a "\n\n" between the parts is at most one token
    reattached = (
        reattach_text(inp, env, token_cap=left, leave_out=named, skills=workspace_skills)
        if settings.usage
        else ""
    )
    skills = "\n\n".join(p for p in (pinned, reattached) if p)
    room = cap - approx_tokens(skills) - approx_tokens(SUMMARY_INTRO) - 8
    if room <= 0 or not _summary_wanted(agent, env, settings):
        return skills
    from skillshelf.memory.read import memory_summary_for, scope_setting, summary_token_cap

    limit = summary_token_cap(config, on_bad=lambda e: write_log_line(env.dirs.state, e.one_line()))
    summary = memory_summary_for(env, setting=scope_setting(config), token_cap=min(room, limit))
    if summary is None or not summary.text.strip():
        return skills
    return "\n\n".join(p for p in (skills, f"{SUMMARY_INTRO}\n\n{summary.text}") if p)


def _warm_for_first_prompt(agent: Agent, env: Env, settings: HookSettings, spawn: Spawn) -> None:
    """Build this project's search index (and its skills' model vectors) in the background
    while the user types the first prompt, which would otherwise find none and be answered
    empty past its deadline. Not when suggestions are off or the index could not be kept."""
    from skillshelf.dirs import unwritable

    if settings.suggestions and unwritable(env.dirs.cache / "index") is None:
        spawn(["hook", "warm", "--agent", agent])


def _summary_wanted(agent: Agent, env: Env, settings: HookSettings) -> bool:
    if settings.session_memory != "auto":
        return settings.session_memory == "on"
    if agent != "codex":
        return True
    from skillshelf.hooks.codex import codex_config, codex_memories_on

    user = codex_config(env.codex_home / "config.toml")
    projects = [codex_config(dot_codex / "config.toml") for dot_codex in _codex_project_layers(env)]
    return not codex_memories_on(user, *projects)


def _codex_project_layers(env: Env) -> list[Path]:
    """The project ``.codex`` folders whose ``config.toml`` Codex layers over the user's, the
    root's first: only those of folders Codex trusts (it ignores an untrusted clone's)."""
    from skillshelf.skills.codex_config import read_codex_settings
    from skillshelf.skills.plugins import codex_project_layers
    from skillshelf.skills.roots import codex_config_folders

    return codex_project_layers(env, codex_config_folders(env), read_codex_settings(env.codex_home))


def warm(agent: Agent, inp: HookInput, env: Env, spawn: Spawn) -> str:
    """Build (or refresh) the on-disk caches a prompt reads: discovery and the search index."""
    from skillshelf.hooks.turn import warm_index

    warm_index(env)
    return ""


# ---- Stop / SessionEnd ---------------------------------------------------------------------------


def stop(agent: Agent, inp: HookInput, env: Env, spawn: Spawn) -> str:
    """The whole ``Stop`` / ``SessionEnd``, which the runner runs apart (:data:`ESSENTIAL`)."""
    queue_session(agent, inp, env)
    return after_stop(agent, inp, env, spawn)


def queue_session(agent: Agent, inp: HookInput, env: Env) -> None:
    """Queue the transcript for the memory pipeline: the session's durable record, one small
    file write with light imports, done even when the rest of the hook is past its deadline."""
    if not inp.transcript_path:
        return
    from skillshelf.memory.queue import QueuedSession, enqueue

    session = QueuedSession(
        path=Path(inp.transcript_path),
        agent=agent,
        session_id=inp.session_id,
        cwd=inp.cwd,
        ended=inp.event == "SessionEnd",
        project=_memory_project(inp.cwd),
    )
    enqueue(env.dirs.state, session)


def after_stop(agent: Agent, inp: HookInput, env: Env, spawn: Spawn) -> str:
    """What follows the queue entry: after ``SessionEnd``, a detached run may start (skipped
    when the deadline passes first; the next ``SessionStart`` starts one)."""
    if inp.transcript_path and inp.event == "SessionEnd":
        _maybe_drain(env, HookSettings.from_config(_load_config(env)), spawn)
    return ""


def _memory_project(cwd: str) -> str:
    """The memory project of the session's folder while it exists ("" when it cannot be told; the
    run may come after a worktree is removed): :func:`skillshelf.memory.runner.project_of`, lighter."""
    from skillshelf.env import find_project_root
    from skillshelf.memory.layout import memory_project

    if not cwd or "\x00" in cwd or not Path(cwd).is_absolute():
        return ""
    try:
        folder = Path(cwd)
        return str(memory_project(find_project_root(folder))) if folder.is_dir() else ""
    except OSError:
        return ""


def _maybe_drain(env: Env, settings: HookSettings, spawn: Spawn) -> None:
    """Start a detached ``memory run --queued`` when there is a queue and the extraction model
    can be called (key or base URL set): both phases, or Phase 1 alone while the consolidation
    model cannot be called; none (said in the hook log) while ``[memory]`` cannot be used."""
    if settings.memory_run == "off":
        return
    from skillshelf.memory.queue import queued

    if not queued(env.dirs.state):
        return
    from skillshelf.memory.models import model_endpoint
    from skillshelf.memory.settings import load_memory_settings

    bad: list[UsageError] = []
    memory = load_memory_settings(env, on_bad=bad.append)
    if bad:  # the run would refuse these settings; the rest of the answer still goes out
        return write_log_line(env.dirs.state, f"memory run not started: {bad[0].code}: {bad[0].message}")
    if not any(model_endpoint(env, memory, memory.extract_model)):
        return
    consolidates = any(model_endpoint(env, memory, memory.consolidation_model))
    spawn(["memory", "run", "--queued", *(() if consolidates else ("--phase", "1"))])


# ---- PostToolUse ----------------------------------------------------------------------------------


def post_tool_use(agent: Agent, inp: HookInput, env: Env, spawn: Spawn) -> str:
    command = inp.tool_input.get("command")
    path = inp.tool_input.get("file_path")
    name = inp.tool_input.get("skill")
    if (
        inp.tool_name == "Bash"
        and isinstance(command, str)
        and ("SKILL.md" in command or "scripts" in command)
    ):
        used = _skills_run(env, lambda skills: _detected(skills, command, inp, env))
        _record_loads(env, inp, used, "implicit")
    elif inp.tool_name == "Read" and isinstance(path, str) and path.endswith("SKILL.md"):
        used = _skills_run(env, lambda skills: [s for s in skills if s.path == Path(path)])
        _record_loads(env, inp, used, "read")
    elif inp.tool_name == "Skill" and isinstance(name, str) and name:
        used = _skills_run(env, lambda skills: _called(skills, name, env))
        _record_loads(env, inp, used, "skill")
    return ""


def _skills_run(env: Env, pick: Callable[[tuple[Skill, ...]], Sequence[Skill]]) -> Sequence[Skill]:
    from skillshelf.workspace import Workspace

    workspace = Workspace.open(env)
    if not HookSettings.from_config(workspace.config).usage:
        return ()
    return pick(workspace.discovery.skills)


def _called(skills: Sequence[Skill], name: str, env: Env) -> Sequence[Skill]:
    """The skill Claude Code's ``Skill`` tool ran as ``name``: the one of that name, else the one
    Claude Code knows by it (a folder named otherwise than its skill, Claude Code's copy of a
    skill discovery keeps in another agent's root)."""
    same = [s for s in skills if s.name == name]
    if same:
        return same[:1]
    from skillshelf.install.visibility import Visibility

    folder = name.rpartition(":")[2]
    visibility = Visibility(env)
    return next(
        ([s] for s in skills if s.folder.name == folder and visibility.claude_name(s, copies=True) == name),
        [],
    )


def _detected(skills: Sequence[Skill], command: str, inp: HookInput, env: Env) -> Sequence[Skill]:
    from skillshelf.skills.implicit import ImplicitUseDetector

    cwd = Path(inp.cwd) if inp.cwd else env.cwd
    return ImplicitUseDetector(skills, home=env.home).matches(command, cwd=cwd)


def _record_loads(env: Env, inp: HookInput, used: Sequence[Skill], via: str) -> None:
    if not used:
        return
    from skillshelf.select.usage import UsageStore

    store = UsageStore.in_state_dir(env.dirs.state)
    with _usage_problems_logged(env):
        for skill in used:
            store.record_load(str(skill.path), turn=_turn_key(inp), project=str(env.project_root), via=via)


HANDLERS: dict[str, Callable[[Agent, HookInput, Env, Spawn], str]] = {
    "UserPromptSubmit": user_prompt_submit,
    "SessionStart": session_start,
    "Stop": after_stop,
    "SessionEnd": after_stop,
    "PostToolUse": post_tool_use,
    "warm": warm,
}
#: The work of an event never skipped: run before its handler, waited for past the deadline.
ESSENTIAL: dict[str, Callable[[Agent, HookInput, Env], None]] = {
    "Stop": queue_session,
    "SessionEnd": queue_session,
}
