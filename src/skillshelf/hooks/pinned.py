"""Skills configured as ``pinned`` (``[[skills.config]]`` ``mode = "pinned"``) inside the agents.

``skillshelf context`` puts a pinned skill's body in its stable ``pinned`` part. Inside Codex and
Claude Code the ``SessionStart`` answer carries it: first in the answer (the skills put back
after a compaction and the memory summary get the room left), each skill whole (the fragment a
mention injects, :func:`~skillshelf.context_parts.read_skill_fragment`) while the block fits the
agent's context cap (:data:`~skillshelf.hooks.answer.CONTEXT_TOKEN_LIMIT`), then by name and path
with a line saying to read it.

``SessionStart`` comes with one of four sources in both agents (Codex 0.171.0 names the same
four as Claude Code 2.1.197): ``startup``, ``clear`` (a new conversation) and ``compact`` (the
conversation summarised) leave the model without the block, so their answers carry it; an event
without a source counts as a start. ``resume`` goes on with the old conversation, which holds
what its answers carried: the resume's answer carries only the pinned skills the conversation
does not hold yet (one pinned since it started, or started before skillshelf's hooks were set
up), read from its transcript (:func:`held_in_transcript`). Checked with the real CLIs against
``model-standin``: after ``codex exec resume`` a block the resume's answer carried again is in
the request twice, after ``claude -p --continue`` the first answer's block is there without
one; after a compaction neither request holds the block unless the compaction's answer does.
Both agents go on in the file ``transcript_path`` names (Codex's rollout, Claude Code's
session ``.jsonl``), the ``SessionStart`` answers in it: Claude Code's as a
``hook_additional_context`` attachment, Codex's as a ``developer`` message.

:func:`pinned_block` is the one rule: the prompt hook asks it which pinned skills the session's
answer holds whole, and a prompt that mentions one of them loads nothing more for it, as
``skillshelf context`` does with its pinned part.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.errors import FileAccessError
from skillshelf.fileio import open_regular
from skillshelf.hooks.agents import Agent
from skillshelf.hooks.answer import CONTEXT_TOKEN_LIMIT
from skillshelf.hooks.payload import HookInput
from skillshelf.hooks.reattach import readable_fragment, skill_line
from skillshelf.skills.load import injected_path, path_text, skill_fragment
from skillshelf.skills.model import Skill
from skillshelf.tokens import whole_or_listed

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.context import ContextPart
    from skillshelf.workspace import WorkspaceSkills

__all__ = [
    "MAX_SCANNED_BYTES",
    "PINNED_INTRO",
    "RESUME_SOURCE",
    "PinnedBlock",
    "any_pinned",
    "carries_pinned",
    "held_in_transcript",
    "pinned_block",
    "resumed_block",
    "session_pinned",
]

RESUME_SOURCE = "resume"
PINNED_INTRO = "Skills pinned in skillshelf's config, in the context for the whole session:"
_LIST_INTRO = "Also pinned (read each SKILL.md before you use it):"
#: Bytes of a transcript a resume reads at most to tell which pinned skills it holds; a longer
#: one is not read (see :func:`held_in_transcript`).
MAX_SCANNED_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class PinnedBlock:
    """The pinned skills as a ``SessionStart`` answer carries them."""

    text: str  # "" when there are none (or none fits even by name)
    whole: tuple[Skill, ...]  # those whose body the text holds whole

    def part(self) -> ContextPart:
        """The block as the stable ``pinned`` part of a hook's prepared context: its sources are
        the skills held whole, the ones a mention then loads no more."""
        from skillshelf.context import ContextPart

        sources = tuple(str(skill.path) for skill in self.whole)
        return ContextPart(name="pinned", title="Pinned skills", text=self.text, sources=sources)


def any_pinned(config: Config) -> bool:
    """Whether a ``[[skills.config]]`` entry pins a skill (else no skill need be discovered)."""
    from skillshelf.config.modes import SkillMode

    return any(rule.mode is SkillMode.PINNED for rule in config.skill_rules)


def carries_pinned(inp: HookInput) -> bool:
    """Whether the ``SessionStart`` answer for ``inp`` carries every pinned skill: every source
    but ``resume``, whose conversation holds them already unless they were pinned since."""
    return inp.source != RESUME_SOURCE


def pinned_block(pinned: Sequence[Skill], agent: Agent) -> PinnedBlock:
    """``pinned`` (in the workspace's order) whole while they fit the agent's context cap, then by line.
    It depends only on the skills' files and the cap, so the ``SessionStart`` answer and a later
    prompt's hook tell alike which ones the session holds whole."""
    items = [(readable_fragment(skill), skill_line(skill)) for skill in pinned]
    text = whole_or_listed(items, CONTEXT_TOKEN_LIMIT[agent], intro=PINNED_INTRO, list_intro=_LIST_INTRO)
    # a fragment is in the text whole or not at all (a listed skill is a line of name and path)
    whole = tuple(
        skill for skill, (fragment, _) in zip(pinned, items, strict=True) if fragment and fragment in text
    )
    return PinnedBlock(text=text, whole=whole)


def session_pinned(
    agent: Agent, inp: HookInput, config: Config, skills: Callable[[], WorkspaceSkills]
) -> tuple[str, tuple[Path, ...]]:
    """The pinned block of the ``SessionStart`` answer for ``inp`` (``""`` with no skill pinned;
    on a resume only the skills its transcript does not hold) and the path of every pinned skill
    it names, whole or by line; ``skills`` finds the workspace's skills (called only when a skill
    is pinned)."""
    if not any_pinned(config) or not (carries_pinned(inp) or inp.transcript_path):
        return "", ()
    pinned = skills().pinned
    if carries_pinned(inp):
        return pinned_block(pinned, agent).text, tuple(skill.path for skill in pinned)
    held = held_in_transcript(inp.transcript_path, pinned) if pinned else None
    if held is None:
        return "", ()
    missing = [skill for skill in pinned if skill.path not in held]
    return resumed_block(pinned, missing, agent), tuple(skill.path for skill in missing)


def resumed_block(pinned: Sequence[Skill], missing: Sequence[Skill], agent: Agent) -> str:
    """The block for the ``missing`` ones of ``pinned``: whole those the whole block holds whole
    (:func:`pinned_block`, which the prompt hook asks too), the others by line."""
    if not missing:
        return ""
    whole = {skill.path for skill in pinned_block(pinned, agent).whole}
    items = [(readable_fragment(s) if s.path in whole else "", skill_line(s)) for s in missing]
    return whole_or_listed(items, CONTEXT_TOKEN_LIMIT[agent], intro=PINNED_INTRO, list_intro=_LIST_INTRO)


def held_in_transcript(transcript: str, pinned: Sequence[Skill]) -> frozenset[Path] | None:
    """The paths of the ``pinned`` skills the conversation in ``transcript`` (the hook input's
    ``transcript_path``) holds: whole (its ``<skill>`` fragment's ``<name>`` and ``<path>``
    lines, as this block, a mention or Codex's own ``$name`` injects it) or as the line that
    names it with its path; None when that cannot be told.

    A copy before a compaction counts: a compaction's ``SessionStart`` answer carries every
    pinned skill again, and Codex, when it compacts as a resume starts, runs the resume's hook
    before that answer is in the rollout (seen with ``model_auto_compact_token_limit``), so a
    copy after the last compaction cannot be waited for.

    The file is hostile input: read as a stream (the JSONL readers of the memory pipeline,
    long lines clipped) when it is an absolute path to a regular file (a symlink is followed, as
    an agent's own folder may be one; a FIFO or device is never opened for a blocking read) of
    at most :data:`MAX_SCANNED_BYTES`, in the Codex or Claude Code format; only the lines
    whose bytes hold a pinned skill's path are parsed. When it cannot be told
    (missing, unreadable, too big, another format) the answer is None and the resume gets
    nothing: a skill it does hold would otherwise be sent twice on every resume, while holding
    back is what a resume did before it read transcripts. A transcript that lies (names a skill
    it does not hold) costs the same: the skill is not sent.
    """
    path = _absolute(transcript)
    if path is None:
        return None
    try:
        return _scan(path, pinned)
    except (OSError, ValueError, FileAccessError):
        return None


def _absolute(text: str) -> Path | None:
    return Path(text) if text and "\x00" not in text and Path(text).is_absolute() else None


def _scan(path: Path, pinned: Sequence[Skill]) -> frozenset[Path] | None:
    """:func:`held_in_transcript` for a transcript at ``path``; raises on I/O trouble."""
    from skillshelf.memory.transcripts import sniff_format
    from skillshelf.memory.transcripts.jsonl import iter_lines, parse_line

    with open_regular(path) as handle:
        if os.fstat(handle.fileno()).st_size > MAX_SCANNED_BYTES:
            return None
        fmt = sniff_format(path)
        if fmt is None or fmt.name not in _AGENT_FORMATS:
            return None
        needles = _needles(pinned)
        markers = {skill.path: _markers(skill) for skill in pinned}
        held: set[Path] = set()
        for line in iter_lines(handle):
            if handle.tell() > MAX_SCANNED_BYTES:
                return None  # the file grew past the cap while it was read
            if line is None or not any(needle in line for needle in needles):
                continue
            value = parse_line(line)
            if value is None:
                continue
            texts = _strings(value)
            held |= {skill for skill, found in markers.items() if _holds(texts, found)}
    return frozenset(held)


def _needles(pinned: Sequence[Skill]) -> tuple[bytes, ...]:
    """Bytes a line holds when it may name a pinned skill: its path or the one its fragment
    names (:func:`~skillshelf.skills.load.injected_path`) as JSON writes it, with or without
    ``\\u`` escapes."""
    named = {str(path) for s in pinned for path in (s.path, injected_path(s))}
    paths = {json.dumps(path, ensure_ascii=escaped)[1:-1] for path in named for escaped in (True, False)}
    return tuple(sorted(p.encode("utf-8") for p in paths))


def _markers(skill: Skill) -> tuple[tuple[str, ...], str]:
    """What a conversation holding ``skill`` holds: its fragment's head (everything before the
    body; with the real ``SKILL.md`` as ``<path>``, or the linked one earlier versions wrote for a
    symlinked folder) and, for one listed, its line."""
    head = skill_fragment(skill, "\x00").partition("\x00")[0]
    linked = head.replace(
        f"<path>{path_text(injected_path(skill))}</path>", f"<path>{path_text(skill.path)}</path>"
    )
    return tuple(dict.fromkeys((head, linked))), f"\n{skill_line(skill)}\n"


def _holds(texts: Sequence[str], markers: tuple[tuple[str, ...], str]) -> bool:
    heads, line = markers
    return any(any(head in text for head in heads) or line in f"{text}\n" for text in texts)


def _strings(value: object) -> list[str]:
    """Every string in a parsed JSON line (its depth is bounded by the reader)."""
    found: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


#: The transcript formats a resume reads (``memory.transcripts`` tells them apart).
_AGENT_FORMATS = frozenset({"codex", "claude"})
