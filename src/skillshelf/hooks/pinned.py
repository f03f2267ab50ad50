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
the first answer already: it gets no second copy. Checked with the real CLIs against
``model-standin``: after ``codex exec resume`` a block the resume's answer carried again is in
the request twice, after ``claude -p --continue`` the first answer's block is there without
one; after a compaction neither request holds the block unless the compaction's answer does.

:func:`pinned_block` is the one rule: the prompt hook asks it which pinned skills the session's
answer holds whole, and a prompt that mentions one of them loads nothing more for it, as
``skillshelf context`` does with its pinned part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.hooks.agents import Agent
from skillshelf.hooks.answer import CONTEXT_TOKEN_LIMIT
from skillshelf.hooks.payload import HookInput
from skillshelf.hooks.reattach import readable_fragment, skill_line
from skillshelf.skills.model import Skill
from skillshelf.tokens import whole_or_listed

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.context import ContextPart
    from skillshelf.workspace import WorkspaceSkills

__all__ = [
    "PINNED_INTRO",
    "RESUME_SOURCE",
    "PinnedBlock",
    "any_pinned",
    "carries_pinned",
    "pinned_block",
    "session_pinned",
]

RESUME_SOURCE = "resume"
PINNED_INTRO = "Skills pinned in skillshelf's config, in the context for the whole session:"
_LIST_INTRO = "Also pinned (read each SKILL.md before you use it):"


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
    """Whether the ``SessionStart`` answer for ``inp`` carries the pinned skills: every source
    but ``resume``, whose conversation holds them already."""
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
    """The pinned block of the ``SessionStart`` answer for ``inp`` (``""`` on a resume, or with no
    skill pinned) and the path of every pinned skill it names, whole or by line; ``skills`` finds
    the workspace's skills (called only when a skill is pinned)."""
    if not carries_pinned(inp) or not any_pinned(config):
        return "", ()
    pinned = skills().pinned
    return pinned_block(pinned, agent).text, tuple(skill.path for skill in pinned)
