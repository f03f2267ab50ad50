"""The state store's job semantics (Codex's test vectors), run against SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skillshelf.env import Env
from skillshelf.errors import StoreError
from skillshelf.memory.store import (
    CONSOLIDATE,
    STAGE1,
    ClaimOutcome,
    SessionRow,
    Stage1Claim,
    Store,
    open_store,
)
from skillshelf.memory.store.base import MAX_BACKOFF_MS, ClaimLimits
from skillshelf.memory.store.consolidation import PRUNED
from skillshelf.memory.store.schema import SCHEMA_VERSION

H = 3_600_000
DAY = 24 * H
NOW = 1_000 * DAY


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with open_store(store_url) as opened:
        yield opened


def _add(store: Store, *ids_and_times: tuple[str, int], mode: str = "enabled", scope: str = "/w") -> None:
    store.register_sessions(
        [
            SessionRow(
                id=i,
                source="codex",
                path=f"/t/{i}.jsonl",
                cwd=scope,
                project=scope,
                updated_at_ms=t,
                first_user_message="task",
                memory_mode=mode,
            )
            for i, t in ids_and_times
        ],
        NOW,
    )


def _claim(
    store: Store,
    *,
    now: int = NOW,
    limit: int = 100,
    cap: int = 1000,
    lease: int = H,
    worker: str = "w",
    idle: int = 0,
    age: int = 10_000 * DAY,
) -> list[Stage1Claim]:
    return store.claim_stage1(
        worker_id=worker,
        now_ms=now,
        lease_ms=lease,
        limit=limit,
        limits=ClaimLimits(min_idle_ms=idle, max_age_ms=age, running_cap=cap),
    )


def _succeed(store: Store, claim: Stage1Claim, scope: str = "/w", raw: str = "raw") -> bool:
    return store.mark_stage1_succeeded(
        claim,
        scope=scope,
        raw_memory=raw,
        rollout_summary="sum",
        rollout_slug=f"slug-{claim.session_id}",
        now_ms=NOW,
    )


def test_migrations_are_versioned_and_idempotent(store_url: str) -> None:
    with open_store(store_url) as first:
        assert first.schema_version() == SCHEMA_VERSION
    with open_store(store_url) as second:
        assert second.migrate(NOW) == SCHEMA_VERSION
        second.execute_for_tests(
            "INSERT INTO memory_schema (version, name, applied_at_ms) VALUES (99, 'x', 0)"
        )
    with pytest.raises(StoreError) as info:
        open_store(store_url)
    assert info.value.code == "ME011"


def test_a_session_already_extracted_at_its_time_is_not_claimed_again(store: Store) -> None:
    _add(store, ("t", 100))
    (claim,) = _claim(store)
    assert _succeed(store, claim)
    assert _claim(store) == []
    _add(store, ("t", 101))
    assert [c.watermark for c in _claim(store)] == [101]


def test_a_live_lease_blocks_other_workers_and_an_expired_one_is_stolen(store: Store) -> None:
    _add(store, ("t", 100))
    (first,) = _claim(store, worker="a")
    assert _claim(store, worker="b") == []
    (second,) = _claim(store, worker="b", now=NOW + H + 1)
    assert second.token != first.token
    assert not _succeed(store, first)  # the old owner cannot write any more
    assert _succeed(store, second)
    assert len(store.outputs()) == 1


def test_the_running_cap_counts_live_leases_of_every_worker(store: Store) -> None:
    _add(store, *[(f"s{i}", 100 + i) for i in range(80)])
    assert len(_claim(store, limit=10, cap=64, worker="other")) == 10
    assert len(_claim(store, limit=64, cap=64)) == 54
    assert _claim(store, limit=64, cap=64) == []


def test_eligibility_windows_disabled_sessions_and_order(store: Store) -> None:
    _add(
        store,
        ("current", NOW),
        ("fresh", NOW - H),
        ("just_under", NOW - 12 * H + 60_000),
        ("eligible", NOW - 12 * H - 60_000),
        ("old", NOW - 31 * DAY),
    )
    _add(store, ("off", NOW - 13 * H), mode="disabled")
    limits = ClaimLimits(min_idle_ms=12 * H, max_age_ms=30 * DAY, running_cap=100)
    assert [r[0] for r in store.stage1_candidates(now_ms=NOW, limits=limits, limit=10)] == ["eligible"]
    assert store.stage1_candidates(now_ms=NOW, limits=limits, limit=10, only=[]) == []
    assert store.stage1_candidates(now_ms=NOW, limits=limits, limit=10, only=["fresh"]) == []
    claims = _claim(store, idle=12 * H, age=30 * DAY)
    assert [c.session_id for c in claims] == ["eligible"]


def test_no_output_writes_nothing_and_deleting_an_output_makes_phase2_dirty(store: Store) -> None:
    _add(store, ("t", 100))
    (claim,) = _claim(store)
    assert store.mark_stage1_no_output(claim, now_ms=NOW)
    assert store.outputs() == [] and _claim(store) == []
    assert (
        store.claim_phase2("/w", worker_id="w", now_ms=NOW, lease_ms=H).outcome
        is ClaimOutcome.SKIPPED_NOT_DIRTY
    )
    _add(store, ("u", 200))
    (u,) = _claim(store)
    assert _succeed(store, u)
    p2 = store.claim_phase2("/w", worker_id="w", now_ms=NOW, lease_ms=H)
    assert p2.token and store.mark_phase2_succeeded(
        "/w", p2.token, completed_watermark=200, selected=(), now_ms=NOW
    )
    _add(store, ("u", 201))
    (again,) = _claim(store)
    assert store.mark_stage1_no_output(again, now_ms=NOW)
    assert store.outputs() == []
    assert store.claim_phase2("/w", worker_id="w", now_ms=NOW, lease_ms=H).watermark == 201


def test_retries_back_off_then_run_out_until_the_session_changes(store: Store) -> None:
    _add(store, ("t", 100))
    for attempt in range(3):
        (claim,) = _claim(store, now=NOW + attempt * 10 * DAY)
        assert store.mark_failed(
            STAGE1, "t", claim.token, reason="boom", now_ms=NOW + attempt * 10 * DAY, retry_base_ms=1000
        )
        job = store.job(STAGE1, "t")
        assert job and job["retry_at_ms"] == NOW + attempt * 10 * DAY + 1000 * 2**attempt
    assert _claim(store, now=NOW + 40 * DAY) == []
    _add(store, ("t", 101))
    (fresh,) = _claim(store, now=NOW + 40 * DAY)
    job = store.job(STAGE1, "t")
    assert fresh.watermark == 101 and job and job["retry_remaining"] == 3


def test_phase2_runs_only_when_the_watermark_moves_and_backfills_still_count(store: Store) -> None:
    store.enqueue("/w", 500)
    claim = store.claim_phase2("/w", worker_id="a", now_ms=NOW, lease_ms=H)
    assert claim.outcome is ClaimOutcome.CLAIMED and claim.token
    assert (
        store.claim_phase2("/w", worker_id="b", now_ms=NOW, lease_ms=H).outcome
        is ClaimOutcome.SKIPPED_RUNNING
    )
    stolen = store.claim_phase2("/w", worker_id="b", now_ms=NOW + H + 1, lease_ms=H)
    assert stolen.outcome is ClaimOutcome.CLAIMED and stolen.token and stolen.watermark == 500
    assert not store.mark_phase2_succeeded(
        "/w", claim.token, completed_watermark=500, selected=(), now_ms=NOW
    )
    assert store.mark_phase2_succeeded("/w", stolen.token, completed_watermark=500, selected=(), now_ms=NOW)
    assert (
        store.claim_phase2("/w", worker_id="b", now_ms=NOW, lease_ms=H).outcome
        is ClaimOutcome.SKIPPED_NOT_DIRTY
    )
    store.enqueue("/w", 400)
    again = store.claim_phase2("/w", worker_id="b", now_ms=NOW, lease_ms=H)
    assert again.outcome is ClaimOutcome.CLAIMED and again.watermark > 500
    assert store.dirty_scopes(now_ms=NOW) == ["/w"]


def test_heartbeat_extends_only_an_owned_lease(store: Store) -> None:
    store.enqueue("/w", 1)
    claim = store.claim_phase2("/w", worker_id="a", now_ms=NOW, lease_ms=H)
    assert claim.token and store.heartbeat(CONSOLIDATE, "/w", claim.token, now_ms=NOW + H - 1, lease_ms=H)
    assert (
        store.claim_phase2("/w", worker_id="b", now_ms=NOW + H + 1, lease_ms=H).outcome.value
        == "skipped_running"
    )
    assert not store.heartbeat(CONSOLIDATE, "/w", "not-the-token", now_ms=NOW, lease_ms=H)


def test_selection_diff_ranking_and_snapshot_marking(store: Store) -> None:
    _add(store, ("A", 100), ("B", 101), ("C", 102))
    claims = {c.session_id: c for c in _claim(store)}
    for claim in claims.values():
        _succeed(store, claim)
    first = store.selection("/w", limit=2, max_unused_ms=10_000 * DAY, now_ms=NOW)
    assert [r.session_id for r in first.selected] == ["C", "B"] and first.added_count == 2
    p2 = store.claim_phase2("/w", worker_id="w", now_ms=NOW, lease_ms=H)
    assert p2.token
    chosen = [r for r in store.outputs() if r.session_id in ("A", "C")]
    assert store.mark_phase2_succeeded("/w", p2.token, completed_watermark=102, selected=chosen, now_ms=NOW)
    diff = store.selection("/w", limit=2, max_unused_ms=10_000 * DAY, now_ms=NOW)
    assert diff.retained_ids == {"C"}
    assert [r.rollout_slug for r in diff.removed] == ["slug-A"]
    assert store.record_usage(["A", "A", "B", "missing"], now_ms=NOW) == 3
    ranked = store.selection("/w", limit=3, max_unused_ms=10_000 * DAY, now_ms=NOW)
    assert [r.session_id for r in ranked.selected] == ["A", "B", "C"]


def _consolidate(store: Store, scope: str = "/w", *, selected: tuple[str, ...] = ()) -> None:
    claim = store.claim_phase2(scope, worker_id="w", now_ms=NOW, lease_ms=H)
    assert claim.token and claim.watermark is not None
    chosen = [r for r in store.outputs(scope=scope) if r.session_id in selected]
    assert store.mark_phase2_succeeded(
        scope, claim.token, completed_watermark=claim.watermark, selected=chosen, now_ms=NOW
    )


def test_prune_deletes_stale_unselected_outputs_only(store: Store) -> None:
    _add(store, ("stale", NOW - 60 * DAY), ("fresh", NOW - DAY))
    for claim in _claim(store):
        _succeed(store, claim)
    _consolidate(store)
    before = store.job(STAGE1, "stale")
    assert store.prune(max_unused_ms=30 * DAY, now_ms=NOW) == 1
    assert [r.session_id for r in store.outputs()] == ["fresh"]
    after = store.job(STAGE1, "stale")  # jobs keep their watermark; the prune is noted
    assert before is not None and after == {**before, "last_error": PRUNED}


def test_prune_keeps_a_memory_until_its_scope_consolidates_after_it_is_extracted(store: Store) -> None:
    _add(store, ("old", NOW - 60 * DAY))
    _add(store, ("other", NOW - 60 * DAY), scope="/o")
    for claim in _claim(store):
        _succeed(store, claim, scope=claim.project)
    _consolidate(store, "/o")
    assert store.prune(max_unused_ms=0, now_ms=NOW) == 1  # /w has not consolidated since
    assert [r.session_id for r in store.outputs()] == ["old"]
    _consolidate(store, "/w", selected=("old",))
    assert store.prune(max_unused_ms=0, now_ms=NOW) == 0  # in the memory folder
    _add(store, ("new", NOW - DAY))
    for claim in _claim(store):
        _succeed(store, claim)
    _consolidate(store, "/w", selected=("new",))  # "old" dropped from the folder
    assert store.prune(max_unused_ms=30 * DAY, now_ms=NOW) == 1
    assert [r.session_id for r in store.outputs()] == ["new"]


def test_forget_scrubs_text_at_once_and_reset_clears_a_scope(store: Store) -> None:
    _add(store, ("keep", 100), scope="/a")
    _add(store, ("drop", 101), scope="/b")
    for claim in _claim(store):
        _succeed(store, claim, scope=claim.project, raw="secret-ish")
    assert store.forget("drop", now_ms=NOW) == "/b"
    (row,) = store.outputs(session_id="drop")
    assert row.raw_memory == "" and row.rollout_summary == ""
    assert store.forget("nobody", now_ms=NOW) is None
    assert store.reset(scope="/a") == 1
    assert [r.session_id for r in store.outputs()] == ["drop"]
    status = store.status(now_ms=NOW)
    assert status["sessions"] == {"enabled": 1, "disabled": 1}


def test_sqlite_store_lives_in_the_user_data_folder_in_wal_mode(isolated_home: object) -> None:
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        assert store.url.endswith("/memory/state.sqlite") and str(Env.from_os().dirs.data) in store.url
        assert store.execute_for_tests("PRAGMA journal_mode") == [("wal",)]


def test_a_subagent_row_never_replaces_the_session_of_another_file(store: Store) -> None:
    def row(path: str, subagent: bool, updated: int) -> SessionRow:
        return SessionRow(
            id="sid",
            source="claude",
            path=path,
            cwd="/w",
            project="/w",
            updated_at_ms=updated,
            first_user_message="task",
            subagent=subagent,
        )

    assert store.register_sessions([row("/p/sid.jsonl", False, 100)], NOW) == 1
    assert store.register_sessions([row("/p/sid/subagents/agent-a.jsonl", True, 200)], NOW) == 0
    kept = store.session("sid")
    assert kept is not None and (kept.path, kept.subagent, kept.updated_at_ms) == ("/p/sid.jsonl", False, 100)
    assert store.register_sessions([row("/p/sid.jsonl", False, 300)], NOW) == 1  # its own file still updates
    assert [c.session_id for c in _claim(store)] == ["sid"]


def _copy(path: str, mtime_ns: int, size: int) -> SessionRow:
    return SessionRow(
        id="dup",
        source="claude",
        path=path,
        cwd="/w",
        project="/w",
        updated_at_ms=mtime_ns // 1_000_000,
        first_user_message="task",
        file_size=size,
        file_mtime_ns=mtime_ns,
    )


@pytest.mark.parametrize("newer_first", [True, False])
def test_two_files_of_one_session_keep_the_newer_whatever_the_order(store: Store, newer_first: bool) -> None:
    old, new = _copy("/t/old.jsonl", 100 * H, 900), _copy("/t/new.jsonl", 200 * H, 300)
    store.register_sessions([new, old] if newer_first else [old, new], NOW)
    for _ in range(2):  # a later run reads the copy not kept again: nothing changes
        assert store.register_sessions([old], NOW) == 0
        kept = store.session("dup")
        assert kept is not None and kept.path == "/t/new.jsonl"
    assert [(row.path, path) for row, path in store.id_clashes([old, new])] == [
        ("/t/old.jsonl", "/t/new.jsonl")
    ]


def test_of_two_equally_new_copies_the_longer_wins_and_a_tie_keeps_the_row(store: Store) -> None:
    short, long = _copy("/t/short.jsonl", 100 * H, 10), _copy("/t/long.jsonl", 100 * H, 20)
    store.register_sessions([short], NOW)
    assert store.register_sessions([long], NOW) == 1
    assert store.register_sessions([short], NOW) == 0
    twin = _copy("/t/twin.jsonl", 100 * H, 20)
    assert store.register_sessions([twin], NOW) == 0
    kept = store.session("dup")
    assert kept is not None and kept.path == "/t/long.jsonl"


def test_a_subagent_sharing_its_parents_id_is_no_clash(store: Store) -> None:
    parent = _copy("/p/dup.jsonl", 100 * H, 10)
    child = SessionRow(**{**_fields(_copy("/p/dup/subagents/a.jsonl", 200 * H, 10)), "subagent": True})
    store.register_sessions([parent, child], NOW)
    assert store.id_clashes([parent, child]) == []


def _fields(row: SessionRow) -> dict[str, object]:
    return {name: getattr(row, name) for name in SessionRow.__dataclass_fields__}


def test_the_backoff_of_a_failed_job_is_capped_however_long_the_retry_delay(store: Store) -> None:
    _add(store, ("t", 100))
    (claim,) = _claim(store)
    assert store.mark_failed(STAGE1, "t", claim.token, reason="boom", now_ms=NOW, retry_base_ms=10**17)
    job = store.job(STAGE1, "t")
    assert job and job["status"] == "error" and job["retry_at_ms"] == NOW + MAX_BACKOFF_MS


def test_a_consolidation_in_backoff_or_out_of_retries_is_named_as_held_back(store: Store) -> None:
    store.enqueue("/w", 5)
    assert store.held_back_scopes(now_ms=NOW) == []
    for n in range(3):
        claim = store.claim_phase2("/w", worker_id="w", now_ms=NOW + n * DAY, lease_ms=H)
        assert claim.token is not None
        store.mark_failed(
            CONSOLIDATE, "/w", claim.token, reason="boom", now_ms=NOW + n * DAY, retry_base_ms=H
        )
        if n == 0:
            assert store.held_back_scopes(now_ms=NOW + 1) == [("/w", "backoff")]
            assert store.held_back_scopes(now_ms=NOW + DAY) == []  # due again
    assert store.held_back_scopes(now_ms=NOW + 10 * DAY) == [("/w", "gave_up")]
