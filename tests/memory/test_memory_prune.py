"""`memory prune` as users run it, and what `memory status` and `memory show SESSION_ID` say of a
memory pruned or forgotten."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.env import Env
from skillshelf.memory.store import SessionRow, Store, open_store
from skillshelf.memory.store.records import ClaimLimits

DAY_MS = 86_400_000


def _extracted(store: Store, session_id: str, *, days_ago: int, now_ms: int) -> None:
    store.register_sessions(
        [
            SessionRow(
                id=session_id,
                source="codex",
                path=f"/t/{session_id}.jsonl",
                cwd="/w",
                project="/w",
                updated_at_ms=now_ms - days_ago * DAY_MS,
                first_user_message="task",
            )
        ],
        now_ms=now_ms,
    )
    limits = ClaimLimits(min_idle_ms=0, max_age_ms=10_000 * DAY_MS, running_cap=10)
    (claim,) = store.claim_stage1(
        worker_id="w", now_ms=now_ms, lease_ms=60_000, limits=limits, limit=1, only=[session_id]
    )
    store.mark_stage1_succeeded(
        claim, scope="/w", raw_memory="raw", rollout_summary="sum", rollout_slug="s", now_ms=now_ms
    )


def _consolidated_without_it(store: Store, now_ms: int) -> None:
    claim = store.claim_phase2("/w", worker_id="w", now_ms=now_ms, lease_ms=60_000)
    assert claim.token and claim.watermark is not None
    store.mark_phase2_succeeded(
        "/w", claim.token, completed_watermark=claim.watermark, selected=[], now_ms=now_ms
    )


def _state(capsys: pytest.CaptureFixture[str], session_id: str) -> str:
    code, out, _ = run_cli(capsys, "memory", "status", "--json")
    assert code == 0
    return next(s["state"] for s in json.loads(out)["session_list"] if s["id"] == session_id)


def test_a_memory_no_consolidation_has_seen_yet_is_not_pruned(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    now_ms = int(time.time() * 1000)
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        _extracted(store, "fresh", days_ago=1, now_ms=now_ms)
    code, out, _ = run_cli(capsys, "memory", "prune", "--max-unused-days", "0", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 0}
    code, out, _ = run_cli(capsys, "memory", "show", "fresh")
    assert code == 0 and "raw" in out


def test_a_pruned_memory_is_said_to_be_pruned_with_what_brings_it_back(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    now_ms = int(time.time() * 1000)
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        _extracted(store, "old", days_ago=45, now_ms=now_ms)
        _consolidated_without_it(store, now_ms)
    code, out, _ = run_cli(capsys, "memory", "prune", "--max-unused-days", "30", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 1}
    assert _state(capsys, "old") == "pruned"
    code, _, err = run_cli(capsys, "memory", "show", "old")
    assert code == 1 and "ME404" in err and "(pruned)" in err
    assert "once its transcript changes" in err and "memory run" not in err


def test_show_says_a_forgotten_session_was_forgotten(
    isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    now_ms = int(time.time() * 1000)
    with open_store(None, data_dir=Env.from_os().dirs.data) as store:
        _extracted(store, "gone-for-good", days_ago=1, now_ms=now_ms)
    code, _, _ = run_cli(capsys, "memory", "forget", "gone-for-good")
    assert code == 0
    code, out, err = run_cli(capsys, "memory", "show", "gone-for-good")
    assert (code, out) == (1, "") and "(forgotten)" in err and "never extracted again" in err
    code, _, err = run_cli(capsys, "memory", "show", "nobody")
    assert code == 1 and "no session 'nobody' in the memory database" in err
