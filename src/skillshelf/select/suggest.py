"""Query-aware context that keeps the prompt-prefix cache.

Two parts, as Codex's world state does for its catalog:

* the **stable catalog** (:func:`stable_catalog`): the budgeted catalog of every visible skill,
  in Codex's render order, independent of the task. :class:`CatalogState` fingerprints it so
  a caller re-emits it only when the skills change, never because the task did;
* the **per-turn fragment** (:func:`suggestion_fragment`), placed low in the context: the
  skills most relevant to the current task, with full descriptions and paths, within its own
  token budget, under the per-turn rule of :class:`~skillshelf.select.service.TurnCandidates`:
  a skill the task mentions is loaded whole instead (the context's ``mentioned`` part), those in
  ``manual`` mode load only when mentioned, ``pinned`` ones are already whole in the context,
  ``disabled`` ones never appear; none of these, nor a copy of a mentioned or pinned one, is
  suggested.

For an agent with a skill tool of its own (Claude Code's ``Skill``), a skill it lists is
suggested by the name that tool takes, without a path: loaded through the tool, the skill gets
what the agent gives its skills (``$ARGUMENTS`` filled in and ``!`command``` lines run, both
checked with Claude Code 2.1.197, and its ``allowed-tools``), which reading the file by hand
skips.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skillshelf.skills.catalog.aliases import display_path
from skillshelf.skills.catalog.codex import cap_description
from skillshelf.skills.load import UNTRUSTED_TAG
from skillshelf.skills.model import Skill
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.select import RankedDoc
    from skillshelf.select.ranking import Ranker
    from skillshelf.select.service import TurnCandidates
    from skillshelf.skills.catalog import Budget, RenderedCatalog

__all__ = [
    "CatalogState",
    "CatalogUpdate",
    "Suggestions",
    "catalog_update",
    "default_suggestion_budget",
    "stable_catalog",
    "suggested",
    "suggestion_fragment",
]

OPEN_TAG = "<skill_suggestions>"
CLOSE_TAG = "</skill_suggestions>"
INTRO = (
    "Skills that look relevant to the current task, best match first. They are suggestions: "
    "use one only if it fits; to use it, read its SKILL.md at the path given."
)
SKILL_TOOL_INTRO = (
    "Skills that look relevant to the current task, best match first. They are suggestions: "
    "use one only if it fits. To use one, call the Skill tool with its name; for one given with "
    "a file, read that SKILL.md instead."
)

ToolName = Callable[[Skill], "str | None"]
"""The name an agent's own skill tool takes for a skill, None when the agent does not list it."""


# ---- the stable catalog ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogState:
    """Fingerprint of the catalog text last emitted into a conversation."""

    fingerprint: str
    chars: int

    @classmethod
    def of(cls, text: str) -> CatalogState:
        return cls(fingerprint=hashlib.sha256(text.encode("utf-8")).hexdigest(), chars=len(text))


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogUpdate:
    """Whether to emit the catalog this turn: ``emit`` is False when it is unchanged."""

    emit: bool
    text: str
    state: CatalogState


def catalog_update(previous: CatalogState | None, text: str) -> CatalogUpdate:
    """Compare freshly rendered catalog ``text`` with what was emitted before (pure)."""
    state = CatalogState.of(text)
    return CatalogUpdate(
        emit=previous is None or previous.fingerprint != state.fingerprint, text=text, state=state
    )


def stable_catalog(skills: Sequence[Skill], budget: Budget, **options: object) -> RenderedCatalog:
    """The task-independent catalog (:func:`~skillshelf.skills.catalog.render_catalog`). Input
    order does not matter: skills are sorted by path first so that equal inputs always give
    equal text."""
    from skillshelf.skills.catalog import render_catalog

    ordered = sorted(skills, key=lambda s: str(s.path))
    return render_catalog(ordered, budget, **options)  # type: ignore[arg-type]


# ---- the per-turn fragment ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Suggestions:
    """The per-turn fragment (``""`` when there is nothing to suggest) and what it lists."""

    text: str
    skills: tuple[Skill, ...]
    omitted: int = 0
    tokens: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "skills": [{"name": s.name, "path": str(s.path)} for s in self.skills],
            "omitted": self.omitted,
            "tokens": self.tokens,
        }


def default_suggestion_budget(context_window: int | None) -> int:
    """Tokens for the per-turn fragment: 1 % of the window, between 300 and 4,000 (1,000 when
    the window is unknown)."""
    if not context_window or context_window <= 0:
        return 1000
    return max(300, min(4000, context_window // 100))


#: Control characters (C0 but the whitespace the line is joined over, DEL, C1) and the invisible
#: formatting characters (Unicode's Cf: bidirectional controls, zero-width spaces, the byte-order
#: mark, soft hyphen, tag characters that can spell hidden text): nothing a skill's text needs in
#: one line, and a way to hide or reorder it. The zero-width (non-)joiner stay: scripts and emoji
#: need them, and they hide nothing.
_UNSEEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)


def inert(text: str) -> str:
    """``text`` as a line of the fragment can hold it: without control or invisible formatting
    characters (bidirectional, zero-width, tags), and with ``<`` and ``>`` written ``&lt;`` and
    ``&gt;``, so a skill's name, description or path cannot close the fragment, open a tag of
    its own or hide text (the fragment is skillshelf's format: Codex's catalog keeps a
    description as written)."""
    return _UNSEEN.sub("", text).replace("<", "&lt;").replace(">", "&gt;")


def _line(skill: Skill, tool_name: str | None, max_desc: int | None = None) -> str:
    desc = cap_description(inert(" ".join(skill.description.split())))
    if max_desc is not None and len(desc) > max_desc:
        desc = desc[: max(0, max_desc - 3)].rstrip() + "..."
    tag = "" if skill.trusted else f"{UNTRUSTED_TAG} "
    if tool_name is not None:
        return f"- {inert(tool_name)}: {tag}{desc}"
    return f"- {inert(skill.name)}: {tag}{desc} (file: {inert(display_path(skill.path))})"


def _fit(skill: Skill, tool_name: str | None, remaining: int) -> str | None:
    line = _line(skill, tool_name)
    if approx_tokens(line + "\n") <= remaining:
        return line
    spare = remaining * 4 - len(_line(skill, tool_name, 0).encode("utf-8")) - 4
    if spare < 80:
        return None
    line = _line(skill, tool_name, spare)
    while line and approx_tokens(line + "\n") > remaining and spare > 80:
        spare -= 16
        line = _line(skill, tool_name, spare)
    return line if approx_tokens(line + "\n") <= remaining else None


def suggestion_fragment(
    ranker: Ranker,
    task: str,
    *,
    budget_tokens: int,
    turn: TurnCandidates | None = None,
    tool_name: ToolName | None = None,
) -> Suggestions:
    """The skills most relevant to ``task``, with full descriptions and paths: those the ranking
    suggests (:func:`suggested`: none when its confidence is below the threshold, at most
    ``max_suggestions``) under the per-turn rule ``turn`` (None: none left out), which leaves
    out the skills it never suggests (``manual``, ``pinned``, hidden from the model, those the
    task mentions, which the context loads whole instead) and the copies of a mentioned or pinned
    one. Lines are added while they fit ``budget_tokens`` (counting the wrapper); a long
    description is shortened rather than the skill dropped when at least 80 characters of it
    fit. With ``tool_name``, a skill it names is suggested by that name for the agent's skill
    tool, without its path."""
    chosen = [r.doc.skill for r in suggested(ranker, task, turn=turn) if r.doc.skill is not None]
    return _render(chosen, budget_tokens, tool_name)


def suggested(ranker: Ranker, task: str, *, turn: TurnCandidates | None = None) -> tuple[RankedDoc, ...]:
    """The ranked entries the per-turn fragment offers for ``task`` (none below the confidence
    threshold, at most ``max_suggestions``), under the per-turn rule ``turn``
    (:meth:`TurnCandidates.left_out <skillshelf.select.service.TurnCandidates.left_out>` left out
    of the ranking, then :meth:`~skillshelf.select.service.TurnCandidates.shown`), the rule
    `skillshelf search` marks its suggestions by."""
    if not task.strip():
        return ()
    left_out = () if turn is None else turn.left_out(d.key for d in ranker.index.docs)
    ranking = ranker.rank(task, top_k=ranker.settings.max_suggestions, exclude=left_out)
    return ranking.suggested if turn is None else turn.shown(ranking.suggested)


def _render(chosen: list[Skill], budget_tokens: int, tool_name: ToolName | None) -> Suggestions:
    if not chosen:
        return Suggestions(text="", skills=())
    names = [None if tool_name is None else tool_name(skill) for skill in chosen]
    intro = SKILL_TOOL_INTRO if any(name is not None for name in names) else INTRO
    header = f"{OPEN_TAG}\n{intro}\n"
    remaining = budget_tokens - approx_tokens(header + CLOSE_TAG + "\n")
    lines: list[str] = []
    listed: list[Skill] = []
    for skill, name in zip(chosen, names, strict=True):
        line = _fit(skill, name, remaining) if remaining > 0 else None
        if line is None:
            continue
        lines.append(line)
        listed.append(skill)
        remaining -= approx_tokens(line + "\n")
    if not lines:
        return Suggestions(text="", skills=(), omitted=len(chosen))
    text = header + "\n".join(lines) + "\n" + CLOSE_TAG
    return Suggestions(
        text=text,
        skills=tuple(listed),
        omitted=len(chosen) - len(listed),
        tokens=approx_tokens(text),
    )
