"""Phase-2 jobs (the per-scope global lock), input selection, usage, retention and control."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from skillshelf.memory.store.base import Row
from skillshelf.memory.store.leases import LeaseStore
from skillshelf.memory.store.records import (
    CONSOLIDATE,
    STAGE1,
    ClaimOutcome,
    LeaseHolder,
    OutputRow,
    Phase2Claim,
    Selection,
)

__all__ = ["PRUNED", "Store"]

#: What the extraction job of a session whose memory ``prune`` deleted notes.
PRUNED = "its memory went unused for memory.max_unused_days and was pruned"

_OUTPUT_COLUMNS = (
    "o.session_id, o.scope, o.source_updated_at_ms, o.raw_memory, o.rollout_summary, o.rollout_slug, "
    "o.usage_count, o.last_usage_ms, o.selected_for_phase2, o.selected_source_updated_at_ms, s.path, s.cwd, "
    "s.git_branch, o.generated_at_ms"
)


def _output(r: Row) -> OutputRow:
    return OutputRow(
        session_id=r[0],
        scope=r[1],
        source_updated_at_ms=int(r[2]),
        raw_memory=r[3],
        rollout_summary=r[4],
        rollout_slug=r[5],
        usage_count=int(r[6] or 0),
        last_usage_ms=None if r[7] is None else int(r[7]),
        selected_for_phase2=bool(r[8]),
        selected_source_updated_at_ms=None if r[9] is None else int(r[9]),
        path=r[10],
        cwd=r[11],
        git_branch=r[12],
        generated_at_ms=int(r[13] or 0),
    )


class Store(LeaseStore):
    """The whole store API (backends subclass this and add a connection)."""

    # --- the consolidation job ------------------------------------------------------------
    def dirty_scopes(self, *, now_ms: int) -> list[str]:
        """Scopes whose consolidation job has input newer than its last success and may run."""
        with self.transaction() as tx:
            return [
                str(r[0])
                for r in tx.execute(
                    "SELECT job_key FROM jobs WHERE kind = ? AND COALESCE(input_watermark, 0) > "
                    "COALESCE(last_success_watermark, 0) AND retry_remaining > 0 AND (retry_at_ms IS NULL OR "
                    "retry_at_ms <= ?) ORDER BY job_key",
                    (CONSOLIDATE, now_ms),
                )
            ]

    def enqueue(self, scope: str, watermark: int) -> None:
        with self.transaction() as tx:
            self.enqueue_consolidation(tx, scope, watermark)

    def claim_phase2(
        self, scope: str, *, worker_id: str, now_ms: int, lease_ms: int, holder: LeaseHolder | None = None
    ) -> Phase2Claim:
        """Take the scope's consolidation lock if the job is dirty and nobody holds a live lease."""
        lock = " FOR UPDATE" if self.skip_locked else ""
        with self.transaction(claim=True) as tx:
            rows = tx.execute(
                "SELECT status, lease_until_ms, retry_at_ms, retry_remaining, input_watermark, "
                "last_success_watermark FROM jobs WHERE kind = ? AND job_key = ?" + lock,
                (CONSOLIDATE, scope),
            )
            if not rows:
                return Phase2Claim(outcome=ClaimOutcome.SKIPPED_NOT_DIRTY)
            status, lease, retry_at, remaining, wm, done = rows[0]
            if (wm or 0) <= (done or 0) or remaining <= 0 or (retry_at is not None and retry_at > now_ms):
                return Phase2Claim(outcome=ClaimOutcome.SKIPPED_NOT_DIRTY)
            if status == "running" and lease is not None and lease > now_ms:
                return Phase2Claim(outcome=ClaimOutcome.SKIPPED_RUNNING)
            token = uuid.uuid4().hex
            got = tx.execute(
                "UPDATE jobs SET status = 'running', worker_id = ?, ownership_token = ?, started_at_ms = ?, "
                "lease_until_ms = ?, retry_at_ms = NULL, last_error = NULL WHERE kind = ? AND job_key = ? "
                "AND COALESCE(input_watermark, 0) > COALESCE(last_success_watermark, 0) "
                "AND retry_remaining > 0 AND (retry_at_ms IS NULL OR retry_at_ms <= ?) "
                "AND (status <> 'running' OR lease_until_ms IS NULL OR lease_until_ms <= ?) "
                "RETURNING input_watermark",
                (worker_id, token, now_ms, now_ms + lease_ms, CONSOLIDATE, scope, now_ms, now_ms),
            )
            if got:
                self.stamp_holder(tx, CONSOLIDATE, scope, token, holder, now_ms)
        if not got:
            return Phase2Claim(outcome=ClaimOutcome.SKIPPED_RUNNING)
        return Phase2Claim(outcome=ClaimOutcome.CLAIMED, token=token, watermark=int(got[0][0]))

    def mark_phase2_succeeded(
        self, scope: str, token: str, *, completed_watermark: int, selected: Sequence[OutputRow], now_ms: int
    ) -> bool:
        """Finish an owned consolidation and remember exactly which snapshots it used."""
        with self.transaction() as tx:
            rows = tx.execute(
                "UPDATE jobs SET status = 'done', finished_at_ms = ?, lease_until_ms = NULL, "
                "last_error = NULL, "
                "last_success_watermark = CASE WHEN COALESCE(last_success_watermark, 0) > ? "
                "THEN last_success_watermark ELSE ? END "
                "WHERE kind = ? AND job_key = ? AND status = 'running' "
                "AND ownership_token = ? RETURNING job_key",
                (now_ms, completed_watermark, completed_watermark, CONSOLIDATE, scope, token),
            )
            if not rows:
                return False
            tx.execute(
                "UPDATE stage1_outputs SET selected_for_phase2 = 0, selected_source_updated_at_ms = NULL "
                "WHERE scope = ?",
                (scope,),
            )
            for row in selected:
                tx.execute(
                    "UPDATE stage1_outputs SET selected_for_phase2 = 1, selected_source_updated_at_ms = ? "
                    "WHERE session_id = ? AND source_updated_at_ms = ?",
                    (row.source_updated_at_ms, row.session_id, row.source_updated_at_ms),
                )
        return True

    # --- selection ---------------------------------------------------------------------
    def selection(self, scope: str, *, limit: int, max_unused_ms: int, now_ms: int) -> Selection:
        """Current inputs ranked by use, and the diff against the last successful selection."""
        cutoff = now_ms - max_unused_ms
        with self.transaction() as tx:
            current = [
                _output(r)
                for r in tx.execute(
                    f"SELECT {_OUTPUT_COLUMNS} FROM stage1_outputs o JOIN sessions s ON s.id = o.session_id "
                    "WHERE o.scope = ? AND s.memory_mode = 'enabled' AND (length(trim(o.raw_memory)) > 0 OR "
                    "length(trim(o.rollout_summary)) > 0) AND ((o.last_usage_ms IS NOT NULL AND "
                    "o.last_usage_ms >= ?) OR (o.last_usage_ms IS NULL AND o.source_updated_at_ms >= ?)) "
                    "ORDER BY o.usage_count DESC, COALESCE(o.last_usage_ms, o.source_updated_at_ms) DESC, "
                    "o.source_updated_at_ms DESC, o.session_id DESC LIMIT ?",
                    (scope, cutoff, cutoff, limit),
                )
            ]
            previous = [
                _output(r)
                for r in tx.execute(
                    f"SELECT {_OUTPUT_COLUMNS} FROM stage1_outputs o JOIN sessions s ON s.id = o.session_id "
                    "WHERE o.scope = ? AND o.selected_for_phase2 = 1 ORDER BY o.source_updated_at_ms DESC, "
                    "o.session_id DESC",
                    (scope,),
                )
            ]
        ids = {row.session_id for row in current}
        retained = frozenset(
            r.session_id
            for r in current
            if r.selected_for_phase2 and r.selected_source_updated_at_ms == r.source_updated_at_ms
        )
        return Selection(
            selected=tuple(current),
            retained_ids=retained,
            previous=tuple(previous),
            removed=tuple(r for r in previous if r.session_id not in ids),
        )

    def outputs(self, *, scope: str | None = None, session_id: str | None = None) -> list[OutputRow]:
        where, params = ["1 = 1"], []
        if scope is not None:
            where.append("o.scope = ?")
            params.append(scope)
        if session_id is not None:
            where.append("o.session_id = ?")
            params.append(session_id)
        with self.transaction() as tx:
            return [
                _output(r)
                for r in tx.execute(
                    f"SELECT {_OUTPUT_COLUMNS} FROM stage1_outputs o "
                    "JOIN sessions s ON s.id = o.session_id WHERE "
                    + " AND ".join(where)
                    + " ORDER BY o.source_updated_at_ms DESC, o.session_id DESC",
                    params,
                )
            ]

    # --- usage, retention, control ------------------------------------------------------
    def record_usage(self, session_ids: Sequence[str], *, now_ms: int) -> int:
        """Count one use per id given (repeats count again); unknown ids are ignored."""
        updated = 0
        with self.transaction() as tx:
            for session_id in session_ids:
                updated += len(
                    tx.execute(
                        "UPDATE stage1_outputs SET usage_count = usage_count + 1, last_usage_ms = ? "
                        "WHERE session_id = ? RETURNING session_id",
                        (now_ms, session_id),
                    )
                )
        return updated

    def prune(self, *, max_unused_ms: int, now_ms: int, limit: int = 200) -> int:
        """Delete stale outputs no consolidation selected, as Codex's retention does (jobs stay,
        so a session is not extracted again until its transcript changes), except those of a scope
        whose consolidation is pending: they have not been offered to one yet. Forgotten outputs
        no longer selected go whatever their age. A pruned session's finished extraction job
        notes it (:data:`PRUNED`)."""
        with self.transaction(claim=True) as tx:  # reads, then writes
            rows = tx.execute(
                "SELECT o.session_id FROM stage1_outputs o JOIN sessions s ON s.id = o.session_id "
                "LEFT JOIN jobs j ON j.kind = ? AND j.job_key = o.scope "
                "WHERE o.selected_for_phase2 = 0 AND (s.memory_mode <> 'enabled' OR "
                "(COALESCE(o.last_usage_ms, o.source_updated_at_ms) < ? AND (j.job_key IS NULL OR "
                "COALESCE(j.input_watermark, 0) <= COALESCE(j.last_success_watermark, 0)))) "
                "ORDER BY COALESCE(o.last_usage_ms, o.source_updated_at_ms), o.source_updated_at_ms, "
                "o.session_id LIMIT ?",
                (CONSOLIDATE, now_ms - max_unused_ms, limit),
            )
            for (session_id,) in rows:
                tx.execute("DELETE FROM stage1_outputs WHERE session_id = ?", (session_id,))
                tx.execute(
                    "UPDATE jobs SET last_error = ? WHERE kind = ? AND job_key = ? AND status = 'done'",
                    (PRUNED, STAGE1, session_id),
                )
        return len(rows)

    def forget(self, session_id: str, *, now_ms: int) -> str | None:
        """Stop using a session's memory: scrub its text now, never extract it again, and make
        its scope's consolidation dirty so the memory folder drops it. Returns the scope."""
        with self.transaction() as tx:
            found = tx.execute(
                "UPDATE sessions SET memory_mode = 'disabled' WHERE id = ? RETURNING id", (session_id,)
            )
            rows = tx.execute(
                "UPDATE stage1_outputs SET raw_memory = '', rollout_summary = '' WHERE session_id = ? "
                "RETURNING scope",
                (session_id,),
            )
            if rows:
                self.enqueue_consolidation(tx, str(rows[0][0]), now_ms)
                return str(rows[0][0])
        return "" if found else None

    def session_projects(self, limit: int = 1000) -> list[str]:
        """The projects sessions were filed under, those with the most sessions first."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT project FROM sessions WHERE project <> '' GROUP BY project "
                "ORDER BY COUNT(*) DESC, project LIMIT ?",
                (limit,),
            )
        return [str(r[0]) for r in rows]

    def scopes(self) -> list[str]:
        """Every scope with memories or a consolidation job."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT scope FROM stage1_outputs UNION SELECT job_key FROM jobs WHERE kind = ?",
                (CONSOLIDATE,),
            )
        return sorted(str(r[0]) for r in rows)

    def reset(self, *, scope: str | None = None) -> int:
        """Delete outputs and memory jobs (of one scope, or all); sessions' modes are kept."""
        with self.transaction() as tx:
            if scope is None:
                n = len(tx.execute("DELETE FROM stage1_outputs RETURNING session_id"))
                tx.execute("DELETE FROM jobs WHERE kind IN (?, ?)", (STAGE1, CONSOLIDATE))
                return n
            ids = [
                r[0]
                for r in tx.execute(
                    "DELETE FROM stage1_outputs WHERE scope = ? RETURNING session_id", (scope,)
                )
            ]
            tx.execute("DELETE FROM jobs WHERE kind = ? AND job_key = ?", (CONSOLIDATE, scope))
            for session_id in ids:
                tx.execute("DELETE FROM jobs WHERE kind = ? AND job_key = ?", (STAGE1, session_id))
            return len(ids)

    def status(self, *, now_ms: int) -> dict[str, Any]:
        """Counts for ``skillshelf memory status``."""
        with self.transaction() as tx:
            sessions: dict[str, int] = dict(
                tx.execute("SELECT memory_mode, COUNT(*) FROM sessions GROUP BY memory_mode")
            )
            jobs = tx.execute(
                "SELECT kind, status, COUNT(*), SUM(CASE WHEN status = 'running' AND lease_until_ms > ? "
                "THEN 1 ELSE 0 END) FROM jobs GROUP BY kind, status ORDER BY kind, status",
                (now_ms,),
            )
            scopes = tx.execute(
                "SELECT scope, COUNT(*), SUM(usage_count), MAX(source_updated_at_ms), "
                "SUM(selected_for_phase2) FROM stage1_outputs GROUP BY scope ORDER BY scope"
            )
            consolidation = tx.execute(
                "SELECT job_key, status, input_watermark, last_success_watermark, last_error, "
                "retry_remaining FROM jobs WHERE kind = ? ORDER BY job_key",
                (CONSOLIDATE,),
            )
            runs = tx.execute(
                "SELECT id, worker_id, started_at_ms, finished_at_ms, report FROM runs "
                "ORDER BY started_at_ms DESC LIMIT 5"
            )
        return {
            "db": self.url,
            "sessions": {str(k): int(v) for k, v in sessions.items()},
            "jobs": [
                {"kind": k, "status": s, "count": int(c), "live_leases": int(live or 0)}
                for k, s, c, live in jobs
            ],
            "scopes": [
                {
                    "scope": s,
                    "outputs": int(n),
                    "uses": int(u or 0),
                    "newest_ms": m,
                    "selected": int(sel or 0),
                }
                for s, n, u, m, sel in scopes
            ],
            "consolidation": [
                {
                    "scope": k,
                    "status": s,
                    "input_watermark": w,
                    "last_success_watermark": d,
                    "last_error": e,
                    "retry_remaining": r,
                }
                for k, s, w, d, e, r in consolidation
            ],
            "recent_runs": [
                {"id": i, "worker": w, "started_ms": s, "finished_ms": f, "report": _run_report(rep)}
                for i, w, s, f, rep in runs
            ],
        }

    def record_run(
        self, run_id: str, *, worker_id: str, started_ms: int, finished_ms: int, report: str
    ) -> None:
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO runs (id, worker_id, started_at_ms, finished_at_ms, report) "
                "VALUES (?, ?, ?, ?, ?)",
                (run_id, worker_id, started_ms, finished_ms, report),
            )

    def job(self, kind: str, key: str) -> dict[str, Any] | None:
        """One job row as a dict (tests and ``status``)."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT status, worker_id, ownership_token, lease_until_ms, retry_at_ms, retry_remaining, "
                "last_error, input_watermark, last_success_watermark FROM jobs WHERE kind = ? "
                "AND job_key = ?",
                (kind, key),
            )
        if not rows:
            return None
        keys = (
            "status",
            "worker_id",
            "ownership_token",
            "lease_until_ms",
            "retry_at_ms",
            "retry_remaining",
            "last_error",
            "input_watermark",
            "last_success_watermark",
        )
        return dict(zip(keys, rows[0], strict=True))

    def execute_for_tests(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Run raw SQL (tests use it to age leases)."""
        with self.transaction() as tx:
            return tx.execute(sql, params)


def _run_report(stored: str) -> object:
    """A run's report as the object ``memory run --json`` printed (a row that holds no JSON
    object stays the text it holds)."""
    try:
        report = json.loads(stored)
    except (TypeError, ValueError, RecursionError):
        return stored
    return report if isinstance(report, dict) else stored
