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
from skillshelf.memory import phase1
from skillshelf.memory.consolidator import Consolidator
from skillshelf.memory.layout import scope_dir
from skillshelf.memory.models import CallBudget, JsonModel, build_client
from skillshelf.memory.phase2 import render_selection
from skillshelf.memory.redact import redact_secrets
from skillshelf.memory.runner import LeaseKeeper, Phase2Outcome, project_of, run_phase2_scope, run_stage1_job
from skillshelf.memory.settings import MemorySettings, parse_model_ref
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
        first_user_message=redact_secrets(session.first_user_message[:2000]),
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


def model_endpoint(env: Env, settings: MemorySettings, model: str) -> tuple[str | None, str | None]:
    """(base URL, API key) for ``model``: settings first, then the provider's usual variables in ``env``."""
    provider = parse_model_ref(model).provider
    key_var = settings.api_key_env or ("ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY")
    base = (
        settings.base_url
        or env.environ.get("ANTHROPIC_BASE_URL" if provider == "anthropic" else "OPENAI_BASE_URL")
        or None
    )
    return base, env.environ.get(key_var)


def model_factories(
    env: Env, settings: MemorySettings
) -> tuple[Callable[[], JsonModel], Callable[[], JsonModel]]:
    """(Phase-1 model, Phase-2 model) builders; API keys come from ``env``, never os.environ."""

    def make(model: str) -> Callable[[], JsonModel]:
        def build() -> JsonModel:
            base, key = model_endpoint(env, settings, model)
            return build_client(
                model,
                base_url=base,
                api_key=key,
                max_output_tokens=settings.max_output_tokens,
                timeout_s=settings.request_timeout_s,
                json_mode=settings.json_mode,
            )

        return build

    return make(settings.extract_model), make(settings.consolidation_model)


def _limits(settings: MemorySettings) -> ClaimLimits:
    return ClaimLimits(
        min_idle_ms=int(settings.min_idle_hours * 3_600_000),
        max_age_ms=int(settings.max_age_days * 86_400_000),
        running_cap=settings.max_running_jobs or settings.max_rollouts_per_run,
    )


def _dry_run(
    store: Store, settings: MemorySettings, only: list[str] | None, now_ms: int, report: RunReport, limit: int
) -> None:
    for session_id, _updated, path, cwd, _project, source in store.stage1_candidates(
        now_ms=now_ms, limits=_limits(settings), limit=limit, only=only
    ):
        session = read_transcript(Path(path))
        if session is None:
            continue
        system, user = phase1.build_stage1_prompt(session, token_limit=settings.stage1_token_limit)
        report.dry_run.append(
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
        report.dry_run.append(
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
    )
    report.claimed = len(claims)
    if not claims:
        return
    outcomes: Counter[str] = Counter()
    for _ in claims:
        budget.take()

    def job(claim: Stage1Claim) -> tuple[str, str | None]:
        try:
            return run_stage1_job(claim, store=store, model=model, settings=settings, clock=clock)
        finally:
            keeper.done(claim.session_id)

    with (
        LeaseKeeper(store, settings=settings, clock=clock) as keeper,
        ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="memory-phase1") as pool,
    ):
        keeper.hold(claims)
        futures = {pool.submit(job, c): c for c in claims}
        for n, future in enumerate(as_completed(futures), 1):
            outcome, error = future.result()
            outcomes[outcome] += 1
            if error:
                report.errors.append(f"{futures[future].session_id}: {error}")
            if progress:
                progress("extract", n, len(claims))
    report.outcomes = dict(outcomes)


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
    try:
        paths = options.sessions or default_transcript_roots(env, env.dirs.state)
        files = register_transcripts(store, tuple(paths), now_ms=started, report=report, progress=progress)
        only = store.session_ids_for_paths(files) if options.sessions else None
        make_extract, make_consolidate = models or model_factories(env, settings)
        budget = CallBudget(settings.max_model_calls)
        if options.dry_run:
            _dry_run(store, settings, only, started, report, settings.max_rollouts_per_run)
            return report
        report.pruned = store.prune(max_unused_ms=int(settings.max_unused_days * 86_400_000), now_ms=started)
        if options.phase in ("1", "all"):
            _phase1(
                store,
                settings,
                only=only,
                make_model=make_extract,
                clock=clock,
                report=report,
                budget=budget,
                progress=progress,
            )
        if options.phase in ("2", "all"):
            data_dir = env.dirs.data
            scopes = store.dirty_scopes(now_ms=int(clock() * 1000))
            for n, scope in enumerate(scopes, 1):
                outcome = run_phase2_scope(
                    scope,
                    scope_dir(data_dir, scope),
                    store=store,
                    model_factory=make_consolidate,
                    settings=settings,
                    clock=clock,
                    worker_id=report.worker_id,
                    budget=budget,
                    consolidator_factory=consolidator,
                )
                report.consolidation.append(outcome)
                if outcome.error:
                    report.errors.append(f"{scope}: {outcome.error}")
                if progress:
                    progress("consolidate", n, len(scopes))
        report.model_calls = budget.used
        store.record_run(
            uuid.uuid4().hex,
            worker_id=report.worker_id,
            started_ms=started,
            finished_ms=int(clock() * 1000),
            report=json.dumps(report.to_dict(), default=str),
        )
        return report
    finally:
        if own_store:
            store.close()
