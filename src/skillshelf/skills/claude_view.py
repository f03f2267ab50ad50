"""Claude Code's listing of the skills seen from here: :mod:`skillshelf.skills.claude_listing`
applied to this machine's Claude Code folders (skills and ``.claude/commands`` files), settings
and usage counts.

``validate --profile claude`` reports with it which skills Claude Code lists by name alone
(``SK369``) when the listing is over its budget.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.skills.claude_commands import ClaudeCommand, claude_commands, listing_key, plugin_commands
from skillshelf.skills.claude_listing import (
    DEFAULT_FRACTION,
    ENTRY_CAP,
    ListingEntry,
    ListingPlan,
    entry_text,
    plan_listing,
    usage_priority,
)
from skillshelf.skills.claude_models import model_room
from skillshelf.skills.claude_settings import (
    claude_state_file,
    merged_settings,
    read_json,
    skill_overrides,
    unlisted_by_override,
)
from skillshelf.skills.discover import discover_claude
from skillshelf.skills.frontmatter import collapse_whitespace
from skillshelf.skills.model import RootOrigin, Skill
from skillshelf.skills.parse_identity import js_trim
from skillshelf.skills.roots import enabled_claude_plugins

__all__ = ["ClaudeListing", "claude_listing", "listed_description", "listing_note"]

#: Names shown in an ``SK369`` message before "and N more".
SHOWN_NAMES = 12


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeListing:
    """The plan, and in words where its budget came from."""

    plan: ListingPlan
    budget_source: str
    commands: int = 0  # how many of the entries are ``.claude/commands`` files
    from_plugins: int = 0  # how many are plugins' skills and commands


def claude_listing(env: Env, *, now_ms: float | None = None, use_cache: bool = True) -> ClaudeListing:
    """What Claude Code's listing shows of the skills it sees from ``env.cwd``."""
    settings = merged_settings(env)
    budget, source = _budget(env, settings)
    cap = _positive_int(settings.get("skillListingMaxDescChars")) or ENTRY_CAP
    overrides = skill_overrides(settings)
    usage = read_json(claude_state_file(env)).get("skillUsage")
    usage = usage if isinstance(usage, Mapping) else {}
    now = time.time() * 1000 if now_ms is None else now_ms
    skills = _listed(env, overrides, use_cache=use_cache)
    own_commands = [c for c in claude_commands(env) if _shown(c, overrides)]
    plugin_commands_shown = [c for c in plugin_commands(enabled_claude_plugins(env)) if _shown(c, overrides)]
    regular = [s for s in skills if s.origin is not RootOrigin.CLAUDE_PLUGIN]
    from_plugins = [s for s in skills if s.origin is RootOrigin.CLAUDE_PLUGIN and _described(s)]
    ordered = [
        *((s.name, listed_description(s), s.claude.when_to_use) for s in regular),
        *((c.name, c.description, c.when_to_use) for c in [*own_commands, *plugin_commands_shown]),
        *((s.name, listed_description(s), s.claude.when_to_use) for s in from_plugins),
    ]
    entries = [
        ListingEntry(
            name=name,
            text=entry_text(description, when_to_use, cap),
            priority=usage_priority(usage.get(name), now_ms=now),
            name_only=overrides.get(name) == "name-only",
        )
        for name, description, when_to_use in ordered
    ]
    plan = plan_listing(entries, budget=budget)
    return ClaudeListing(
        plan=plan,
        budget_source=source,
        commands=len(own_commands),
        from_plugins=len(plugin_commands_shown) + len(from_plugins),
    )


def _listed(env: Env, overrides: Mapping[str, Any], *, use_cache: bool) -> list[Skill]:
    """The skills in Claude Code's listing, in its order: the managed policy's first, the
    user's, then each project folder's from the cwd up, each folder's by name; then the plugins'
    skills, plugin by plugin."""
    found = discover_claude(env, use_cache=use_cache)
    # the roots as scanned (a skill's ``root`` is one of them): resolved, a SKILL.md a plugin's
    # manifest names as its folder
    first = (RootOrigin.CLAUDE_MANAGED, RootOrigin.CLAUDE_USER)
    ranked = sorted(found.roots, key=lambda r: first.index(r.origin) if r.origin in first else len(first))
    order = {root.path: rank for rank, root in enumerate(ranked)}
    skills = [
        skill
        for skill in found.skills
        if not skill.claude.disable_model_invocation
        and not skill.claude.paths
        and not unlisted_by_override(overrides, skill.name)
    ]
    return sorted(skills, key=lambda s: (order.get(s.root, len(order)), listing_key(s.name)))


def listed_description(skill: Skill) -> str:
    """The description as Claude Code's listing shows it: a description written as text keeps its
    inner whitespace and line breaks (JavaScript's ``trim`` alone), which ``skill.description``
    collapses."""
    value = skill.frontmatter.get("description")
    if isinstance(value, str) and collapse_whitespace(value) == skill.description:
        return js_trim(value)
    return skill.description


def _described(skill: Skill) -> bool:
    """A plugin's skill is listed only with a ``description`` or ``when_to_use`` of its own:
    text that JavaScript's ``trim`` leaves non-empty, a number or a boolean."""
    value = skill.frontmatter.get("description")
    own = bool(js_trim(value)) if isinstance(value, str) else isinstance(value, int | float)
    return own or bool(skill.claude.when_to_use)


def _shown(command: ClaudeCommand, overrides: Mapping[str, Any]) -> bool:
    return not command.hidden and not unlisted_by_override(overrides, command.name)


def _budget(env: Env, settings: Mapping[str, Any]) -> tuple[int, str]:
    raw = env.environ.get("SLASH_COMMAND_TOOL_CHAR_BUDGET", "")
    try:
        fixed = float(raw)
    except ValueError:
        fixed = 0.0
    if fixed > 0:
        return int(fixed), "SLASH_COMMAND_TOOL_CHAR_BUDGET"
    fraction = settings.get("skillListingBudgetFraction")
    valid = isinstance(fraction, int | float) and not isinstance(fraction, bool) and 0 < fraction <= 1
    share = float(fraction) if valid else DEFAULT_FRACTION  # type: ignore[arg-type]
    named = settings.get("model")
    room = model_room(named if isinstance(named, str) else None, env.environ)
    budget = max(1, int(room.window * room.chars_per_token * share))
    where = "skillListingBudgetFraction: " if valid else ""
    if room.named is None:
        model = "Claude Code's default model"
    else:
        model = room.model if room.named.lower() == room.model else f"{room.model} (model {room.named!r})"
    return budget, (
        f"{where}{share * 100:g}% of the {room.window:,}-token window of {model}, "
        f"at {room.chars_per_token} characters a token"
    )


def _positive_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def listing_note(listing: ClaudeListing, path: Path | None = None) -> Diagnostic | None:
    """``SK369`` when the listing is over budget and some skills lose their descriptions."""
    plan = listing.plan
    if not plan.names_only:
        return None
    shown = ", ".join(plan.names_only[:SHOWN_NAMES])
    more = len(plan.names_only) - SHOWN_NAMES
    listed = len(plan.described) + len(plan.names_only)
    parts = [f"{listing.commands} in .claude/commands"] if listing.commands else []
    parts += [f"{listing.from_plugins} from plugins"] if listing.from_plugins else []
    kinds = "skills" + (f" and commands ({', '.join(parts)})" if parts else "")
    return Diagnostic(
        code="SK369",
        severity=Severity.WARNING,
        message=f"Claude Code's skill listing needs {plan.width:,} characters of its {plan.budget:,} "
        f"({listing.budget_source}): {len(plan.names_only)} of your {listed} {kinds} are listed by "
        f"name alone, without their descriptions: {shown}"
        + (f" and {more} more" if more > 0 else "")
        + "; the most used keep theirs",
        fix="shorten the longest descriptions, set `disable-model-invocation: true` on skills only you "
        "start, "
        + ("turn off the plugins you do not use (/plugin), " if listing.from_plugins else "")
        + "raise skillListingBudgetFraction in ~/.claude/settings.json, or `skillshelf setup claude` "
        "so each turn names the skills that fit the task",
        path=path,
    )
