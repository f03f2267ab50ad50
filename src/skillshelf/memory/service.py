"""One run of the memory pipeline: register transcripts, prune, Phase 1, Phase 2.

:func:`run_memory` is what ``skillshelf memory run`` calls. Many runs may go at once, on one
machine or many (PostgreSQL): claims, leases and ownership tokens keep every session extracted
once and every scope consolidated by one worker at a time.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError
from skillshelf.memory.consolidator import Consolidator
from skillshelf.memory.dryrun import dry_run_prompts
from skillshelf.memory.inspect import claim_limits, skipped_sessions
from skillshelf.memory.layout import scope_dir
from skillshelf.memory.leases import free_leases, judge_leases, this_holder
from skillshelf.memory.models import CallBudget, JsonModel, model_endpoint, model_factories
from skillshelf.memory.queue import phase1_passes, queued, settle_queue
from skillshelf.memory.redact import redact_secrets
from skillshelf.memory.runner import LeaseKeeper, Phase2Outcome, project_of, run_phase2_scope, run_stage1_job
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import SessionRow, Stage1Claim, Store, open_store
from skillshelf.memory.store.base import ClaimLimits
from skillshelf.memory.transcripts import default_transcript_roots, find_transcripts, read_transcript

__all__ = [
    "Progress",
    "RunOptions",
    "RunReport",
    "model_endpoint",
    "model_factories",
    "register_transcripts",
    "run_memory",
]

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


@dataclass(slots=True, kw_only=True)
class RunReport:
    """What a run did (``--json`` prints this)."""

    worker_id: str
    db: str
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
    recovered: list[dict[str, object]] = field(default_factory=list)  # leases freed from gone holders
    skipped: list[dict[str, object]] = field(default_factory=list)  # sessions left for the time windows
    queued: int = 0  # transcripts the agents' hooks queued
    dequeued: int = 0  # of those, taken off the queue (extracted, nothing to keep, or unusable)

    @property
    def failed(self) -> bool:
        """Some job failed (it will be retried after its backoff)."""
        return bool(self.outcomes.get("failed")) or any(c.status == "failed" for c in self.consolidation)

    def to_dict(self) -> dict[str, object]:
        return {
            "worker_id": self.worker_id,
            "db": self.db,
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
            "recovered": self.recovered,
            "skipped": self.skipped,
            "queue": {"queued": self.queued, "done": self.dequeued},
        }


def _default_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def _session_row(path: Path, stat: os.stat_result) -> tuple[SessionRow | None, int]:
    session = read_transcript(path)
    if session is None:
        return None, 0
    return SessionRow(
        id=f"{session.id}",
        source=session.source,
        path=str(path),
        cwd=str(session.cwd or ""),
        project=project_of(session.cwd),
        updated_at_ms=stat.st_mtime_ns // 1_000_000,
        # redacted before the cut, which could otherwise leave half a secret no rule knows
        first_user_message=redact_secrets(session.first_user_message[:4000])[:2000],
        git_branch=session.git_branch,
        origin=session.origin,
        subagent=session.subagent,
        file_size=stat.st_size,
        file_mtime_ns=stat.st_mtime_ns,
    ), session.skipped_lines


def _skip_file(report: RunReport, path: Path, code: str, message: str, fix: str) -> None:
    """Count ``path`` as unreadable and say why (a warning: the run goes on with the other files)."""
    report.unreadable.append(str(path))
    report.problems.append(
        Diagnostic(code=code, severity=Severity.WARNING, message=message, fix=fix, path=path)
    )


def register_transcripts(
    store: Store, paths: tuple[Path, ...], *, now_ms: int, report: RunReport, progress: Progress | None = None
) -> list[str]:
    """Read new or changed transcript files into the store; returns their paths."""
    files = find_transcripts(paths)
    report.files = len(files)
    known = store.known_files()
    rows: list[SessionRow] = []
    for n, path in enumerate(files, 1):
        try:
            stat = path.stat()
            if known.get(str(path)) == (stat.st_size, stat.st_mtime_ns):
                continue
            row, skipped = _session_row(path, stat)
        except OSError as exc:
            _skip_file(
                report,
                path,
                "ME101",
                f"cannot read the transcript: {exc.strerror or exc}",
                "check the file's permissions",
            )
            continue
        except SkillshelfError as exc:
            _skip_file(report, path, exc.code, exc.message.removeprefix(f"{path}: "), exc.hint)
            continue
        except Exception as exc:  # a bug met on one odd file must not stop the others
            _skip_file(
                report,
                path,
                "ME106",
                f"internal error reading the transcript ({type(exc).__name__}: {exc}); skipped",
                "this is a bug in skillshelf; please report it with the file's shape",
            )
            continue
        report.skipped_lines += skipped
        if row is None:
            _skip_file(
                report,
                path,
                "ME104",
                "not a transcript in a format skillshelf reads (no Codex rollout, "
                "Claude Code session or skillshelf transcript line among its first 20 lines); skipped",
                "pass Codex, Claude Code or skillshelf session .jsonl files; other files are left alone",
            )
        else:
            rows.append(row)
        if progress:
            progress("scan", n, len(files))
    report.registered = store.register_sessions(rows, now_ms)
    return [str(p) for p in files]


def _limits(settings: MemorySettings) -> ClaimLimits:
    return claim_limits(settings)


def _phase1(
    store: Store,
    settings: MemorySettings,
    *,
    only: list[str] | None,
    make_model: Callable[[], JsonModel],
    clock: Callable[[], float],
    report: RunReport,
    budget: CallBudget,
    progress: Progress | None,
) -> None:
    limit = (
        settings.max_rollouts_per_run
        if budget.remaining is None
        else min(settings.max_rollouts_per_run, budget.remaining)
    )
    if limit <= 0:
        return
    model = make_model()  # before claiming: building a client may be slow, leases tick from the claim
    claims = store.claim_stage1(
        worker_id=report.worker_id,
        now_ms=int(clock() * 1000),
        lease_ms=int(settings.lease_seconds * 1000),
        limits=_limits(settings),
        limit=limit,
        only=only,
        holder=this_holder(settings),
    )
    report.claimed += len(claims)
    if not claims:
        return
    outcomes: Counter[str] = Counter(report.outcomes)
    for _ in claims:
        budget.take()

    def job(claim: Stage1Claim) -> tuple[str, str | None]:
        try:
            return run_stage1_job(claim, store=store, model=model, settings=settings, clock=clock)
        finally:
            keeper.done(claim.session_id)

    with LeaseKeeper(store, settings=settings, clock=clock) as keeper:
        keeper.hold(claims)
        pool = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="memory-phase1")
        futures = {pool.submit(job, c): c for c in claims}
        try:
            for n, future in enumerate(as_completed(futures), 1):
                outcome, error = future.result()
                outcomes[outcome] += 1
                if error:
                    report.errors.append(f"{futures[future].session_id}: {error}")
                if progress:
                    progress("extract", n, len(claims))
        except BaseException:  # Ctrl-C: queued jobs never start, running calls are not waited for
            pool.shutdown(wait=False, cancel_futures=True)
            keeper.give_back(c for f, c in futures.items() if not f.done() or f.cancelled())
            raise
        pool.shutdown()
    report.outcomes = dict(outcomes)


def _phase2(
    store: Store,
    settings: MemorySettings,
    data_dir: Path,
    *,
    make_model: Callable[[], JsonModel],
    consolidator: Callable[[], Consolidator] | None,
    clock: Callable[[], float],
    report: RunReport,
    budget: CallBudget,
    progress: Progress | None,
) -> None:
    scopes = store.dirty_scopes(now_ms=int(clock() * 1000))
    for n, scope in enumerate(scopes, 1):
        outcome = run_phase2_scope(
            scope,
            scope_dir(data_dir, scope),
            store=store,
            model_factory=make_model,
            settings=settings,
            clock=clock,
            worker_id=report.worker_id,
            budget=budget,
            consolidator_factory=consolidator,
            holder=this_holder(settings),
        )
        report.consolidation.append(outcome)
        if outcome.error:
            report.errors.append(f"{scope}: {outcome.error}")
        if progress:
            progress("consolidate", n, len(scopes))


def _skipped(
    store: Store, settings: MemorySettings, now_ms: int, only: list[str] | None
) -> list[dict[str, object]]:
    return [v.to_dict() for v in skipped_sessions(store, settings, now_ms=now_ms, only=only)]


def run_memory(
    env: Env,
    settings: MemorySettings,
    options: RunOptions,
    *,
    store: Store | None = None,
    clock: Callable[[], float] = time.time,
    models: tuple[Callable[[], JsonModel], ...] | None = None,
    progress: Progress | None = None,
    consolidator: Callable[[], Consolidator] | None = None,
) -> RunReport:
    """Run the pipeline once (see the module docstring).

    ``consolidator`` makes what writes Phase 2's files (for example the agent layer's
    ``AgentConsolidator``); by default one direct call to the consolidation model."""
    own_store = store is None
    store = store or open_store(
        options.db, data_dir=env.dirs.data, scratch=options.dry_run
    )  # a dry run creates and writes nothing
    report = RunReport(
        worker_id=options.worker_id or _default_worker(), db=store.url, budget=settings.max_model_calls
    )
    started = int(clock() * 1000)
    queue = [] if options.sessions or options.dry_run else queued(env.dirs.state)
    report.queued = len(queue)
    try:
        roots = () if options.queued_only else default_transcript_roots(env, env.dirs.state)
        paths = options.sessions or (*roots, *(q.path for q in queue))
        files = register_transcripts(store, tuple(paths), now_ms=started, report=report, progress=progress)
        only = store.session_ids_for_paths(files) if options.sessions else None
        make_extract, make_consolidate = models or model_factories(env, settings)
        budget = CallBudget(settings.max_model_calls)
        if options.dry_run:
            report.dry_run, problems = dry_run_prompts(store, settings, only=only, now_ms=started)
            report.problems += problems
            report.skipped = _skipped(store, settings, started, only)
            return report
        freed = free_leases(store, judge_leases(store, settings, now_ms=started), now_ms=started)
        report.recovered = [v.to_dict(started) for v in freed]
        report.pruned = store.prune(max_unused_ms=int(settings.max_unused_days * 86_400_000), now_ms=started)
        if options.phase in ("1", "all"):
            for pass_settings, pass_only in phase1_passes(store, settings, queue, only, options.queued_only):
                _phase1(
                    store,
                    pass_settings,
                    only=pass_only,
                    make_model=make_extract,
                    clock=clock,
                    report=report,
                    budget=budget,
                    progress=progress,
                )
            idle = _limits(settings.with_overrides(min_idle_hours=0))
            report.dequeued = settle_queue(store, queue, idle, state_dir=env.dirs.state)
        if options.phase in ("2", "all"):
            _phase2(
                store,
                settings,
                env.dirs.data,
                make_model=make_consolidate,
                consolidator=consolidator,
                clock=clock,
                report=report,
                budget=budget,
                progress=progress,
            )
        report.model_calls = budget.used
        report.skipped = _skipped(store, settings, int(clock() * 1000), only)
        store.record_run(
            uuid.uuid4().hex,
            worker_id=report.worker_id,
            started_ms=started,
            finished_ms=int(clock() * 1000),
            report=redact_secrets(json.dumps(report.to_dict(), default=str)),
        )
        return report
    finally:
        if own_store:
            store.close()
