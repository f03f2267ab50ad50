"""Values the memory store takes and returns."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "STAGE1",
    "CONSOLIDATE",
    "ClaimLimits",
    "ClaimOutcome",
    "LeaseHolder",
    "LeaseRow",
    "OutputRow",
    "Phase2Claim",
    "Selection",
    "SessionFacts",
    "SessionRow",
    "Stage1Claim",
]

STAGE1 = "memory_stage1"
CONSOLIDATE = "memory_consolidate"


class ClaimOutcome(StrEnum):
    CLAIMED = "claimed"
    SKIPPED_UP_TO_DATE = "skipped_up_to_date"
    SKIPPED_RUNNING = "skipped_running"
    SKIPPED_RETRY_BACKOFF = "skipped_retry_backoff"
    SKIPPED_RETRY_EXHAUSTED = "skipped_retry_exhausted"
    SKIPPED_NOT_DIRTY = "skipped_not_dirty"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimLimits:
    """Eligibility windows for Phase 1 (milliseconds) and the cap on live leases."""

    min_idle_ms: int
    max_age_ms: int
    running_cap: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionRow:
    """What the store knows about a transcript (no contents)."""

    id: str
    source: str
    path: str
    cwd: str
    project: str
    updated_at_ms: int
    first_user_message: str = ""
    git_branch: str | None = None
    origin: str = ""
    subagent: bool = False
    file_size: int = 0
    file_mtime_ns: int = 0
    memory_mode: str = "enabled"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionFacts:
    """A session as the store knows it, with its output's and its extraction job's state."""

    id: str
    source: str
    path: str
    updated_at_ms: int
    memory_mode: str
    subagent: bool
    has_user_message: bool
    output_watermark: int | None
    job_status: str | None
    retry_at_ms: int | None
    retry_remaining: int | None
    last_error: str | None
    input_watermark: int | None
    success_watermark: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaseHolder:
    """Who holds a lease: host, process id, the process's start (``<boot id>:<start ticks>`` on
    Linux, "" where unknown, so a reused pid is told apart) and how often it promised to
    heartbeat (ms)."""

    host: str
    pid: int
    start: str = ""
    beat_ms: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaseRow:
    """A running job's lease as stored (``holder`` is None for leases taken before holders were kept)."""

    kind: str
    key: str
    token: str | None
    worker_id: str | None
    holder: LeaseHolder | None
    started_at_ms: int
    lease_until_ms: int | None
    beat_at_ms: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage1Claim:
    """A claimed Phase-1 job: only the holder of ``token`` may finish it."""

    session_id: str
    token: str
    watermark: int
    path: str
    cwd: str
    project: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Phase2Claim:
    outcome: ClaimOutcome
    token: str | None = None
    watermark: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputRow:
    """One stage-1 output with the facts Phase 2 needs about its session."""

    session_id: str
    scope: str
    source_updated_at_ms: int
    raw_memory: str
    rollout_summary: str
    rollout_slug: str | None
    usage_count: int
    last_usage_ms: int | None
    selected_for_phase2: bool
    selected_source_updated_at_ms: int | None
    path: str
    cwd: str
    git_branch: str | None
    generated_at_ms: int = 0

    def to_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True, kw_only=True)
class Selection:
    """Phase 2's inputs and the diff against the last successful run."""

    selected: tuple[OutputRow, ...]
    retained_ids: frozenset[str]
    previous: tuple[OutputRow, ...]
    removed: tuple[OutputRow, ...]

    @property
    def added_count(self) -> int:
        return len(self.selected) - len(self.retained_ids)
