"""A scope's Phase 2 run when its selection becomes empty: like Codex, the consolidated files
are kept in the first run that selects nothing (the previous selection's summaries and raw
memories stay, its flags are cleared) and removed only by a later run that finds both the
selection and the previous selection empty; a forgotten session's text is dropped at once, and
nothing is removed by a worker whose lease was taken over."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memory_helpers import extracted, no_model

from skillshelf.memory.consolidation_run import Phase2Outcome, run_phase2_scope
from skillshelf.memory.consolidator import ConsolidationOutcome
from skillshelf.memory.models import CallBudget
from skillshelf.memory.phase2 import Consolidation
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import Selection, Store, open_store

DAY = 86_400_000
NOW = 1_000 * DAY
SCOPE = "project:/w"
CONSOLIDATED = ("MEMORY.md", "memory_summary.md", "skills/run-tests/SKILL.md")


class _Writer:
    """A consolidator that writes the three consolidated files."""

    name = "fake"

    def consolidate(
        self,
        prompt: str,
        memory_dir: Path,
        *,
        init: bool,
        effort: str | None,
        budget: CallBudget | None = None,
        known: KnownSecrets = NO_SECRETS,
    ) -> ConsolidationOutcome:
        files = {path: f"{path}: run make check\n" for path in CONSOLIDATED}
        return ConsolidationOutcome(consolidation=Consolidation(files=files, delete=()), consolidator="fake")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(f"sqlite:///{tmp_path / 'state.sqlite'}") as opened:
        yield opened


def _extract(store: Store, session_id: str, at_ms: int) -> None:
    extracted(
        store,
        session_id,
        at_ms,
        scope=SCOPE,
        memory="tests run with make check",
        summary="make check",
        slug="tests",
    )


def _phase2(store: Store, folder: Path, now_ms: int) -> Phase2Outcome:
    return run_phase2_scope(
        SCOPE,
        folder,
        store=store,
        model_factory=no_model,
        settings=MemorySettings(),
        clock=lambda: now_ms / 1000,
        worker_id="w",
        budget=CallBudget(None),
        consolidator_factory=_Writer,
    )


def _consolidated(store: Store, folder: Path) -> None:
    _extract(store, "a", NOW)
    assert _phase2(store, folder, NOW).status == "consolidated"
    assert all((folder / path).is_file() for path in CONSOLIDATED)


def test_the_first_empty_selection_keeps_the_memory_and_a_later_one_clears_it(
    store: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    _consolidated(store, folder)
    later = NOW + 40 * DAY  # the only memory has aged out
    store.enqueue(SCOPE, later)

    first = _phase2(store, folder, later)

    assert (first.status, first.selected, first.removed) == ("no_input", 0, 1)
    assert "kept" in first.kept[0]
    assert all((folder / path).is_file() for path in CONSOLIDATED)
    assert "tests run with make check" in (folder / "raw_memories.md").read_text(encoding="utf-8")
    assert len(list((folder / "rollout_summaries").glob("*.md"))) == 1
    assert [r.selected_for_phase2 for r in store.outputs(scope=SCOPE)] == [False]

    store.enqueue(SCOPE, later + 1)
    second = _phase2(store, folder, later + 1)

    assert (second.status, second.removed) == ("cleared", 0)
    assert not any((folder / path).exists() for path in CONSOLIDATED)
    assert list((folder / "rollout_summaries").glob("*.md")) == []


def test_a_memory_kept_through_an_empty_run_is_consolidated_again_when_its_input_returns(
    store: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "memories" / "w"
    _consolidated(store, folder)
    store.enqueue(SCOPE, NOW + 40 * DAY)
    assert _phase2(store, folder, NOW + 40 * DAY).status == "no_input"
    _extract(store, "a", NOW + 41 * DAY)  # the session changed: its memory is back

    assert _phase2(store, folder, NOW + 41 * DAY).status == "consolidated"
    assert all((folder / path).is_file() for path in CONSOLIDATED)


def test_forgetting_the_only_session_clears_the_memory_at_once(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "memories" / "w"
    _consolidated(store, folder)
    assert store.forget("a", now_ms=NOW + 1) == SCOPE

    outcome = _phase2(store, folder, NOW + 1)

    assert outcome.status == "cleared"
    assert not any((folder / path).exists() for path in CONSOLIDATED)
    assert "make check" not in (folder / "raw_memories.md").read_text(encoding="utf-8")


def test_an_empty_selection_clears_nothing_once_the_lease_was_taken_over(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "memories" / "w"
    _consolidated(store, folder)
    assert store.forget("a", now_ms=NOW + 1) == SCOPE
    select = store.selection

    def taken_over(scope: str, **kw: int) -> Selection:
        store.execute_for_tests("UPDATE jobs SET ownership_token = 'other' WHERE job_key = ?", (scope,))
        return select(scope, **kw)

    monkeypatch.setattr(store, "selection", taken_over)

    assert _phase2(store, folder, NOW + 1).status == "lost_lease"
    assert all((folder / path).is_file() for path in CONSOLIDATED)
