"""A memory folder SQLite consolidated is refused to a real PostgreSQL database (and the other
way round after a take-over), and what the folder records of PostgreSQL holds no password and
no URL (the server is started by conftest.py; in CI a missing one fails)."""

from __future__ import annotations

import json
from pathlib import Path

from memory_helpers import extracted, fixed_phase2

from skillshelf.memory.consolidation_run import Phase2Outcome
from skillshelf.memory.origin import MARKER
from skillshelf.memory.store import Store, database_id, open_store

DAY = 86_400_000
NOW = 1_000 * DAY
SCOPE = "project:/w"
PASSWORD = "pw-7Hq2xZ9mKe"


def _phase2(store: Store, folder: Path, text: str, *, take_over: bool = False) -> Phase2Outcome:
    return fixed_phase2(store, folder, text, scope=SCOPE, now_ms=NOW, take_over=take_over)


def test_postgresql_and_sqlite_never_rewrite_each_others_memory_folder(pg_url: str, tmp_path: Path) -> None:
    url = pg_url.replace("skillshelf@", f"skillshelf:{PASSWORD}@", 1)  # trust auth: not asked for
    folder = tmp_path / "memories" / "w"
    with open_store(str(tmp_path / "state.sqlite")) as sqlite, open_store(url) as postgres:
        extracted(sqlite, "from-sqlite", NOW, scope=SCOPE, memory="from-sqlite")
        assert _phase2(sqlite, folder, "sqlite's memory").status == "consolidated"
        extracted(postgres, "from-postgres", NOW, scope=SCOPE, memory="from-postgres")

        refused = _phase2(postgres, folder, "postgres's memory")

        assert refused.status == "other_database" and refused.error is not None
        assert "ME053" in refused.error and "the PostgreSQL database t_" in refused.error
        assert PASSWORD not in refused.error
        assert (folder / "memory_summary.md").read_text(encoding="utf-8") == "sqlite's memory\n"

        taken = _phase2(postgres, folder, "postgres's memory", take_over=True)

        assert taken.status == "consolidated" and taken.set_aside
        record = (folder / MARKER).read_text(encoding="utf-8")
        assert PASSWORD not in record and "postgresql://" not in record
        assert json.loads(record)["database_id"] == database_id(postgres, now_ms=NOW)
        sqlite.enqueue(SCOPE, NOW + 1)
        assert _phase2(sqlite, folder, "sqlite's memory").status == "other_database"
    with open_store(pg_url) as again:  # the id is the database's, not the URL's
        assert json.loads(record)["database_id"] == database_id(again, now_ms=NOW)
