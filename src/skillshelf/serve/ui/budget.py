"""The context budget view: what the model's context holds here and what the catalog did to
every skill (listed in full, description cut, name only, or left out, and why).

Everything comes from :func:`skillshelf.context.prepare_context` over the page's workspace, the
pipeline ``skillshelf context`` and ``skillshelf catalog`` run: the ``catalog`` figures are the
report ``catalog --json`` prints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from skillshelf.config import SkillMode
from skillshelf.context import PreparedContext, prepare_context
from skillshelf.env import Env
from skillshelf.serve.ui.state import Snapshot, UiOptions
from skillshelf.skills.catalog import CatalogPlacement
from skillshelf.skills.catalog.aliases import UNTRUSTED_ROOT
from skillshelf.skills.model import Skill
from skillshelf.skills.same_names import mention_selects

__all__ = ["Profile", "budget_view", "duplicate_groups"]

Profile = Literal["codex", "claude"]

_WINDOW_FLAG = "--context-window"  # how Workspace.budget_choice names a window given to it
_ALIAS_LINE = re.compile(rf"^- `(r\d+)` = `(.*)`(?: {re.escape(UNTRUSTED_ROOT)})?$")
"""A line of the Codex catalog's roots table (:meth:`AliasPlan.root_lines
<skillshelf.skills.catalog.aliases.AliasPlan.root_lines>`), an untrusted root's mark included."""
_NOT_LISTED = {
    SkillMode.DISABLED: "disabled in [[skills.config]]: not listed, not loadable",
    SkillMode.MANUAL: "manual in [[skills.config]]: never listed; loads when mentioned ($name, /name)",
}
_HIDDEN = (
    "hidden from the model by the skill itself (policy allow_implicit_invocation = false, or "
    "disable-model-invocation: true): never listed, loadable by name"
)


def budget_view(
    env: Env, snapshot: Snapshot, options: UiOptions, *, profile: Profile, window: int | None
) -> dict[str, object]:
    """The budget view's data for ``profile`` (whose instruction files) and ``window`` (tokens;
    None: the config's, else unknown)."""
    workspace = snapshot.workspace
    context = options.context_options(profile=profile, context_window=window, suggestions=False)
    prepared = prepare_context(env, context, workspace=workspace)
    choice = workspace.budget_choice(context_window=window)
    budget = choice.budget
    return {
        "profile": profile,
        "window": choice.window,  # the one the budget came from (given, config, or Codex's model)
        "model": choice.model,
        "budget": {
            "limit": budget.limit,
            "unit": budget.unit,
            "text": budget.describe(),
            "source": _page_source(choice.source, window),
        },
        "parts": _parts(prepared),
        "catalog": prepared.catalog_report,
        "catalog_text": next((p.text for p in prepared.stable if p.name == "catalog"), ""),
        "skills": _skill_rows(prepared),
        "roots": _roots(prepared),
        "duplicates": duplicate_groups(workspace.discovery.skills, prepared),
        "found": len(workspace.discovery.skills),
    }


def _page_source(source: str, window: int | None) -> str:
    """Where the budget came from in the page's words: a window picked on the page is named as
    such, not as the command line's flag the workspace names it by."""
    if window is None:
        return source
    picked = (
        "chosen on this page"
        if window > 0
        else "0 tokens chosen on this page: pick a window, or the config's, for a budget in tokens"
    )
    return source.replace(f"({_WINDOW_FLAG})", f"({picked})")


def _parts(prepared: PreparedContext) -> list[dict[str, object]]:
    """The context's stable parts with their tokens, and the room per-turn suggestions may take."""
    rows: list[dict[str, object]] = [
        {"name": p.name, "title": p.title, "tokens": p.tokens, "sources": list(p.sources), "reserved": False}
        for p in prepared.stable
    ]
    rows.append(
        {
            "name": "suggestions",
            "title": "Suggestions (per turn, at most)",
            "tokens": prepared.options.suggestion_tokens,
            "sources": [],
            "reserved": True,
        }
    )
    return rows


def _skill_rows(prepared: PreparedContext) -> list[dict[str, object]]:
    """Every discovered skill in load order with its catalog state and the reason for it."""
    workspace = prepared.workspace
    placed: dict[str, CatalogPlacement] = {
        str(p.skill.path): p for p in (prepared.catalog.placements if prepared.catalog else ())
    }
    rows: list[dict[str, object]] = []
    for skill in workspace.discovery.skills:
        mode = workspace.modes.mode_of(skill)
        row: dict[str, object] = {
            "name": skill.name,
            "path": str(skill.path),
            "scope": skill.scope.value,
            "origin": skill.origin.value,
            "mode": mode.value,
            "description_chars": len(skill.description),
        }
        placement = placed.get(str(skill.path))
        if placement is None:
            reason = _NOT_LISTED.get(mode, _HIDDEN)
            row.update(state="omitted", kept_chars=None, reason=reason, cause="config")
        elif mode is SkillMode.NAME_ONLY:
            state = "omitted" if placement.state == "omitted" else "name_only"
            reason = "name-only in [[skills.config]]: listed without its description"
            if state == "omitted":
                reason += "; and then " + placement.reason
            row.update(state=state, kept_chars=placement.kept, reason=reason, cause="config")
        else:
            row.update(
                state=placement.state,
                kept_chars=placement.kept,
                description_chars=placement.length,
                reason=placement.reason,
                cause="budget" if placement.state != "full" else "",
            )
        if mode is SkillMode.PINNED:
            row["reason"] = f"{row['reason']}; pinned: its whole body is in the context too"
        rows.append(row)
    return rows


def _roots(prepared: PreparedContext) -> list[dict[str, object]]:
    """Every scanned root in precedence order, with its catalog alias (``r0``...) if any."""
    aliases: dict[str, str] = {}
    for line in prepared.catalog.root_lines if prepared.catalog else ():
        match = _ALIAS_LINE.match(line)
        if match:
            aliases[match.group(2)] = match.group(1)
    rows: list[dict[str, object]] = []
    for scan in prepared.workspace.discovery.scans:
        root = scan.root
        rows.append(
            {
                "path": str(root.path),
                "scope": root.scope.value,
                "origin": root.origin.value,
                "exists": scan.exists,
                "skill_files": scan.skill_files,
                "truncated": scan.truncated,
                "limit": scan.limit,
                "alias": aliases.get(str(root.path)),
            }
        )
    known = {str(row["path"]) for row in rows}
    rows += [
        {"path": path, "alias": alias, "scope": "", "origin": "alias", "exists": True}
        for path, alias in aliases.items()
        if path not in known
    ]
    return rows


def duplicate_groups(skills: Sequence[Skill], prepared: PreparedContext) -> list[dict[str, object]]:
    """Names held by more than one skill: every copy in load order, and which one wins where."""
    by_name: dict[str, list[Skill]] = {}
    for skill in skills:
        by_name.setdefault(skill.name, []).append(skill)
    loadable = {s.path for s in prepared.workspace.skills.loadable}
    listed = {str(p.skill.path) for p in (prepared.catalog.placements if prepared.catalog else ())}
    groups: list[dict[str, object]] = []
    for name, copies in sorted(by_name.items()):
        if len(copies) < 2:
            continue
        winner = next((s for s in copies if s.path in loadable), None)
        groups.append(
            {
                "name": name,
                "winner": str(winner.path) if winner else None,
                "why": _why_first(winner, copies) if winner else "every copy is disabled",
                "mention": mention_selects(name, [s for s in copies if s.path in loadable]),
                "copies": [
                    {
                        "path": str(s.path),
                        "scope": s.scope.value,
                        "origin": s.origin.value,
                        "loadable": s.path in loadable,
                        "listed": str(s.path) in listed,
                    }
                    for s in copies
                ],
            }
        )
    return groups


def _why_first(winner: Skill, copies: Sequence[Skill]) -> str:
    """Why load_skill (and search, and the MCP tools) take ``winner`` for the shared name."""
    others = [s for s in copies if s is not winner]
    lead = "load_skill, search and the MCP tools take this copy: it comes first in load order"
    if all(winner.scope.load_rank < s.scope.load_rank for s in others):
        return (
            f"{lead} (its scope, {winner.scope.value}, loads before "
            + ", ".join(sorted({s.scope.value for s in others}))
            + "; scopes load repo, user, system, admin)"
        )
    if copies.index(winner):
        return f"{lead} (the copies before it are disabled)"
    return f"{lead} (same scope as the next copy; within a scope, skills load by name, then path)"
