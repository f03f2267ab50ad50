"""Skills loaded earlier in a session, put back after the agent compacts the conversation.

When Claude Code (2.1.197) or Codex (0.171.0) compacts a conversation (``/compact``, or on its
own near the context limit) it starts the session again with ``SessionStart`` and ``source:
"compact"`` (both checked with the real CLIs), and the summary keeps at best a paraphrase of
the skills the model had read: it then repeats the mistakes they prevent. The loads of the
session are in the usage log (``PostToolUse`` records a ``SKILL.md`` read, a ``Skill`` call or
a skill's script run, ``UserPromptSubmit`` the skills a prompt mentions, keyed by the session
id), so the compaction's ``SessionStart`` answer carries them again: the most recently loaded
first, whole while they fit the answer's token cap, then by name and path with a line saying
to read them again. A skill that is gone or disabled since is left out. Without usage
recording (``[hooks] usage = false``) there is nothing to put back. The skill inventory itself
needs no help: both agents list their skills again in the first request after a compaction
(checked with the same CLIs).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.env import Env
from skillshelf.hooks.payload import HookInput
from skillshelf.skills.model import Skill
from skillshelf.tokens import whole_or_listed

if TYPE_CHECKING:
    from skillshelf.workspace import WorkspaceSkills

__all__ = [
    "COMPACT_SOURCE",
    "REATTACH_INTRO",
    "loaded_in_session",
    "readable_fragment",
    "reattach_text",
    "skill_line",
]

COMPACT_SOURCE = "compact"
REATTACH_INTRO = "Skills loaded earlier in this session, attached again after the conversation was compacted:"
_LIST_INTRO = "Also loaded earlier (read each SKILL.md again before you use it):"


def loaded_in_session(events: Iterable[Mapping[str, object]], session_id: str) -> list[str]:
    """The ``SKILL.md`` paths loaded in ``session_id``, the most recent first, each once."""
    by_last_load: dict[str, None] = {}  # oldest last load first
    for event in events:
        turn, path = event.get("turn"), event.get("path")
        if event.get("type") != "load" or not isinstance(turn, str) or not isinstance(path, str):
            continue
        if turn == session_id or turn.startswith(f"{session_id}:"):
            by_last_load.pop(path, None)
            by_last_load[path] = None
    return list(reversed(by_last_load))


def reattach_text(
    inp: HookInput,
    env: Env,
    *,
    token_cap: int,
    leave_out: Collection[Path] = (),
    skills: Callable[[], WorkspaceSkills] | None = None,
) -> str:
    """The skills to put back for ``inp`` (empty unless it is a compaction's ``SessionStart``
    with loads recorded), within ``token_cap`` tokens; not those in ``leave_out`` (the pinned
    ones, which the answer carries already). ``skills`` finds the workspace's skills (default:
    open the workspace of ``env``)."""
    if inp.source != COMPACT_SOURCE or not inp.session_id:
        return ""
    from skillshelf.select.usage import UsageStore

    paths = loaded_in_session(UsageStore.in_state_dir(env.dirs.state).events(), inp.session_id)
    if not paths:
        return ""
    if skills is None:
        from skillshelf.workspace import Workspace

        found = Workspace.open(env).skills
    else:
        found = skills()
    by_path = {str(s.path): s for s in found.loadable}
    skipped = {str(path) for path in leave_out}
    return _render([by_path[p] for p in paths if p in by_path and p not in skipped], token_cap)


def _render(skills: Sequence[Skill], token_cap: int) -> str:
    """Each skill whole while the text stays within ``token_cap``, else as a line of the list."""
    items = [(readable_fragment(s), skill_line(s)) for s in skills]
    return whole_or_listed(items, token_cap, intro=REATTACH_INTRO, list_intro=_LIST_INTRO)


def readable_fragment(skill: Skill) -> str:
    """The skill as a mention injects it; empty when its file cannot be read any more."""
    from skillshelf.context_parts import read_skill_fragment
    from skillshelf.errors import FileAccessError

    try:
        return read_skill_fragment(skill)
    except FileAccessError:
        return ""


def skill_line(skill: Skill) -> str:
    """The skill as a line of a list: its name and the path to read it at."""
    return f"- {skill.name}: {skill.path}"
