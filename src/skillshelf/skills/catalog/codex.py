"""The catalog in Codex's layout, entry for entry what Codex 0.171.0 renders.

Layout (the intro sentences are ours; the roots table and every entry match Codex)::

    <skills_instructions>
    ## Skills
    <intro>
    ### Skill roots                      (aliased form only)
    - `r0` = `/path/to/root`
    ### Available skills
    - name: description (file: r0/skill/SKILL.md)
    </skills_instructions>

Rules, as measured against the real Codex with ``codex-oracle``:

* only model-visible skills; order: scope (system, admin, repo, user), name, then the
  ``SKILL.md`` path with symlinks resolved (the path shown stays the walked one);
* descriptions over 1,024 characters become their first 1,021 characters + ``...``;
* a skill from an untrusted project (``trusted`` false) is tagged ``[untrusted project]``
  before its description, or, in the aliased form, on its root's line when every skill of that
  root is untrusted (skillshelf's addition: Codex has no such tag). The tags are added after the
  budget is shared out and are not charged to it, so the skills listed and how far each
  description is cut are Codex's; what they cost is reported apart (``note_cost``);
* two renderings are fitted into the budget: with absolute paths, and with root aliases
  (whatever the roots table costs beyond what Codex's shorter intro saves is charged first;
  when that is the whole budget there is no aliased form). The aliased one is taken when it
  lists more skills, or as many with fewer characters cut, or as many and as few cut at a
  lower cost. Codex takes it even when nothing had to be cut, as it usually costs less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from pathlib import Path

from skillshelf.skills.catalog.aliases import AliasPlan, build_alias_plan, display_path
from skillshelf.skills.catalog.budget import Budget
from skillshelf.skills.catalog.lines import Allocation, Entry, allocate, entries_cost, new_entry
from skillshelf.skills.catalog.spec import CatalogFormatSpec, FormatRendering
from skillshelf.skills.load import UNTRUSTED_TAG
from skillshelf.skills.model import Skill

__all__ = [
    "CODEX_FORMAT",
    "MAX_DESCRIPTION_CHARS",
    "CodexRendering",
    "cap_description",
    "catalog_order",
    "codex_entry",
    "render_codex",
]

MAX_DESCRIPTION_CHARS = 1_024
_ELLIPSIS = "..."

# Codex charges the roots table by comparing its two empty bodies ("\n## Skills\n<intro>\n
# [### Skill roots\n]### Available skills\n"); these are their sizes in 0.171.0 (all ASCII,
# so characters = bytes). Only the sizes are kept, not Codex's sentences.
_CODEX_ABSOLUTE_BODY = 451
_CODEX_ALIASED_BODY = 310  # with the "### Skill roots" heading, before any root line

OPEN_TAG = "<skills_instructions>"
CLOSE_TAG = "</skills_instructions>"
INTRO_ABSOLUTE = (
    "Skills are folders of instructions for particular kinds of work, each one described by "
    "a `SKILL.md` file. Every entry below gives a skill's name, when it helps, and the "
    "absolute path of its `SKILL.md`; read that file in full before you use the skill."
)
INTRO_ALIASED = (
    "Skills are folders of instructions for particular kinds of work, each one described by "
    "a `SKILL.md` file. Every entry below gives a skill's name, when it helps, and where its "
    "`SKILL.md` is: a path starting with an alias such as `r0` continues from the folder that "
    "alias stands for in the roots table. Read that file in full before you use the skill."
)


def cap_description(description: str) -> str:
    """Codex's cap: over 1,024 characters -> the first 1,021 and ``...``."""
    if len(description) <= MAX_DESCRIPTION_CHARS:
        return description
    return description[: MAX_DESCRIPTION_CHARS - len(_ELLIPSIS)] + _ELLIPSIS


def _order_key(skill: Skill) -> tuple[int, str, str, str, str, str]:
    path = display_path(skill.path)
    order = path if skill.real_path is None else display_path(skill.real_path)
    return (skill.scope.render_rank, skill.name, order, path, display_path(skill.root), skill.description)


def ordered_with_paths(skills: Sequence[Skill]) -> tuple[list[Skill], list[str]]:
    """:func:`catalog_order` and each skill's displayed path (computed once for both)."""
    keyed = sorted(((_order_key(s), s) for s in skills if s.model_visible), key=itemgetter(0))
    return [s for _, s in keyed], [key[3] for key, _ in keyed]


def catalog_order(skills: Sequence[Skill]) -> list[Skill]:
    """Model-visible skills in Codex's render order: scope, name, then the resolved path."""
    return ordered_with_paths(skills)[0]


def codex_entry(skill: Skill, path: str) -> Entry:
    """``- name: description (file: path)``; minimum ``- name: (file: path)``; the untrusted
    tag after the name when the skill is not trusted."""
    return _entry(_head(skill, tagged=not skill.trusted), cap_description(skill.description), path)


def _head(skill: Skill, *, tagged: bool) -> str:
    return f"- {skill.name}: {UNTRUSTED_TAG} " if tagged else f"- {skill.name}: "


def _entry(prefix: str, description: str, path: str) -> Entry:
    return new_entry(prefix, description, f" (file: {path})", f"{prefix}(file: {path})", True)


@dataclass(frozen=True, slots=True, kw_only=True)
class CodexRendering:
    """The chosen rendering: the roots table (empty when absolute) and the fitted entries."""

    root_lines: tuple[str, ...]
    allocation: Allocation
    table_cost: int
    skills: tuple[Skill, ...]
    note_cost: int = 0  # what the untrusted tags add, past the budget

    @property
    def aliased(self) -> bool:
        return bool(self.root_lines)

    def text(self) -> str:
        lines = ["## Skills", INTRO_ALIASED if self.aliased else INTRO_ABSOLUTE]
        if self.root_lines:
            lines += ["### Skill roots", *self.root_lines]
        lines += ["### Available skills", *self.allocation.lines]
        return OPEN_TAG + "\n" + "\n".join(lines) + "\n" + CLOSE_TAG


def table_cost(budget: Budget, root_lines: Sequence[str]) -> int:
    """What Codex charges for a roots table: the aliased empty body minus the absolute one."""
    chars = sum(len(line) + 1 for line in root_lines)
    size = sum(len(line.encode("utf-8")) + 1 for line in root_lines)
    aliased = budget.cost_from_counts(_CODEX_ALIASED_BODY + chars, _CODEX_ALIASED_BODY + size)
    absolute = budget.cost_from_counts(_CODEX_ABSOLUTE_BODY, _CODEX_ABSOLUTE_BODY)
    return max(0, aliased - absolute)


def _aliased(
    skills: Sequence[Skill],
    descriptions: Sequence[str],
    paths: Sequence[str],
    budget: Budget,
    plan: AliasPlan | None,
) -> CodexRendering | None:
    if plan is None:
        return None
    short = plan.shorten_all(paths)
    marked = plan.untrusted_aliases(skills, short) if not all(s.trusted for s in skills) else frozenset()
    cost = table_cost(budget, plan.root_lines())
    if cost >= budget.limit:
        return None
    entries = [
        _entry(_head(skill, tagged=False), text, path)
        for skill, text, path in zip(skills, descriptions, short, strict=True)
    ]
    allocation = allocate(entries, budget.with_limit(budget.limit - cost))
    chosen = CodexRendering(
        root_lines=plan.root_lines(), allocation=allocation, table_cost=cost, skills=tuple(skills)
    )
    tagged = [
        _entry(_head(skill, tagged=not skill.trusted and path.partition("/")[0] not in marked), text, path)
        for skill, text, path in zip(skills, descriptions, short, strict=True)
    ]
    return _noted(chosen, tagged, plan.root_lines(marked), budget)


def _noted(
    chosen: CodexRendering, tagged: Sequence[Entry], root_lines: tuple[str, ...], budget: Budget
) -> CodexRendering:
    """``chosen`` (fitted without tags) with the untrusted tags put in: each entry keeps the
    description characters the budget gave it; ``note_cost`` is what the tags add."""
    kept = chosen.allocation.kept
    lines = tuple(entry.render(k) for entry, k in zip(tagged, kept, strict=True) if k is not None)
    if lines == chosen.allocation.lines and root_lines == chosen.root_lines:
        return chosen
    extra = entries_cost(budget, lines) - chosen.allocation.used
    chars = sum(map(len, root_lines)) - sum(map(len, chosen.root_lines))
    size = len("".join(root_lines).encode("utf-8")) - len("".join(chosen.root_lines).encode("utf-8"))
    extra += budget.cost_from_counts(chars, size)
    return replace(
        chosen, root_lines=root_lines, allocation=replace(chosen.allocation, lines=lines), note_cost=extra
    )


def _better(candidate: CodexRendering, current: CodexRendering) -> bool:
    a, b = candidate.allocation, current.allocation
    if a.omitted != b.omitted:
        return a.omitted < b.omitted
    if a.truncated_chars != b.truncated_chars:
        return a.truncated_chars < b.truncated_chars
    return candidate.table_cost + a.used < current.table_cost + b.used


def render_codex(
    skills: Sequence[Skill], budget: Budget, *, roots: Sequence[Path] | None = None
) -> CodexRendering:
    """Fit ``skills`` into ``budget`` the way Codex does; see the module docstring."""
    ordered, paths = ordered_with_paths(skills)
    # Capped descriptions and paths once, for both renderings.
    descriptions = [cap_description(s.description) for s in ordered]
    plain = [
        _entry(_head(s, tagged=False), text, path)
        for s, text, path in zip(ordered, descriptions, paths, strict=True)
    ]
    absolute = CodexRendering(
        root_lines=(), allocation=allocate(plain, budget), table_cost=0, skills=tuple(ordered)
    )
    aliased = _aliased(ordered, descriptions, paths, budget, build_alias_plan(ordered, roots))
    if aliased is not None and _better(aliased, absolute):
        return aliased
    tagged = [
        _entry(_head(skill, tagged=not skill.trusted), text, path)
        for skill, text, path in zip(ordered, descriptions, paths, strict=True)
    ]
    return _noted(absolute, tagged, (), budget)


def _render(skills: Sequence[Skill], budget: Budget, *, roots: Sequence[Path] | None) -> FormatRendering:
    chosen = render_codex(skills, budget, roots=roots)
    return FormatRendering(
        text=chosen.text() if chosen.skills else "",
        ordered=chosen.skills,
        allocation=chosen.allocation,
        root_lines=chosen.root_lines,
        table_cost=chosen.table_cost,
        note_cost=chosen.note_cost,
    )


CODEX_FORMAT = CatalogFormatSpec(
    name="codex", render=_render, help="Codex's skills section, as Codex renders it"
)
