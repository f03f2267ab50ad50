"""Leases and what the store can say about each session: heartbeats, giving a job back,
freeing a lease whose holder is gone, one row per session for ``memory status``, and the
transcripts that repeat another's session id (``skipped_copies`` remembers those reported).

Which leases are free is decided outside the store (:mod:`skillshelf.memory.leases` looks at
processes); the store only frees a lease that is still the one that was judged (same ownership
token), so a holder that comes back to life finds it lost and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillshelf.memory.store.base import BaseStore, Row, chunks
from skillshelf.memory.store.records import STAGE1, LeaseHolder, LeaseRow, SessionFacts, SessionRow

__all__ = ["LeaseStore"]

_LEASE_COLUMNS = (
    "kind, job_key, ownership_token, worker_id, holder_host, holder_pid, holder_start, beat_every_ms, "
    "started_at_ms, lease_until_ms, beat_at_ms"
)

_OVERVIEW = """
SELECT s.id, s.source, s.path, s.updated_at_ms, s.memory_mode, s.subagent,
       CASE WHEN s.first_user_message = '' THEN 0 ELSE 1 END, o.source_updated_at_ms,
       j.status, j.retry_at_ms, j.retry_remaining, j.last_error, j.input_watermark,
       j.last_success_watermark
FROM sessions s
LEFT JOIN stage1_outputs o ON o.session_id = s.id
LEFT JOIN jobs j ON j.kind = 'memory_stage1' AND j.job_key = s.id
{where}
ORDER BY s.updated_at_ms DESC, s.id DESC
LIMIT ?"""

_NOTE_SKIPPED = """
INSERT INTO skipped_copies (path, session_id, kept_path, reported_at_ms) VALUES (?, ?, ?, ?)
ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, kept_path = excluded.kept_path,
  reported_at_ms = excluded.reported_at_ms
WHERE skipped_copies.kept_path <> excluded.kept_path OR skipped_copies.session_id <> excluded.session_id
RETURNING path"""


def _lease(r: Row) -> LeaseRow:
    kind, key, token, worker, host, pid, start, beat_every, started, until, beat = r
    holder = (
        LeaseHolder(host=str(host), pid=int(pid), start=str(start or ""), beat_ms=int(beat_every or 0))
        if host is not None and pid is not None
        else None
    )
    return LeaseRow(
        kind=str(kind),
        key=str(key),
        token=token,
        worker_id=worker,
        holder=holder,
        started_at_ms=int(started or 0),
        lease_until_ms=None if until is None else int(until),
        beat_at_ms=None if beat is None else int(beat),
    )


class LeaseStore(BaseStore):
    """Lease upkeep and the per-session overview (backends get it through ``Store``)."""

    def heartbeat(self, kind: str, key: str, token: str, *, now_ms: int, lease_ms: int) -> bool:
        """Extend an owned lease; False when ownership was lost."""
        with self.transaction() as tx:
            rows = tx.execute(
                "UPDATE jobs SET lease_until_ms = ?, beat_at_ms = ? WHERE kind = ? AND job_key = ? "
                "AND status = 'running' AND ownership_token = ? RETURNING job_key",
                (now_ms + lease_ms, now_ms, kind, key, token),
            )
        return bool(rows)

    def release(self, kind: str, key: str, token: str) -> bool:
        """Give an owned job back untouched (no retry used), e.g. when the call budget ran out."""
        with self.transaction() as tx:
            rows = tx.execute(
                "UPDATE jobs SET status = 'pending', lease_until_ms = NULL, ownership_token = NULL "
                "WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ? "
                "RETURNING job_key",
                (kind, key, token),
            )
        return bool(rows)

    def running_leases(self) -> list[LeaseRow]:
        """Every job marked running, with who holds it."""
        with self.transaction() as tx:
            rows = tx.execute(
                f"SELECT {_LEASE_COLUMNS} FROM jobs WHERE status = 'running' ORDER BY kind, job_key"
            )
        return [_lease(r) for r in rows]

    def free_lease(self, lease: LeaseRow, *, reason: str, now_ms: int, count_attempt: bool) -> bool:
        """Make a running job claimable now, if it is still held under the same token. With
        ``count_attempt`` the try costs one retry (a holder that died may have died of its input)."""
        with self.transaction() as tx:
            rows = tx.execute(
                "UPDATE jobs SET status = 'pending', ownership_token = NULL, lease_until_ms = NULL, "
                "finished_at_ms = ?, retry_remaining = retry_remaining - ?, last_error = ? "
                "WHERE kind = ? AND job_key = ? AND status = 'running' AND ownership_token = ? "
                "RETURNING job_key",
                (now_ms, 1 if count_attempt else 0, reason[:2000], lease.kind, lease.key, lease.token),
            )
        return bool(rows)

    def session_facts(self, *, limit: int, only: Sequence[str] | None = None) -> list[SessionFacts]:
        """What the store holds about each session (newest first), for ``memory status`` and the
        run report; :func:`skillshelf.memory.inspect.session_verdict` turns a row into a state."""
        if only is not None and not only:
            return []
        where = f"WHERE s.id IN ({', '.join('?' * len(only))})" if only else ""
        with self.transaction() as tx:
            rows = tx.execute(_OVERVIEW.format(where=where), [*(only or ()), limit])
        return [
            SessionFacts(
                id=str(r[0]),
                source=str(r[1]),
                path=str(r[2]),
                updated_at_ms=int(r[3]),
                memory_mode=str(r[4]),
                subagent=bool(r[5]),
                has_user_message=bool(r[6]),
                output_watermark=None if r[7] is None else int(r[7]),
                job_status=r[8],
                retry_at_ms=None if r[9] is None else int(r[9]),
                retry_remaining=None if r[10] is None else int(r[10]),
                last_error=r[11],
                input_watermark=None if r[12] is None else int(r[12]),
                success_watermark=None if r[13] is None else int(r[13]),
            )
            for r in rows
        ]

    def id_clashes(self, rows: Sequence[SessionRow]) -> list[tuple[SessionRow, str]]:
        """``(row, path kept)`` for each of ``rows`` (not a sub-agent's) whose session id the store
        holds for another file that is not a sub-agent's either: two copies of one session, of
        which :meth:`register_sessions` keeps the newer."""
        mains = [r for r in rows if not r.subagent]
        held: dict[str, tuple[str, bool]] = {}
        with self.transaction() as tx:
            for chunk in chunks([r.id for r in mains]):
                marks = ", ".join("?" * len(chunk))
                for sid, path, subagent in tx.execute(
                    f"SELECT id, path, subagent FROM sessions WHERE id IN ({marks})", chunk
                ):
                    held[str(sid)] = (str(path), bool(subagent))
        return [
            (r, held[r.id][0])
            for r in mains
            if r.id in held and held[r.id][0] != r.path and not held[r.id][1]
        ]

    def new_id_clashes(self, rows: Sequence[SessionRow], now_ms: int) -> list[tuple[SessionRow, str]]:
        """:meth:`id_clashes` of ``rows`` not reported before: each skipped copy is recorded with
        the file kept in its place, and returned again only when another file is kept. A file of
        ``rows`` that clashes no more (it is used now, or its session id changed) is forgotten, so
        a later clash of it is new."""
        clashes = self.id_clashes(rows)
        skipped = {row.path for row, _ in clashes}
        fresh: list[tuple[SessionRow, str]] = []
        with self.transaction() as tx:
            for chunk in chunks([r.path for r in rows if r.path not in skipped]):
                marks = ", ".join("?" * len(chunk))
                tx.execute(f"DELETE FROM skipped_copies WHERE path IN ({marks})", chunk)
            for row, kept in clashes:
                if tx.execute(_NOTE_SKIPPED, (row.path, row.id, kept, now_ms)):
                    fresh.append((row, kept))
        return fresh

    def held_back_scopes(self, *, now_ms: int) -> list[tuple[str, str]]:
        """``(scope, why)`` for each consolidation with new input that may not run now: ``backoff``
        (a failure's retry time is ahead) or ``gave_up`` (no retries left until new input)."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT job_key, retry_remaining FROM jobs WHERE kind = 'memory_consolidate' "
                "AND COALESCE(input_watermark, 0) > COALESCE(last_success_watermark, 0) "
                "AND (retry_remaining <= 0 OR retry_at_ms > ?) ORDER BY job_key",
                (now_ms,),
            )
        return [(str(scope), "gave_up" if int(left) <= 0 else "backoff") for scope, left in rows]

    def project_session_ids(self, project: str) -> list[str]:
        """Sessions whose project (or, without one, cwd) is ``project``: what a project's reset covers."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT id FROM sessions WHERE COALESCE(NULLIF(project, ''), NULLIF(cwd, ''), '/') = ?",
                (project,),
            )
        return [str(r[0]) for r in rows]

    def drop_stage1_jobs(self, session_ids: Sequence[str]) -> int:
        """Forget the extraction jobs of these sessions (running ones too): they start afresh."""
        dropped = 0
        with self.transaction() as tx:
            for chunk in chunks(session_ids):
                marks = ", ".join("?" * len(chunk))
                dropped += len(
                    tx.execute(
                        f"DELETE FROM jobs WHERE kind = ? AND job_key IN ({marks}) RETURNING job_key",
                        [STAGE1, *chunk],
                    )
                )
        return dropped
