"""A dry run: the prompts a run would send now, built from the store's candidates. Nothing is
claimed, called or written; a transcript that cannot be read is a diagnostic, not an end."""

from __future__ import annotations

from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import SkillshelfError
from skillshelf.memory import phase1
from skillshelf.memory.inspect import claim_limits
from skillshelf.memory.phase2 import render_selection
from skillshelf.memory.runner import with_session
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import Store

__all__ = ["dry_run_prompts"]


def dry_run_prompts(
    store: Store, settings: MemorySettings, *, only: list[str] | None, now_ms: int
) -> tuple[list[dict[str, object]], list[Diagnostic]]:
    """(the Phase-1 and Phase-2 prompts a run would send, problems met reading transcripts)."""
    prompts: list[dict[str, object]] = []
    problems: list[Diagnostic] = []
    candidates = store.stage1_candidates(
        now_ms=now_ms, limits=claim_limits(settings), limit=settings.max_rollouts_per_run, only=only
    )
    for session_id, _updated, path, cwd, _project, source in candidates:
        try:
            system, user = with_session(
                path, lambda s: phase1.build_stage1_prompt(s, token_limit=settings.stage1_token_limit)
            )
        except SkillshelfError as exc:
            problems.append(
                Diagnostic(
                    code=exc.code,
                    severity=Severity.WARNING,
                    message=exc.message,
                    fix=exc.hint,
                    path=Path(path),
                )
            )
            continue
        prompts.append(
            {
                "phase": 1,
                "session_id": session_id,
                "source": source,
                "path": path,
                "cwd": cwd,
                "model": settings.extract_model,
                "system_chars": len(system),
                "prompt": user,
            }
        )
    for scope in store.dirty_scopes(now_ms=now_ms):
        selection = store.selection(
            scope,
            limit=settings.max_raw_memories,
            max_unused_ms=int(settings.max_unused_days * 86_400_000),
            now_ms=now_ms,
        )
        prompts.append(
            {
                "phase": 2,
                "session_id": scope,
                "source": "consolidation",
                "path": "",
                "cwd": "",
                "model": settings.consolidation_model,
                "system_chars": 0,
                "prompt": render_selection(selection),
            }
        )
    return prompts, problems
