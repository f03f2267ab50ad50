"""Running claimed jobs: one Phase-1 extraction (Phase 2's run of one scope is
:mod:`.consolidation_run`), and the heartbeat that keeps a long job's lease alive (and notices
when ownership is lost)."""

from __future__ import annotations

import contextlib
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

from skillshelf.env import find_project_root
from skillshelf.errors import SkillshelfError
from skillshelf.memory import phase1
from skillshelf.memory.layout import GLOBAL_SCOPE, memory_project, project_scope
from skillshelf.memory.models import JsonModel
from skillshelf.memory.redact import redact_secrets
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import STAGE1, Stage1Claim, Store
from skillshelf.memory.transcripts import Session, read_transcript

__all__ = [
    "Clock",
    "Heartbeat",
    "LeaseKeeper",
    "Stage1Outcome",
    "clock_ms",
    "run_stage1_job",
    "scope_for",
    "with_session",
]

Clock = Callable[[], float]
T = TypeVar("T")


def clock_ms(clock: Clock) -> int:
    return int(clock() * 1000)


class _Ticker(ABC):
    """Calls :meth:`tick` every ``interval`` seconds in a background thread while the ``with``
    block runs, until ``tick`` returns False."""

    def __init__(self, interval: float, name: str) -> None:
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name=name)

    @abstractmethod
    def tick(self) -> bool:
        """One beat; False stops the thread."""

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            if not self.tick():
                return

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


class Heartbeat(_Ticker):
    """Extends a job's lease every ``interval`` seconds in a background thread."""

    def __init__(
        self, store: Store, kind: str, key: str, token: str, *, settings: MemorySettings, clock: Clock
    ) -> None:
        super().__init__(settings.beat_seconds, f"heartbeat-{key[:12]}")
        self._args = (store, kind, key, token)
        self._lease_ms = int(settings.lease_seconds * 1000)
        self._clock = clock
        self.lost = False

    def tick(self) -> bool:
        return self.beat()

    def beat(self) -> bool:
        store, kind, key, token = self._args
        try:
            ok = store.heartbeat(kind, key, token, now_ms=clock_ms(self._clock), lease_ms=self._lease_ms)
        except SkillshelfError:
            ok = False
        self.lost = self.lost or not ok
        return ok


class LeaseKeeper(_Ticker):
    """Heartbeats every Phase-1 job a worker holds (queued or running) until it is finished."""

    def __init__(self, store: Store, *, settings: MemorySettings, clock: Clock) -> None:
        super().__init__(settings.beat_seconds, "memory-leases")
        self._store = store
        self._lease_ms = int(settings.lease_seconds * 1000)
        self._clock = clock
        self._held: dict[str, str] = {}
        self._lock = threading.Lock()

    def hold(self, claims: list[Stage1Claim]) -> None:
        with self._lock:
            self._held.update({c.session_id: c.token for c in claims})

    def done(self, session_id: str) -> None:
        with self._lock:
            self._held.pop(session_id, None)

    def give_back(self, claims: Iterable[Stage1Claim]) -> None:
        """Stop holding ``claims`` and put them back in the queue at once, no retry used (the
        run was stopped). A call of theirs still running cannot save when it ends: the lease
        is no longer its own."""
        for claim in claims:
            self.done(claim.session_id)
            with contextlib.suppress(SkillshelfError):
                self._store.release(STAGE1, claim.session_id, claim.token)

    def tick(self) -> bool:
        with self._lock:
            held = list(self._held.items())
        for key, token in held:
            try:
                if not self._store.heartbeat(
                    STAGE1, key, token, now_ms=clock_ms(self._clock), lease_ms=self._lease_ms
                ):
                    self.done(key)
            except SkillshelfError:
                continue
        return True


def scope_for(settings: MemorySettings, project: str, cwd: str) -> str:
    if settings.scope == "global":
        return GLOBAL_SCOPE
    return project_scope(project or cwd or "/")


def project_of(cwd: Path | None) -> str:
    if cwd is None:
        return ""
    return str(memory_project(find_project_root(cwd))) if cwd.is_dir() else str(cwd)


def with_session(path: str, work: Callable[[Session], T]) -> T:
    """Read the transcript at ``path`` and run ``work`` on it. Every failure is a
    SkillshelfError: ``ME103`` when it is no longer a transcript, ``ME106`` for a bug met on one
    odd transcript (it fails that job, never the run)."""
    try:
        session = read_transcript(Path(path))
        if session is None:
            raise SkillshelfError(f"{path} is no longer a transcript we can read", code="ME103")
        return work(session)
    except SkillshelfError:
        raise
    except Exception as exc:  # one session's bug must not stop the others
        raise SkillshelfError(
            f"internal error on {path}: {type(exc).__name__}: {exc}",
            code="ME106",
            hint="this is a bug in skillshelf; please report it with the transcript's shape",
        ) from exc


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage1Outcome:
    """What happened to one claimed session: ``status`` is extracted, no_output, failed, gone
    (its transcript was deleted: the job is closed, nothing called) or lost_lease; ``called``
    says whether the model was called; ``known`` holds the secrets redaction took out of its
    prompt (in memory only, for scrubbing this run's consolidation)."""

    status: str
    error: str | None = None
    called: bool = True
    known: KnownSecrets = field(default=NO_SECRETS, repr=False)


def run_stage1_job(
    claim: Stage1Claim, *, store: Store, model: JsonModel, settings: MemorySettings, clock: Clock
) -> Stage1Outcome:
    """Extract one claimed session. The caller keeps the lease alive (:class:`LeaseKeeper`).
    A transcript deleted since it was registered closes its job: there is nothing to extract."""
    called = False

    def extract(session: Session) -> phase1.Stage1Result | None:
        nonlocal called
        called = True
        return phase1.extract(
            model,
            session,
            token_limit=settings.stage1_token_limit,
            effort=settings.extract_effort,
            max_output_tokens=settings.max_output_tokens,
        )

    try:
        result = with_session(claim.path, extract)
    except SkillshelfError as exc:
        if not called and not os.path.lexists(claim.path):
            closed = store.mark_stage1_gone(claim, now_ms=clock_ms(clock))
            return Stage1Outcome(status="gone" if closed else "lost_lease", called=False)
        reason = redact_secrets(f"{exc.code}: {exc.message}")
        failed = store.mark_failed(
            STAGE1,
            claim.session_id,
            claim.token,
            reason=reason,
            now_ms=clock_ms(clock),
            retry_base_ms=int(settings.retry_delay_seconds * 1000),
        )
        return Stage1Outcome(
            status="failed" if failed else "lost_lease", error=redact_secrets(exc.one_line()), called=called
        )
    now = clock_ms(clock)
    if result is None:
        return Stage1Outcome(
            status="no_output" if store.mark_stage1_no_output(claim, now_ms=now) else "lost_lease"
        )
    ok = store.mark_stage1_succeeded(
        claim,
        scope=scope_for(settings, claim.project, claim.cwd),
        raw_memory=result.raw_memory,
        rollout_summary=result.rollout_summary,
        rollout_slug=result.rollout_slug,
        now_ms=now,
    )
    return Stage1Outcome(status="extracted" if ok else "lost_lease", known=result.known)
