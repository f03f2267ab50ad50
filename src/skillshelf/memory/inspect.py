"""What each session is waiting for, and the whole picture ``memory status`` prints.

:func:`session_verdict` is pure: a session's facts from the store, the time, the eligibility
windows and its lease's verdict in, one state with a reason out:

``extracted``, ``nothing_to_keep``, ``pruned`` (its memory went unused and ``prune`` deleted it),
``gone`` (its transcript was deleted first), ``running``,
``stuck`` (its worker died on this machine), ``stale`` (its worker stopped heartbeating or its
lease expired), ``failed`` (waiting for a retry), ``gave_up`` (no retries left for this version
of the transcript), ``too_recent`` (not idle for ``min_idle_hours`` yet), ``too_old`` (outside
``max_age_days``), ``pending`` (the next run takes it), ``queued`` (an agent's hook queued its
transcript: the next run takes it without waiting for the idle window), ``forgotten``,
``subagent`` and ``no_user_message`` (never extracted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from skillshelf.memory.layout import is_other_scope
from skillshelf.memory.leases import LeaseVerdict, judge_leases
from skillshelf.memory.queue import QueuedSession
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import STAGE1, SessionFacts, Store
from skillshelf.memory.store.base import GONE, ClaimLimits
from skillshelf.memory.store.consolidation import PRUNED

__all__ = [
    "SessionVerdict",
    "claim_limits",
    "memory_status",
    "no_memory_note",
    "queued_ids",
    "retries_spent",
    "session_verdict",
    "skipped_sessions",
]

SKIP_STATES = ("too_recent", "too_old")


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionVerdict:
    id: str
    source: str
    path: str
    updated_at_ms: int
    state: str
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "source": self.source,
            "path": self.path,
            "updated_ms": self.updated_at_ms,
            "state": self.state,
            "reason": self.reason,
        }


def claim_limits(settings: MemorySettings) -> ClaimLimits:
    return ClaimLimits(
        min_idle_ms=int(settings.min_idle_hours * 3_600_000),
        max_age_ms=int(settings.max_age_days * 86_400_000),
        running_cap=settings.max_running_jobs or settings.max_rollouts_per_run,
    )


def _span(ms: int) -> str:
    seconds = max(0, ms) / 1000
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172_800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86_400:.0f} days"


def _job_state(facts: SessionFacts, now_ms: int, lease: LeaseVerdict | None) -> tuple[str, str] | None:
    """The state the extraction job puts the session in, if it decides it."""
    if facts.job_status == "running":
        if lease is None or lease.state == "live":
            return "running", "being extracted" + (f" by {lease.lease.worker_id}" if lease else "")
        return ("stuck" if lease.state == "stuck" else "stale"), lease.reason
    error = facts.last_error
    if not error or (facts.input_watermark or -1) < facts.updated_at_ms:
        return None
    if (facts.retry_remaining or 0) <= 0:
        return "gave_up", f"{error}; no retries left until the transcript changes (`touch` it to try again)"
    if facts.retry_at_ms is not None and facts.retry_at_ms > now_ms:
        return "failed", f"{error}; retried in {_span(facts.retry_at_ms - now_ms)}"
    return None


def retries_spent(store: Store, kind: str, key: str) -> bool:
    """Whether the job ``key`` of ``kind`` failed with no retries left (until its input changes)."""
    job = store.job(kind, key)
    return job is not None and job["status"] == "error" and int(job["retry_remaining"] or 0) <= 0


def queued_ids(store: Store, queue: Sequence[QueuedSession]) -> frozenset[str]:
    """The sessions of the store whose transcripts are in the hook queue."""
    return frozenset(store.session_ids_for_paths([str(q.path) for q in queue]) if queue else ())


def session_verdict(
    facts: SessionFacts,
    *,
    now_ms: int,
    limits: ClaimLimits,
    lease: LeaseVerdict | None = None,
    queued: bool = False,
) -> SessionVerdict:
    """One session's state and why (see the module docstring). A ``queued`` session (its
    transcript is in the hook queue) has no idle window to wait for, as in a run."""
    state, reason = _state(facts, now_ms, replace(limits, min_idle_ms=0) if queued else limits, lease)
    if queued and state == "pending":
        then = f"retries it ({_failure(facts)})" if _failure(facts) else "extracts it"
        state, reason = "queued", f"queued by its agent's hook: the next run {then}, idle or not"
    return SessionVerdict(
        id=facts.id,
        source=facts.source,
        path=facts.path,
        updated_at_ms=facts.updated_at_ms,
        state=state,
        reason=reason,
    )


def _state(
    facts: SessionFacts, now_ms: int, limits: ClaimLimits, lease: LeaseVerdict | None
) -> tuple[str, str]:
    if facts.memory_mode != "enabled":
        return "forgotten", "`memory forget` turned it off"
    if facts.subagent:
        return "subagent", "a sub-agent's session: never turned into memories"
    if not facts.has_user_message:
        return "no_user_message", "no user message in it to learn from"
    if (facts.output_watermark or -1) >= facts.updated_at_ms:
        return "extracted", "its memory is up to date"
    if (facts.success_watermark or -1) >= facts.updated_at_ms:
        if facts.last_error == GONE:
            return "gone", f"{GONE}; never tried again unless the file comes back"
        if facts.last_error == PRUNED:
            return "pruned", f"{PRUNED}; extracted again only once its transcript changes"
        return "nothing_to_keep", "the model found nothing in it worth keeping"
    decided = _job_state(facts, now_ms, lease)
    if decided is not None:
        return decided
    idle = now_ms - facts.updated_at_ms
    if idle < limits.min_idle_ms:
        return "too_recent", (
            f"last written {_span(idle)} ago; sessions are extracted once idle for "
            f"{limits.min_idle_ms / 3_600_000:g} h (--min-idle-hours, memory.min_idle_hours)"
        )
    if idle > limits.max_age_ms:
        return "too_old", (
            f"last written {_span(idle)} ago, outside the {limits.max_age_ms / 86_400_000:g}-day window "
            "(memory.max_age_days)"
        )
    if _failure(facts):
        return "pending", f"the next run retries it ({facts.last_error})"
    return "pending", "the next run extracts it"


def _failure(facts: SessionFacts) -> str | None:
    """The error of the session's last extraction attempt (a prune's note is none)."""
    return facts.last_error if facts.last_error != PRUNED else None


_NO_MEMORY_FIX = {
    "forgotten": "a forgotten session is never extracted again",
    "pruned": "it comes back only once its transcript changes; memory.max_unused_days keeps memories longer",
    "nothing_to_keep": "it is extracted again once its transcript changes",
    "gone": "it is extracted again only if its transcript comes back",
    "subagent": "a sub-agent's session is part of its parent's",
    "no_user_message": "a session with no user message is never extracted",
}


def no_memory_note(
    store: Store, settings: MemorySettings, session_id: str, *, now_ms: int
) -> tuple[str, str]:
    """(message, fix) telling why ``session_id`` has no memory to show: its state and reason."""
    found = store.session_facts(limit=1, only=[session_id])
    if not found:
        return (
            f"no session {session_id!r} in the memory database",
            "`skillshelf memory run` reads new transcripts; `skillshelf memory status` lists the sessions",
        )
    verdict = session_verdict(found[0], now_ms=now_ms, limits=claim_limits(settings))
    fix = _NO_MEMORY_FIX.get(verdict.state, "`skillshelf memory run` extracts it once it is due")
    state = verdict.state.replace("_", " ")
    return f"no memory for session {session_id!r} ({state}): {verdict.reason}", fix


def _verdicts(
    store: Store,
    settings: MemorySettings,
    leases: list[LeaseVerdict],
    *,
    now_ms: int,
    limit: int,
    only: Sequence[str] | None,
    queued: Collection[str] = (),
) -> list[SessionVerdict]:
    by_key = {v.lease.key: v for v in leases if v.lease.kind == STAGE1}
    limits = claim_limits(settings)
    return [
        session_verdict(
            facts, now_ms=now_ms, limits=limits, lease=by_key.get(facts.id), queued=facts.id in queued
        )
        for facts in store.session_facts(limit=limit, only=only)
    ]


def skipped_sessions(
    store: Store,
    settings: MemorySettings,
    *,
    now_ms: int,
    only: list[str] | None,
    limit: int = 1000,
    queued: Collection[str] = (),
) -> list[SessionVerdict]:
    """Sessions (of ``only``, else all) a run leaves alone because of the time windows; the
    ``queued`` ones (in the hook queue) have no idle window."""
    found = _verdicts(store, settings, [], now_ms=now_ms, limit=limit, only=only, queued=queued)
    return [v for v in found if v.state in SKIP_STATES]


def _other_scopes(counts: dict[str, Any], setting: str) -> list[dict[str, Any]]:
    """The scopes ``memory.scope`` no longer writes, with their memory counts: kept on disk but
    not read by agents (see ``memory.read``) until the setting is switched back, or deleted by
    ``memory prune --other-scopes``."""
    outputs = {str(row["scope"]): int(row["outputs"]) for row in counts["scopes"]}
    jobs = {str(row["scope"]) for row in counts["consolidation"]}
    return [
        {"scope": scope, "outputs": outputs.get(scope, 0)}
        for scope in sorted(outputs.keys() | jobs)
        if is_other_scope(scope, setting)
    ]


def memory_status(
    store: Store,
    settings: MemorySettings,
    *,
    now_ms: int,
    limit: int = 50,
    queue: Sequence[QueuedSession] = (),
) -> dict[str, Any]:
    """Counts, every running job's lease judged from this host, the newest ``limit`` sessions
    with their states (``session_states`` counts all of them; a session of ``queue``, the hook
    queue, is ``queued`` while the next run would take it) and how many transcripts are queued."""
    leases = judge_leases(store, settings, now_ms=now_ms)
    waiting = queued_ids(store, queue)
    sessions = _verdicts(store, settings, leases, now_ms=now_ms, limit=1_000_000, only=None, queued=waiting)
    states = Counter(v.state for v in sessions)
    counts = store.status(now_ms=now_ms)
    return {
        **counts,
        "queued": len(queue),
        "scope_setting": settings.scope,
        "other_scopes": _other_scopes(counts, settings.scope),
        "leases": [v.to_dict(now_ms) for v in leases],
        "stuck_leases": sum(v.state == "stuck" for v in leases),
        "stale_leases": sum(v.state in ("expired", "silent") for v in leases),
        "session_states": dict(sorted(states.items())),
        "session_list": [v.to_dict() for v in sessions[:limit]],
    }
