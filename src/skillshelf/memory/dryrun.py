"""A dry run: the prompts a run would send now, built from the store's candidates of each of the
run's Phase-1 passes (the queued sessions first, see ``queue.phase1_passes``). Nothing is
claimed, called or written; a transcript that cannot be read is a diagnostic, not an end."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import SkillshelfError
from skillshelf.memory import phase1
from skillshelf.memory.inspect import claim_limits, queued_ids, skipped_sessions
from skillshelf.memory.phase2 import render_selection
from skillshelf.memory.queue import QueuedSession
from skillshelf.memory.run_report import Phase, RunReport
from skillshelf.memory.runner import with_session
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import Store

__all__ = ["dry_run_prompts", "dry_run_report"]


def _candidates(
    store: Store, passes: Sequence[tuple[MemorySettings, list[str] | None]], *, now_ms: int
) -> list[tuple[str, str, str, str]]:
    """(session id, path, cwd, source) of each session a pass would claim, once."""
    seen: set[str] = set()
    found: list[tuple[str, str, str, str]] = []
    for settings, only in passes:
        rows = store.stage1_candidates(
            now_ms=now_ms, limits=claim_limits(settings), limit=settings.max_rollouts_per_run, only=only
        )
        for session_id, _updated, path, cwd, _project, source in rows:
            if session_id not in seen:
                seen.add(session_id)
                found.append((session_id, path, cwd, source))
    return found


def dry_run_prompts(
    store: Store,
    settings: MemorySettings,
    *,
    passes: Sequence[tuple[MemorySettings, list[str] | None]],
    phase2: bool = True,
    now_ms: int,
) -> tuple[list[dict[str, object]], list[Diagnostic]]:
    """(the Phase-1 prompts of ``passes`` and, with ``phase2``, the Phase-2 prompts a run would
    send, problems met reading transcripts)."""
    prompts: list[dict[str, object]] = []
    problems: list[Diagnostic] = []
    for session_id, path, cwd, source in _candidates(store, passes, now_ms=now_ms):
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
    for scope in store.dirty_scopes(now_ms=now_ms) if phase2 else ():
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


def dry_run_report(
    store: Store,
    settings: MemorySettings,
    report: RunReport,
    passes: Sequence[tuple[MemorySettings, list[str] | None]],
    queue: Sequence[QueuedSession],
    phase: Phase,
    only: list[str] | None,
    *,
    now_ms: int,
) -> RunReport:
    """``report`` with the prompts a run of ``phase`` would send (those of its Phase-1
    ``passes``, then Phase 2's) and the sessions it would skip (those of the hook ``queue`` wait
    for no idle window); nothing is claimed or taken off the queue."""
    report.dry_run, problems = dry_run_prompts(
        store, settings, passes=passes, phase2=phase != "1", now_ms=now_ms
    )
    report.problems += problems
    waiting = queued_ids(store, queue)
    found = skipped_sessions(store, settings, now_ms=now_ms, only=only, queued=waiting)
    report.skipped = [v.to_dict() for v in found]
    return report
