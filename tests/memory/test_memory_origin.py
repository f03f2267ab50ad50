"""A memory folder records the database that consolidates it: a consolidation from another
database (a second SQLite file here; PostgreSQL in test_memory_pg_origin.py) writes nothing of
it and says why (ME053), a folder made before the record is adopted, and a run that takes the
folder over moves it aside whole first."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from memory_helpers import extracted, fixed_phase2

from skillshelf.errors import ModelCallError, OtherDatabaseError
from skillshelf.memory.consolidation_run import Phase2Outcome
from skillshelf.memory.origin import MARKER, SET_ASIDE_FOLDER, check_folder, recorded_database, store_identity
from skillshelf.memory.store import CONSOLIDATE, Store, database_id, open_store

DAY = 86_400_000
NOW = 1_000 * DAY
SCOPE = "project:/w"


@pytest.fixture
def first(tmp_path: Path) -> Iterator[Store]:
    with open_store(f"sqlite:///{tmp_path / 'first.sqlite'}") as opened:
        yield opened


@pytest.fixture
def second(tmp_path: Path) -> Iterator[Store]:
    with open_store(str(tmp_path / "second.sqlite")) as opened:
        yield opened


def _phase2(
    store: Store,
    folder: Path,
    text: str,
    *,
    take_over: bool = False,
    during: Callable[[], object] | None = None,
) -> Phase2Outcome:
    return fixed_phase2(store, folder, text, scope=SCOPE, now_ms=NOW, take_over=take_over, during=during)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _consolidated_by_first(first: Store, folder: Path) -> dict[str, bytes]:
    extracted(first, "a", NOW, scope=SCOPE, memory="first database: tests run with make check")
    assert _phase2(first, folder, "first database's memory").status == "consolidated"
    return _files(folder)


def test_a_consolidation_from_another_database_writes_nothing_and_says_which_and_how_to_fix(
    first: Store, second: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w-0123456789"
    before = _consolidated_by_first(first, folder)
    extracted(second, "b", NOW, scope=SCOPE, memory="second database: deploys go through fly")

    outcome = _phase2(second, folder, "second database's memory")

    assert outcome.status == "other_database"
    assert outcome.error is not None and outcome.error.startswith("ME053: ")
    assert "first.sqlite" in outcome.error and "second.sqlite" in outcome.error
    assert "--force" in outcome.error and "SKILLSHELF_DATA_DIR" in outcome.error
    assert _files(folder) == before  # summaries and raw memories too: nothing of the second's
    job = second.job(CONSOLIDATE, SCOPE)  # given back untouched: the next run tries again
    assert job is not None and (job["status"], job["retry_remaining"]) == ("pending", 3)


def test_a_consolidation_that_selects_nothing_never_clears_another_databases_folder(
    first: Store, second: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    before = _consolidated_by_first(first, folder)
    second.enqueue(SCOPE, NOW)  # dirty, with no memory: a run would remove the files

    assert _phase2(second, folder, "unused").status == "other_database"
    assert _files(folder) == before


def test_a_folder_made_before_the_record_is_adopted_by_the_first_database_that_consolidates_it(
    first: Store, second: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("# written by an older skillshelf\n", encoding="utf-8")
    extracted(first, "a", NOW, scope=SCOPE, memory="first database memory")

    assert _phase2(first, folder, "first database's memory").status == "consolidated"

    recorded = recorded_database(folder)
    assert recorded is not None and recorded.id == database_id(first, now_ms=NOW)
    assert "first.sqlite" in recorded.label
    extracted(first, "a2", NOW + 1, scope=SCOPE, memory="more")
    assert _phase2(first, folder, "again").status == "consolidated"  # its own folder: on as before
    extracted(second, "b", NOW, scope=SCOPE, memory="second database memory")
    assert _phase2(second, folder, "second").status == "other_database"


def test_force_moves_the_other_databases_folder_aside_whole_and_consolidates_in_its_place(
    first: Store, second: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    before = _consolidated_by_first(first, folder)
    extracted(second, "b", NOW, scope=SCOPE, memory="second database memory")

    outcome = _phase2(second, folder, "second database's memory", take_over=True)

    assert outcome.status == "consolidated" and outcome.set_aside is not None
    aside = Path(outcome.set_aside)
    assert aside.parent == tmp_path / SET_ASIDE_FOLDER and _files(aside) == before
    assert (folder / "MEMORY.md").read_text(encoding="utf-8") == "second database's memory\n"
    recorded = recorded_database(folder)
    assert recorded is not None and recorded.id == database_id(second, now_ms=NOW)


def test_another_database_taking_the_folder_over_during_the_model_call_leaves_it_unwritten(
    first: Store, second: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    extracted(second, "b", NOW, scope=SCOPE, memory="second database memory")

    def first_takes_over() -> None:  # a run against the first database, with --force, meanwhile
        extracted(first, "a", NOW, scope=SCOPE, memory="first database: tests run with make check")
        assert _phase2(first, folder, "first database's memory", take_over=True).set_aside

    outcome = _phase2(second, folder, "second database's memory", during=first_takes_over)

    assert outcome.status == "other_database"
    assert (folder / "MEMORY.md").read_text(encoding="utf-8") == "first database's memory\n"
    job = second.job(CONSOLIDATE, SCOPE)
    assert job is not None and job["status"] == "pending"


@pytest.mark.parametrize("record", ["{not json", '{"database_id": ""}', "[]"])
def test_a_record_that_cannot_be_read_is_refused_with_a_hint_to_delete_it(
    first: Store, tmp_path: Path, record: str
) -> None:
    folder = tmp_path / "memories" / "w"
    folder.mkdir(parents=True)
    (folder / MARKER).write_text(record, encoding="utf-8")

    with pytest.raises(OtherDatabaseError) as raised:
        check_folder(folder, store_identity(first, now_ms=NOW))

    assert raised.value.code == "ME053" and str(folder / MARKER) in raised.value.hint


def test_the_record_names_the_database_by_id_and_label_only(first: Store, tmp_path: Path) -> None:
    folder = tmp_path / "memories" / "w"
    _consolidated_by_first(first, folder)

    data = json.loads((folder / MARKER).read_text(encoding="utf-8"))

    assert data["database_id"] == database_id(first, now_ms=NOW)
    assert data["database"] == f"the SQLite file {tmp_path / 'first.sqlite'}"
    assert set(data) == {"database_id", "database", "recorded_at", "about"}


def test_a_take_over_whose_consolidation_then_fails_still_says_where_the_folder_went(
    first: Store, second: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    before = _consolidated_by_first(first, folder)
    extracted(second, "b", NOW, scope=SCOPE, memory="second database memory")

    def model_fails() -> None:
        raise ModelCallError("the model is down", code="MD001")

    outcome = _phase2(second, folder, "unused", take_over=True, during=model_fails)

    assert outcome.status == "failed" and outcome.set_aside is not None
    assert _files(Path(outcome.set_aside)) == before
