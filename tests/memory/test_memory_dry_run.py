"""A dry run of `memory run` writes nothing: the database (SQLite file or PostgreSQL) holds the
same schema and rows after it as before, while its report still shows the prompts a run would
send, transcripts it had not seen before included."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import write_skillshelf_transcript

from skillshelf.env import Env
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import Store, open_store
from skillshelf.memory.store.records import SessionRow

_SETTINGS = MemorySettings().with_overrides(extract_model="openai:small", consolidation_model="openai:big")


def _pg_content(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the database's public schema with its rows, sorted."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            str(r[0])
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
                "ORDER BY table_name"
            ).fetchall()
        ]
        return {
            t: sorted(map(tuple, conn.execute(f'SELECT * FROM "{t}"').fetchall()), key=repr) for t in tables
        }


def _folder_content(folder: Path) -> dict[str, str]:
    """Each file under ``folder`` by its digest (the SQLite file and any -wal / -shm beside it)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _content(url: str, db_folder: Path) -> object:
    return _pg_content(url) if url.startswith("postgresql://") else _folder_content(db_folder)


def _seen_session(store: Store, project: Path) -> None:
    store.register_sessions(
        [
            SessionRow(
                id="seen",
                source="skillshelf",
                path=str(project / "seen.jsonl"),
                cwd=str(project),
                project=str(project),
                updated_at_ms=int((time.time() - 9 * 3600) * 1000),
                first_user_message="an older task",
            )
        ],
        int(time.time() * 1000),
    )


def _dry_run(isolated_home: Any, url: str, folder: Path) -> dict[str, Any]:
    env = Env.for_test(cwd=isolated_home.home, home=isolated_home.home, codex_home=isolated_home.codex_home)
    report = run_memory(env, _SETTINGS, RunOptions(sessions=(folder,), db=url, dry_run=True))
    return report.to_dict()


@pytest.fixture
def transcripts(isolated_home: Any) -> Path:
    folder = isolated_home.state / "t"
    write_skillshelf_transcript(
        folder / "new.jsonl",
        session_id="new",
        cwd=isolated_home.home,
        task="how do I run the tests?",
        mtime=time.time() - 9 * 3600,
    )
    return folder


def test_a_dry_run_leaves_a_used_database_as_it_was(
    isolated_home: Any, store_url: str, tmp_path: Path, transcripts: Path
) -> None:
    with open_store(store_url) as store:
        _seen_session(store, isolated_home.home)
        store.enqueue("project:/w", 5)
    before = _content(store_url, tmp_path)

    report = _dry_run(isolated_home, store_url, transcripts)

    assert [(d["phase"], d["session_id"]) for d in report["dry_run"]] == [(1, "new"), (2, "project:/w")]
    assert _content(store_url, tmp_path) == before


def test_a_dry_run_creates_no_schema_in_an_empty_database(
    isolated_home: Any, store_url: str, tmp_path: Path, transcripts: Path
) -> None:
    before = _content(store_url, tmp_path)

    report = _dry_run(isolated_home, store_url, transcripts)

    assert [d["session_id"] for d in report["dry_run"]] == ["new"]
    assert _content(store_url, tmp_path) == before


def test_a_dry_run_reports_the_database_it_read(
    isolated_home: Any, store_url: str, transcripts: Path
) -> None:
    report = _dry_run(isolated_home, store_url, transcripts)
    with open_store(store_url, migrate=False) as store:
        assert report["db"] == store.url


def test_a_dry_run_reads_an_older_schema_without_migrating_it(
    isolated_home: Any, pg_url: str, transcripts: Path
) -> None:
    import psycopg

    from skillshelf.memory.store.schema import MIGRATIONS

    first = MIGRATIONS[0]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE memory_schema (version INTEGER PRIMARY KEY, name TEXT, applied_at_ms BIGINT)"
        )
        for statement in first.statements:
            conn.execute(statement)  # type: ignore[arg-type]
        conn.execute("INSERT INTO memory_schema VALUES (1, 'v1', 0)")
        conn.execute(
            "INSERT INTO jobs (kind, job_key, status, retry_remaining, input_watermark, "
            "last_success_watermark) VALUES ('memory_consolidate', 'project:/w', 'pending', 3, 5, 0)"
        )
    before = _pg_content(pg_url)

    report = _dry_run(isolated_home, pg_url, transcripts)

    assert [(d["phase"], d["session_id"]) for d in report["dry_run"]] == [(1, "new"), (2, "project:/w")]
    assert _pg_content(pg_url) == before
