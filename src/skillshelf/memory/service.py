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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from skillshelf.env import Env
from skillshelf.memory.consolidation_run import Phase2Outcome, run_phase2_scope
from skillshelf.memory.consolidator import Consolidator
from skillshelf.memory.dryrun import dry_run_report
from skillshelf.memory.inspect import claim_limits, queued_ids, retries_spent, skipped_sessions
from skillshelf.memory.layout import scope_dir
from skillshelf.memory.leases import free_leases, judge_leases, this_holder
from skillshelf.memory.models import CallBudget, JsonModel, model_endpoint, model_factories, require_keys
from skillshelf.memory.origin import store_identity
from skillshelf.memory.projects import gone_folder_projects, session_project
from skillshelf.memory.queue import QueuedSession, phase1_passes, queued, settle_queue
from skillshelf.memory.redact import redact_secrets
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.registration import register_transcripts
from skillshelf.memory.run_report import Progress, RunOptions, RunReport
from skillshelf.memory.runner import LeaseKeeper, Stage1Outcome, run_stage1_job
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import CONSOLIDATE, STAGE1, Stage1Claim, Store, open_store
from skillshelf.memory.transcripts import default_transcript_roots

__all__ = [
    "Progress",
    "RunOptions",
    "RunReport",
    "model_endpoint",
    "model_factories",
    "register_transcripts",
    "run_memory",
]


def _default_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


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
) -> KnownSecrets:
    """Extract the claimed sessions; the secrets redaction took out of their prompts."""
    limit = (
        settings.max_rollouts_per_run
        if budget.remaining is None
        else min(settings.max_rollouts_per_run, budget.remaining)
    )
    if limit <= 0:
        return NO_SECRETS
    model = make_model()  # before claiming: building a client may be slow, leases tick from the claim
    claims = store.claim_stage1(
        worker_id=report.worker_id,
        now_ms=int(clock() * 1000),
        lease_ms=int(settings.lease_seconds * 1000),
        limits=claim_limits(settings),
        limit=limit,
        only=only,
        holder=this_holder(settings),
    )
    report.claimed += len(claims)
    known = NO_SECRETS
    if not claims:
        return known
    outcomes: Counter[str] = Counter(report.outcomes)
    for _ in claims:
        budget.take()  # reserved now (the calls run at once), given back for a job that makes none

    def job(claim: Stage1Claim) -> Stage1Outcome:
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
                done = future.result()
                outcomes[done.status] += 1
                if not done.called:
                    budget.give_back()
                known |= done.known
                if done.error:
                    report.errors.append(f"{futures[future].session_id}: {done.error}")
                    if retries_spent(store, STAGE1, futures[future].session_id):
                        report.exhausted.append(futures[future].session_id)
                if progress:
                    progress("extract", n, len(claims))
        except BaseException:  # Ctrl-C, a store error: queued jobs never start, calls not waited for
            pool.shutdown(wait=False, cancel_futures=True)
            # not run, still running, or ended by an error (its outcome's unit was rolled back)
            keeper.give_back(c for f, c in futures.items() if not f.done() or f.cancelled() or f.exception())
            raise
        pool.shutdown()
    report.outcomes = dict(outcomes)
    return known


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
    known: KnownSecrets,
    options: RunOptions,
) -> None:
    scopes = store.dirty_scopes(now_ms=int(clock() * 1000))
    for scope, why in store.held_back_scopes(now_ms=int(clock() * 1000)):  # said, not run
        report.consolidation.append(Phase2Outcome(scope=scope, status=why, folder=scope_dir(data_dir, scope)))
    # the folders record the database they hold the memories of (memory/origin.py)
    database = (
        store_identity(store, now_ms=int(clock() * 1000), default=options.db is None) if scopes else None
    )
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
            known=known,
            database=database,
            take_over=options.take_over,
        )
        report.consolidation.append(outcome)
        if outcome.status == "other_database":
            report.refused.append(f"{scope}: {outcome.error}")
        elif outcome.error:
            report.errors.append(f"{scope}: {outcome.error}")
            report.exhausted += [scope] if retries_spent(store, CONSOLIDATE, scope) else []
        if progress:
            progress("consolidate", n, len(scopes))


def _models_wanted(
    store: Store,
    settings: MemorySettings,
    phase: str,
    passes: list[tuple[MemorySettings, list[str] | None]],
    *,
    now_ms: int,
) -> list[str]:
    """The models this run will call: the extraction model when a session can be claimed, the
    consolidation model when a scope is (or will be) due. A run with nothing to do needs no key."""
    extract = any(
        store.stage1_candidates(now_ms=now_ms, limits=claim_limits(each), limit=1, only=ids)
        for each, ids in passes
    )
    wanted = [settings.extract_model] if extract else []
    if phase in ("2", "all") and (extract or store.dirty_scopes(now_ms=now_ms)):
        wanted.append(settings.consolidation_model)
    return wanted


def _skipped(
    store: Store, settings: MemorySettings, now_ms: int, only: list[str] | None, queued: frozenset[str]
) -> list[dict[str, object]]:
    found = skipped_sessions(store, settings, now_ms=now_ms, only=only, queued=queued)
    return [v.to_dict() for v in found]


def _finish(store: Store, report: RunReport, *, started_ms: int, finished_ms: int) -> RunReport:
    """Record the run (its report redacted) in the store's run log."""
    report_json = redact_secrets(json.dumps(report.to_dict(), default=str))
    store.record_run(
        uuid.uuid4().hex,
        worker_id=report.worker_id,
        started_ms=started_ms,
        finished_ms=finished_ms,
        report=report_json,
    )
    return report


def _register(
    env: Env,
    store: Store,
    options: RunOptions,
    queue: Sequence[QueuedSession],
    *,
    now_ms: int,
    report: RunReport,
    progress: Progress | None,
) -> list[str]:
    """Register the run's transcripts: the ones named, else the agents' folders' and the
    queued ones (each with the memory project its hook recorded)."""
    roots = () if options.queued_only else default_transcript_roots(env, env.dirs.state)
    paths = options.sessions or (*roots, *(q.path for q in queue))
    report.searched = [str(path) for path in paths]
    here = tuple(Path(p) for p in (session_project(env.cwd),) if p)  # a main checkout to ask too
    projects = gone_folder_projects(store, queued={str(q.path): q.project for q in queue}, checkouts=here)
    return register_transcripts(
        store, tuple(paths), now_ms=now_ms, report=report, progress=progress, gone_project=projects
    )


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
    # a dry run reads the queue and leaves it as it is
    queue = [] if options.sessions else queued(env.dirs.state, tidy=not options.dry_run)
    report.queued = len(queue)
    try:
        files = _register(env, store, options, queue, now_ms=started, report=report, progress=progress)
        only = store.session_ids_for_paths(files) if options.sessions else None
        make_extract, make_consolidate = models or model_factories(env, settings)
        budget = CallBudget(settings.max_model_calls)
        passes = (
            phase1_passes(store, settings, queue, only, options.queued_only) if options.phase != "2" else []
        )
        if options.dry_run:
            return dry_run_report(store, settings, report, passes, queue, options.phase, only, now_ms=started)
        if models is None:
            require_keys(
                env, settings, _models_wanted(store, settings, options.phase, passes, now_ms=started)
            )
        freed = free_leases(store, judge_leases(store, settings, now_ms=started), now_ms=started)
        report.recovered = [v.to_dict(started) for v in freed]
        report.pruned = store.prune(max_unused_ms=int(settings.max_unused_days * 86_400_000), now_ms=started)
        known = NO_SECRETS  # never stored: it scrubs this run's consolidation
        if options.phase in ("1", "all"):
            for pass_settings, pass_only in passes:
                known |= _phase1(
                    store,
                    pass_settings,
                    only=pass_only,
                    make_model=make_extract,
                    clock=clock,
                    report=report,
                    budget=budget,
                    progress=progress,
                )
            idle = claim_limits(settings.with_overrides(min_idle_hours=0))
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
                known=known,
                options=options,
            )
        report.model_calls = budget.used
        report.skipped = _skipped(store, settings, int(clock() * 1000), only, queued_ids(store, queue))
        return _finish(store, report, started_ms=started, finished_ms=int(clock() * 1000))
    finally:
        if own_store:
            store.close()
