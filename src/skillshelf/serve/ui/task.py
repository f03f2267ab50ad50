"""The "try a task" view: for one request, what the model would be given and why.

* the ranking ``skillshelf search`` prints (:func:`skillshelf.select.service.search`, the same
  skills, installed models and threshold), each skill's score split by signal, and for a skill
  the suggestions leave out, why (:func:`skillshelf.context_parts.turn_candidates`);
* the per-turn parts ``skillshelf context TASK`` adds (:func:`skillshelf.context.turn_parts`):
  the suggestion fragment (for the ``claude`` profile as Claude Code's hook gives it, naming
  the skills Claude Code lists for its Skill tool) and the skills the request mentions, loaded;
* each mention (``$name``, ``[$name](path)``, ``/name``) and what it resolved to;
* what the ``load_skill`` tool would inject for each ranked skill, and its size in tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from skillshelf.context import prepare_context, turn_parts
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError
from skillshelf.select.explain import SIGNALS
from skillshelf.serve.ui.budget import Profile
from skillshelf.serve.ui.state import Snapshot, UiOptions, UiState
from skillshelf.skills.model import Skill
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.select.service import SearchResult

__all__ = ["load_view", "task_view"]

MAX_TOP = 50


def _search(snapshot: Snapshot, options: UiOptions, query: str, top: int, *, claude: bool) -> SearchResult:
    """What `skillshelf search QUERY --top TOP --explain` ranks here (``--profile claude`` when
    ``claude``): the same settings from config and the same rule for what may be suggested."""
    from skillshelf.context_parts import ClaudeNames, turn_candidates
    from skillshelf.select.ranking import RankingSettings
    from skillshelf.select.service import search

    workspace = snapshot.workspace
    turn = turn_candidates(workspace.skills, query, claude=ClaudeNames(workspace.env) if claude else None)
    return search(
        workspace.skills.loadable,
        query,
        top=top,
        cache_dir=workspace.index_cache_dir,
        semantic=options.semantic,
        settings=RankingSettings.from_config(workspace.config.get),
        explain=True,
        turn=turn,
    )


def task_view(
    env: Env, state: UiState, *, query: str, profile: Profile, window: int | None, top: int
) -> dict[str, object]:
    """The task view's data for ``query``."""
    snapshot, options = state.snapshot, state.options
    context = options.context_options(
        profile=profile, context_window=window, skill_tool=None, semantic=options.semantic
    )
    prepared = prepare_context(env, context, workspace=snapshot.workspace)
    claude = (context.profile or prepared.config.instructions_profile) == "claude"
    result = _search(snapshot, options, query, max(1, min(top, MAX_TOP)), claude=claude)
    parts = result.parts
    turn = turn_parts(prepared, query)
    suggestion = turn.part("suggestions")
    suggested = set(suggestion.sources) if suggestion else set()
    mention_part = turn.part("mentioned")
    return {
        "query": query,
        "models": list(result.models),
        "searched": result.index.documents,
        "signals": dict(SIGNALS),
        "ranked": [
            {
                "rank": r.rank,
                "name": r.doc.name,
                "path": r.doc.key,
                "description": r.doc.description,
                "score": round(r.score, 6),
                "signals": parts.get(r.doc.key, {}),
                "suggested": r.doc.key in suggested,
                "never_suggested": result.never_suggested.get(r.doc.key),
                "load": _load_summary(snapshot, r.doc.name, r.doc.key),
            }
            for r in result.ranked
        ],
        "suggestions": suggestion.to_dict() if suggestion else None,
        "mentioned": mention_part.to_dict() if mention_part else None,
        "mentions": _mentions(query, snapshot.workspace.skills.loadable, turn.mentioned),
    }


def _load_summary(snapshot: Snapshot, name: str, path: str) -> dict[str, object]:
    """How big ``load_skill(name)`` would be, and whether it loads another copy of the name."""
    try:
        loaded = snapshot.tools.load_skill(name)
    except SkillshelfError as exc:
        return {"error": exc.message, "code": exc.code}
    return {
        "tokens": approx_tokens(loaded.text),
        "files": len(loaded.data.get("files", ())),
        "loads_path": loaded.data.get("path"),
        "shadowed": loaded.data.get("path") != path,
    }


def load_view(snapshot: Snapshot, name: str) -> dict[str, object]:
    """Exactly what the ``load_skill`` tool returns for ``name``, and its size in tokens.

    Raises:
        SkillNotFoundError: no loadable skill has that name.
    """
    result = snapshot.tools.load_skill(name)
    return {
        "name": name,
        "text": result.text,
        "tokens": approx_tokens(result.text),
        "data": dict(result.data),
    }


def _mentions(query: str, loadable: Sequence[Skill], mentioned: Sequence[Skill]) -> list[dict[str, object]]:
    """Each mention in ``query`` and what it selected (or why it selected nothing)."""
    from skillshelf.skills.mentions import extract_mentions

    found = extract_mentions(query)
    chosen = {s.name: s for s in mentioned}
    rows: list[dict[str, object]] = []
    for name in found.plain_names:
        copies = [s for s in loadable if s.name == name]
        rows.append(_mention_row(f"${name}", name, chosen.get(name), copies, slash=False))
    for path in found.paths:
        hit = next((s for s in mentioned if path in {str(s.path), str(s.folder)}), None)
        rows.append(
            {
                "mention": f"[...]({path})",
                "selected": str(hit.path) if hit else None,
                "why": "a link selects the skill at that path"
                if hit
                else "no loadable skill has that SKILL.md or folder path",
            }
        )
    if found.slash_command is not None:
        name = found.slash_command.name
        copies = [s for s in loadable if s.name == name and s.claude.user_invocable]
        rows.append(_mention_row(f"/{name}", name, chosen.get(name), copies, slash=True))
    return rows


def _mention_row(
    mention: str, name: str, hit: Skill | None, copies: Sequence[Skill], *, slash: bool
) -> dict[str, object]:
    if hit is not None:
        why = "the first user-invocable skill of that name" if slash else "the only skill of that name"
    elif not copies:
        kind = "user-invocable skill" if slash else "loadable skill"
        why = f"no {kind} is named {name!r}"
    elif not slash and len(copies) > 1:
        why = f"{len(copies)} skills are named {name!r}: a plain mention must name exactly one"
    else:
        why = "already selected by an earlier mention"
    return {"mention": mention, "selected": str(hit.path) if hit else None, "why": why}
