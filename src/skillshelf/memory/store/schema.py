"""The memory state schema as versioned migrations, shared by SQLite and PostgreSQL.

Times are Unix milliseconds (BIGINT). A migration is applied once, inside the transaction that
records it in ``memory_schema``; a store refuses a database whose version is newer than it knows.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        version=1,
        name="sessions, stage-1 outputs and jobs",
        statements=(
            """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            path TEXT NOT NULL,
            cwd TEXT NOT NULL DEFAULT '',
            project TEXT NOT NULL DEFAULT '',
            git_branch TEXT,
            origin TEXT NOT NULL DEFAULT '',
            subagent INTEGER NOT NULL DEFAULT 0,
            first_user_message TEXT NOT NULL DEFAULT '',
            updated_at_ms BIGINT NOT NULL,
            file_size BIGINT NOT NULL DEFAULT 0,
            file_mtime_ns BIGINT NOT NULL DEFAULT 0,
            memory_mode TEXT NOT NULL DEFAULT 'enabled',
            registered_at_ms BIGINT NOT NULL)""",
            "CREATE INDEX sessions_updated ON sessions (updated_at_ms DESC, id DESC)",
            "CREATE INDEX sessions_path ON sessions (path)",
            """CREATE TABLE stage1_outputs (
            session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            scope TEXT NOT NULL,
            source_updated_at_ms BIGINT NOT NULL,
            raw_memory TEXT NOT NULL,
            rollout_summary TEXT NOT NULL,
            rollout_slug TEXT,
            generated_at_ms BIGINT NOT NULL,
            usage_count INTEGER NOT NULL DEFAULT 0,
            last_usage_ms BIGINT,
            selected_for_phase2 INTEGER NOT NULL DEFAULT 0,
            selected_source_updated_at_ms BIGINT)""",
            "CREATE INDEX stage1_scope ON stage1_outputs (scope, source_updated_at_ms DESC, session_id DESC)",
            """CREATE TABLE jobs (
            kind TEXT NOT NULL,
            job_key TEXT NOT NULL,
            status TEXT NOT NULL,
            worker_id TEXT,
            ownership_token TEXT,
            started_at_ms BIGINT,
            finished_at_ms BIGINT,
            lease_until_ms BIGINT,
            retry_at_ms BIGINT,
            retry_remaining INTEGER NOT NULL,
            last_error TEXT,
            input_watermark BIGINT,
            last_success_watermark BIGINT,
            PRIMARY KEY (kind, job_key))""",
            "CREATE INDEX jobs_claim ON jobs (kind, status, retry_at_ms, lease_until_ms)",
        ),
    ),
    Migration(
        version=2,
        name="run log",
        statements=(
            """CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            worker_id TEXT NOT NULL,
            started_at_ms BIGINT NOT NULL,
            finished_at_ms BIGINT,
            report TEXT NOT NULL DEFAULT '{}')""",
            "CREATE INDEX runs_started ON runs (started_at_ms DESC)",
        ),
    ),
    Migration(
        version=3,
        name="lease holders: host, process, its start, heartbeat interval and last beat",
        statements=(
            "ALTER TABLE jobs ADD COLUMN holder_host TEXT",
            "ALTER TABLE jobs ADD COLUMN holder_pid INTEGER",
            "ALTER TABLE jobs ADD COLUMN holder_start TEXT",
            "ALTER TABLE jobs ADD COLUMN beat_every_ms BIGINT",
            "ALTER TABLE jobs ADD COLUMN beat_at_ms BIGINT",
        ),
    ),
    Migration(
        version=4,
        name="transcript copies skipped for another file of their session, each reported once",
        statements=(
            """CREATE TABLE skipped_copies (
            path TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            kept_path TEXT NOT NULL,
            reported_at_ms BIGINT NOT NULL)""",
        ),
    ),
    Migration(
        version=5,
        name="the database's own id, which the memory folders it consolidates record",
        statements=(
            """CREATE TABLE memory_identity (
            one INTEGER PRIMARY KEY CHECK (one = 1),
            database_id TEXT NOT NULL,
            created_at_ms BIGINT NOT NULL)""",
        ),
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version
