"""What a memory run is asked to do (:class:`RunOptions`) and what it did (:class:`RunReport`,
which ``skillshelf memory run --json`` prints)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.memory.consolidation_run import Phase2Outcome

__all__ = ["Phase", "Progress", "RunOptions", "RunReport"]

Progress = Callable[[str, int, int], None]  # (stage, done, total)
Phase = Literal["1", "2", "all"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """What ``skillshelf memory run`` was asked to do."""

    sessions: tuple[Path, ...] = ()
    db: str | None = None
    phase: Phase = "all"
    dry_run: bool = False
    worker_id: str | None = None
    queued_only: bool = False  # only the transcripts in the hook queue (memory/queue.py)
    take_over: bool = False  # set aside memory folders another database consolidated (memory/origin.py)


@dataclass(slots=True, kw_only=True)
class RunReport:
    """What a run did (``--json`` prints this)."""

    worker_id: str
    db: str
    searched: list[str] = field(default_factory=list)  # the folders and files looked in
    files: int = 0
    registered: int = 0
    unreadable: list[str] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)  # one per unreadable file: code, reason, fix
    skipped_lines: int = 0
    pruned: int = 0
    claimed: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    consolidation: list[Phase2Outcome] = field(default_factory=list)
    model_calls: int = 0
    budget: int | None = None
    dry_run: list[dict[str, object]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # scopes whose folder is another database's (ME053)
    exhausted: list[str] = field(default_factory=list)  # failed sessions and scopes with no retries left
    recovered: list[dict[str, object]] = field(default_factory=list)  # leases freed from gone holders
    skipped: list[dict[str, object]] = field(default_factory=list)  # sessions left for the time windows
    queued: int = 0  # transcripts the agents' hooks queued
    dequeued: int = 0  # of those, taken off the queue (extracted, nothing to keep, or unusable)

    @property
    def failed(self) -> bool:
        """Some job failed (it will be retried after its backoff), or a consolidation was refused
        (its folder holds another database's memories: the next run tries it again)."""
        return bool(self.outcomes.get("failed")) or any(
            c.status in ("failed", "other_database") for c in self.consolidation
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "worker_id": self.worker_id,
            "db": self.db,
            "searched": self.searched,
            "files": self.files,
            "registered": self.registered,
            "unreadable": self.unreadable,
            "problems": [d.to_dict() for d in self.problems],
            "skipped_lines": self.skipped_lines,
            "pruned": self.pruned,
            "claimed": self.claimed,
            "phase1": dict(self.outcomes),
            "phase2": [c.to_dict() for c in self.consolidation],
            "model_calls": self.model_calls,
            "budget": self.budget,
            "dry_run": self.dry_run,
            "errors": self.errors,
            "refused": self.refused,
            "exhausted": self.exhausted,
            "recovered": self.recovered,
            "skipped": self.skipped,
            "queue": {"queued": self.queued, "done": self.dequeued},
        }
