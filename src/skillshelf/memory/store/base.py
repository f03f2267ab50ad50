"""The store's shared logic: one schema and one set of SQL statements for both backends.

Backends supply a connection and two things that differ: how a claim transaction starts
(``BEGIN IMMEDIATE`` on SQLite, row locks with ``FOR UPDATE ... SKIP LOCKED`` on PostgreSQL)
and the parameter style. Statements are written with ``?`` placeholders.

Jobs follow Codex's design: a row per ``(kind, job_key)`` with a lease, an ownership token
(a job is finished only by the holder of its token), a retry budget with backoff, and
watermarks (a job is done for an input only once its ``last_success_watermark`` reaches it).
"""

from __future__ import annotations

import re
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Self

from skillshelf.errors import StoreError
from skillshelf.memory.store.records import STAGE1, ClaimLimits, LeaseHolder, SessionRow, Stage1Claim
from skillshelf.memory.store.schema import MIGRATIONS, SCHEMA_VERSION
from skillshelf.memory.store.session_rows import SESSION_COLUMNS, session_params, session_row

__all__ = ["ClaimLimits", "Tx", "BaseStore", "storable"]

Row = tuple[Any, ...]
GONE = "transcript deleted before it was extracted"
MAX_BACKOFF_MS = 365 * 86_400_000
"""The longest wait before a failed job is tried again (a year): a retry time always fits 64 bits."""
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(params: Sequence[Any]) -> tuple[Any, ...]:
    """Statement parameters with every text made storable on both backends: NUL (refused by
    PostgreSQL) and lone surrogates (not encodable as UTF-8) become U+FFFD."""
    return tuple(_UNSTORABLE.sub("\ufffd", p) if isinstance(p, str) else p for p in params)


class Tx(ABC):
    """One open transaction."""

    @abstractmethod
    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Run one statement; return its rows (empty for statements without rows)."""


_CANDIDATES = """
SELECT s.id, s.updated_at_ms, s.path, s.cwd, s.project, s.source
FROM sessions s
LEFT JOIN stage1_outputs o ON o.session_id = s.id
LEFT JOIN jobs j ON j.kind = 'memory_stage1' AND j.job_key = s.id
WHERE s.memory_mode = 'enabled' AND s.first_user_message <> '' AND s.subagent = 0
  AND s.updated_at_ms >= ? AND s.updated_at_ms <= ?
  AND COALESCE(o.source_updated_at_ms, -1) < s.updated_at_ms
  AND COALESCE(j.last_success_watermark, -1) < s.updated_at_ms
  AND (j.kind IS NULL OR (
        (j.status <> 'running' OR j.lease_until_ms IS NULL OR j.lease_until_ms <= ?)
    AND (j.retry_at_ms IS NULL OR j.retry_at_ms <= ? OR s.updated_at_ms > COALESCE(j.input_watermark, -1))
    AND (j.retry_remaining > 0 OR s.updated_at_ms > COALESCE(j.input_watermark, -1))))
  {only}
ORDER BY s.updated_at_ms DESC, s.id DESC
LIMIT ?"""

_CLAIM_STAGE1 = """
INSERT INTO jobs (kind, job_key, status, worker_id, ownership_token, started_at_ms, finished_at_ms,
  lease_until_ms, retry_at_ms, retry_remaining, last_error, input_watermark, last_success_watermark)
VALUES ('memory_stage1', ?, 'running', ?, ?, ?, NULL, ?, NULL, ?, NULL, ?, NULL)
ON CONFLICT (kind, job_key) DO UPDATE SET
  status = 'running', worker_id = excluded.worker_id, ownership_token = excluded.ownership_token,
  started_at_ms = excluded.started_at_ms, finished_at_ms = NULL, lease_until_ms = excluded.lease_until_ms,
  retry_at_ms = NULL, last_error = NULL,
  retry_remaining = CASE WHEN excluded.input_watermark > COALESCE(jobs.input_watermark, -1)
                         THEN excluded.retry_remaining ELSE jobs.retry_remaining END,
  input_watermark = excluded.input_watermark
WHERE (jobs.status <> 'running' OR jobs.lease_until_ms IS NULL OR jobs.lease_until_ms <= ?)
  AND (jobs.retry_at_ms IS NULL OR jobs.retry_at_ms <= ?
       OR excluded.input_watermark > COALESCE(jobs.input_watermark, -1))
  AND (jobs.retry_remaining > 0 OR excluded.input_watermark > COALESCE(jobs.input_watermark, -1))
  AND COALESCE(jobs.last_success_watermark, -1) < excluded.input_watermark
RETURNING job_key"""

_ENQUEUE = """
INSERT INTO jobs (kind, job_key, status, retry_remaining, input_watermark, last_success_watermark)
VALUES ('memory_consolidate', ?, 'pending', ?, ?, 0)
ON CONFLICT (kind, job_key) DO UPDATE SET
  status = CASE WHEN jobs.status = 'running' THEN 'running' ELSE 'pending' END,
  retry_at_ms = CASE WHEN jobs.status = 'running' THEN jobs.retry_at_ms ELSE NULL END,
  retry_remaining = CASE WHEN jobs.retry_remaining > excluded.retry_remaining
                         THEN jobs.retry_remaining ELSE excluded.retry_remaining END,
  input_watermark = CASE WHEN excluded.input_watermark > COALESCE(jobs.input_watermark, 0)
                         THEN excluded.input_watermark ELSE COALESCE(jobs.input_watermark, 0) + 1 END"""


class BaseStore(ABC):
    """Everything but the connection: sessions, Phase-1 jobs and outputs (Phase 2 in a mixin)."""

    url: str
    label: str = ""  # the database in words for messages: never its password or URL
    retries: int = 3

    @abstractmethod
    def transaction(self, *, claim: bool = False) -> AbstractContextManager[Tx]:
        """A transaction; ``claim=True`` takes the write lock up front (SQLite; claims and every
        transaction that reads before it writes) / is used with row locks."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    skip_locked: str = ""  # " FOR UPDATE OF s SKIP LOCKED" on PostgreSQL

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- schema -------------------------------------------------------------------------
    def _lock_for_migration(self, tx: Tx) -> None:  # noqa: B027
        """Serialise migrations across processes (PostgreSQL takes an advisory lock)."""

    def migrate(self, now_ms: int) -> int:
        """Apply missing migrations; return the schema version. A database at the current
        version is only read (no write lock: a reader never waits for another process's write)."""
        if self._at_current_version():
            return SCHEMA_VERSION
        with self.transaction(claim=True) as tx:
            self._lock_for_migration(tx)
            tx.execute(
                "CREATE TABLE IF NOT EXISTS memory_schema (version INTEGER PRIMARY KEY, "
                "name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)"
            )
            current = int(tx.execute("SELECT COALESCE(MAX(version), 0) FROM memory_schema")[0][0])
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"the memory database {self.url} has schema version {current}, newer "
                    f"than {SCHEMA_VERSION}",
                    hint="upgrade skillshelf, or point --db at another database",
                    code="ME011",
                )
            for migration in MIGRATIONS:
                if migration.version > current:
                    for statement in migration.statements:
                        tx.execute(statement)
                    tx.execute(
                        "INSERT INTO memory_schema (version, name, applied_at_ms) VALUES (?, ?, ?)",
                        (migration.version, migration.name, now_ms),
                    )
        return SCHEMA_VERSION

    def _at_current_version(self) -> bool:
        try:
            return self.schema_version() == SCHEMA_VERSION
        except StoreError:  # no schema table yet (a new database): migrate() makes it
            return False

    def schema_version(self) -> int:
        with self.transaction() as tx:
            return int(tx.execute("SELECT COALESCE(MAX(version), 0) FROM memory_schema")[0][0])

    # --- sessions -----------------------------------------------------------------------
    def known_files(self) -> dict[str, tuple[int, int]]:
        """``path -> (size, mtime_ns)`` of every registered transcript."""
        with self.transaction() as tx:
            return {
                str(r[0]): (int(r[1]), int(r[2]))
                for r in tx.execute("SELECT path, file_size, file_mtime_ns FROM sessions")
            }

    def register_sessions(self, rows: Sequence[SessionRow], now_ms: int) -> int:
        """Insert or refresh sessions (``memory_mode`` is kept); return how many were written.

        A row's own file always refreshes it. Another file with the same session id replaces it
        only when it is newer (file mtime, then size; a tie keeps the row), so two copies of a
        session give the same row whatever order they are read in (``LeaseStore.id_clashes`` names the
        copy not used); and a sub-agent's file never replaces a file that is not a sub-agent's
        (a sub-agent's transcript may repeat its parent's session id), which always replaces it."""
        sql = (
            f"INSERT INTO sessions ({SESSION_COLUMNS}, registered_at_ms) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "source = excluded.source, path = excluded.path, cwd = excluded.cwd, project = excluded.project, "
            "git_branch = excluded.git_branch, origin = excluded.origin, subagent = excluded.subagent, "
            "first_user_message = excluded.first_user_message, updated_at_ms = excluded.updated_at_ms, "
            "file_size = excluded.file_size, file_mtime_ns = excluded.file_mtime_ns "
            "WHERE sessions.path = excluded.path OR (excluded.subagent = 0 AND sessions.subagent <> 0) "
            "OR ((excluded.subagent = 0) = (sessions.subagent = 0) "
            "AND (excluded.file_mtime_ns > sessions.file_mtime_ns OR (excluded.file_mtime_ns = "
            "sessions.file_mtime_ns AND excluded.file_size > sessions.file_size))) "
            "RETURNING id"
        )
        written = 0
        with self.transaction() as tx:  # newest first: an older copy read in the same run writes nothing
            for r in sorted(rows, key=lambda r: (r.file_mtime_ns, r.file_size), reverse=True):
                written += len(tx.execute(sql, session_params(r, now_ms)))
        return written

    def session(self, session_id: str) -> SessionRow | None:
        with self.transaction() as tx:
            rows = tx.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        return session_row(rows[0]) if rows else None

    def session_ids_for_paths(self, paths: Sequence[str]) -> list[str]:
        with self.transaction() as tx:
            out: list[str] = []
            for start in range(0, len(paths), 500):
                chunk = list(paths[start : start + 500])
                marks = ", ".join("?" * len(chunk))
                out += [
                    str(r[0]) for r in tx.execute(f"SELECT id FROM sessions WHERE path IN ({marks})", chunk)
                ]
            return out

    # --- Phase 1 ------------------------------------------------------------------------
    def stage1_candidates(
        self, *, now_ms: int, limits: ClaimLimits, limit: int, only: Sequence[str] | None = None
    ) -> list[Row]:
        """Eligible sessions, newest first, without claiming them (the dry run uses this)."""
        if only is not None and not only:
            return []
        with self.transaction() as tx:
            return self._candidates(tx, now_ms=now_ms, limits=limits, limit=limit, only=only, lock="")

    def _candidates(
        self, tx: Tx, *, now_ms: int, limits: ClaimLimits, limit: int, only: Sequence[str] | None, lock: str
    ) -> list[Row]:
        only_sql = f"AND s.id IN ({', '.join('?' * len(only))})" if only else ""
        params: list[Any] = [now_ms - limits.max_age_ms, now_ms - limits.min_idle_ms, now_ms, now_ms]
        params += list(only or ()) + [limit]
        return tx.execute(_CANDIDATES.format(only=only_sql) + lock, params)

    def claim_stage1(
        self,
        *,
        worker_id: str,
        now_ms: int,
        lease_ms: int,
        limits: ClaimLimits,
        limit: int,
        only: Sequence[str] | None = None,
        holder: LeaseHolder | None = None,
    ) -> list[Stage1Claim]:
        """Claim up to ``limit`` eligible sessions, never more live leases than ``running_cap``;
        ``holder`` (this process) is recorded in each lease."""
        if only is not None and not only:
            return []
        claims: list[Stage1Claim] = []
        with self.transaction(claim=True) as tx:
            running = int(
                tx.execute(
                    "SELECT COUNT(*) FROM jobs WHERE kind = ? AND status = 'running' AND lease_until_ms > ?",
                    (STAGE1, now_ms),
                )[0][0]
            )
            room = min(limit, limits.running_cap - running)
            if room <= 0:
                return []
            rows = self._candidates(
                tx, now_ms=now_ms, limits=limits, limit=room, only=only, lock=self.skip_locked
            )
            for session_id, updated, path, cwd, project, source in rows:
                token = uuid.uuid4().hex
                got = tx.execute(
                    _CLAIM_STAGE1,
                    (
                        session_id,
                        worker_id,
                        token,
                        now_ms,
                        now_ms + lease_ms,
                        self.retries,
                        updated,
                        now_ms,
                        now_ms,
                    ),
                )
                if got:
                    self.stamp_holder(tx, STAGE1, session_id, token, holder, now_ms)
                    claims.append(
                        Stage1Claim(
                            session_id=session_id,
                            token=token,
                            watermark=int(updated),
                            path=path,
                            cwd=cwd,
                            project=project,
                            source=source,
                        )
                    )
        return claims

    def stamp_holder(
        self, tx: Tx, kind: str, key: str, token: str, holder: LeaseHolder | None, now_ms: int
    ) -> None:
        """Record who holds a lease just claimed (its first heartbeat is the claim)."""
        tx.execute(
            "UPDATE jobs SET holder_host = ?, holder_pid = ?, holder_start = ?, beat_every_ms = ?, "
            "beat_at_ms = ? WHERE kind = ? AND job_key = ? AND ownership_token = ?",
            (
                holder.host if holder else None,
                holder.pid if holder else None,
                holder.start if holder else None,
                holder.beat_ms if holder else None,
                now_ms,
                kind,
                key,
                token,
            ),
        )

    def _finish_owned(
        self, tx: Tx, kind: str, key: str, token: str, now_ms: int, note: str | None = None
    ) -> int | None:
        rows = tx.execute(
            "UPDATE jobs SET status = 'done', finished_at_ms = ?, lease_until_ms = NULL, last_error = ?, "
            "last_success_watermark = input_watermark WHERE kind = ? AND job_key = ? AND status = 'running' "
            "AND ownership_token = ? RETURNING input_watermark",
            (now_ms, note, kind, key, token),
        )
        return int(rows[0][0]) if rows else None

    def enqueue_consolidation(self, tx: Tx, scope: str, watermark: int) -> None:
        tx.execute(_ENQUEUE, (scope, self.retries, watermark))

    def mark_stage1_succeeded(
        self,
        claim: Stage1Claim,
        *,
        scope: str,
        raw_memory: str,
        rollout_summary: str,
        rollout_slug: str | None,
        now_ms: int,
    ) -> bool:
        """Store the output (only if ``claim`` still owns the job) and make Phase 2 dirty."""
        with self.transaction() as tx:
            if self._finish_owned(tx, STAGE1, claim.session_id, claim.token, now_ms) is None:
                return False
            tx.execute(
                "INSERT INTO stage1_outputs (session_id, scope, source_updated_at_ms, raw_memory, "
                "rollout_summary, rollout_slug, generated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT "
                "(session_id) DO UPDATE SET scope = excluded.scope, source_updated_at_ms = "
                "excluded.source_updated_at_ms, raw_memory = excluded.raw_memory, rollout_summary = "
                "excluded.rollout_summary, rollout_slug = excluded.rollout_slug, generated_at_ms = "
                "excluded.generated_at_ms WHERE excluded.source_updated_at_ms >= "
                "stage1_outputs.source_updated_at_ms",
                (claim.session_id, scope, claim.watermark, raw_memory, rollout_summary, rollout_slug, now_ms),
            )
            self.enqueue_consolidation(tx, scope, claim.watermark)
        return True

    def mark_stage1_no_output(self, claim: Stage1Claim, *, now_ms: int) -> bool:
        """The minimum-signal gate said no: drop any older output (Phase 2 then forgets it)."""
        with self.transaction() as tx:
            watermark = self._finish_owned(tx, STAGE1, claim.session_id, claim.token, now_ms)
            if watermark is None:
                return False
            deleted = tx.execute(
                "DELETE FROM stage1_outputs WHERE session_id = ? RETURNING scope", (claim.session_id,)
            )
            if deleted:
                self.enqueue_consolidation(tx, str(deleted[0][0]), watermark)
        return True

    def mark_stage1_gone(self, claim: Stage1Claim, *, now_ms: int) -> bool:
        """Finish an owned job whose transcript was deleted (older output kept), noted as ``GONE``."""
        with self.transaction() as tx:
            return self._finish_owned(tx, STAGE1, claim.session_id, claim.token, now_ms, GONE) is not None

    def mark_failed(
        self, kind: str, key: str, token: str, *, reason: str, now_ms: int, retry_base_ms: int
    ) -> bool:
        """Put an owned job into backoff: ``retry_base * 2**(attempts so far)``, at most
        :data:`MAX_BACKOFF_MS`."""
        with self.transaction(claim=True) as tx:  # reads, then writes
            rows = tx.execute(
                "SELECT retry_remaining FROM jobs WHERE kind = ? AND job_key = ? AND status = 'running' "
                "AND (ownership_token = ? OR ownership_token IS NULL)",
                (kind, key, token),
            )
            if not rows:
                return False
            used = min(max(0, self.retries - int(rows[0][0])), 32)
            backoff = min(max(0, retry_base_ms) * 2**used, MAX_BACKOFF_MS)
            tx.execute(
                "UPDATE jobs SET status = 'error', finished_at_ms = ?, lease_until_ms = NULL, "
                "retry_at_ms = ?, retry_remaining = retry_remaining - 1, last_error = ? WHERE kind = ? "
                "AND job_key = ? AND status = 'running' AND (ownership_token = ? OR ownership_token IS NULL)",
                (now_ms, now_ms + backoff, reason[:2000], kind, key, token),
            )
        return True


def chunks(items: Sequence[str], size: int = 500) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
