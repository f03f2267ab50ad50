"""After `memory.scope` switches between project and global, the other kind's memories are kept:
`memory status` names them and says how to remove them, a plain `memory prune` leaves them, and
`memory prune --other-scopes` deletes them and empties their folders, the current scope's kept;
`memory reset` deletes the scope the setting writes, and with a config it cannot read (a skipped
layer, an unusable setting) `reset` and `forget` say so and `reset` deletes nothing."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import run_cli

from skillshelf.env import Env
from skillshelf.memory.layout import GLOBAL_SCOPE, scope_dir
from skillshelf.memory.store import SessionRow, Store, open_store
from skillshelf.memory.store.base import ClaimLimits

OLD = "project:/w"


def _memory(store: Store, session_id: str, scope: str, now_ms: int) -> None:
    store.register_sessions(
        [
            SessionRow(
                id=session_id,
                source="codex",
                path=f"/t/{session_id}.jsonl",
                cwd="/w",
                project="/w",
                updated_at_ms=now_ms - 1000,
                first_user_message="task",
            )
        ],
        now_ms,
    )
    limits = ClaimLimits(min_idle_ms=0, max_age_ms=86_400_000, running_cap=10)
    (claim,) = store.claim_stage1(
        worker_id="w", now_ms=now_ms, lease_ms=60_000, limits=limits, limit=1, only=[session_id]
    )
    assert store.mark_stage1_succeeded(
        claim,
        scope=scope,
        raw_memory="use make check",
        rollout_summary="tests",
        rollout_slug=None,
        now_ms=now_ms,
    )


@pytest.fixture
def switched(isolated_home: Any) -> Path:
    """Memories of a project scope and of the global one, with memory.scope now "global"."""
    data = Env.from_os().dirs.data
    now = int(time.time() * 1000)
    with open_store(None, data_dir=data) as store:
        _memory(store, "old", OLD, now)
        _memory(store, "new", GLOBAL_SCOPE, now)
    for scope in (OLD, GLOBAL_SCOPE):
        folder = scope_dir(data, scope)
        folder.mkdir(parents=True)
        (folder / "MEMORY.md").write_text("# Task Group: tests\n", encoding="utf-8")
    isolated_home.write_user_config('[memory]\nscope = "global"\n')
    return data


def _outputs(data: Path) -> list[str]:
    with open_store(None, data_dir=data) as store:
        return sorted(r.scope for r in store.outputs())


def test_status_names_the_scopes_left_from_before_the_switch(
    switched: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "memory", "status", "--json")
    assert code == 0
    assert json.loads(out)["other_scopes"] == [{"scope": OLD, "outputs": 1}]

    code, out, _ = run_cli(capsys, "memory", "status")
    assert code == 0 and "other scopes: 1 memories" in out and "memory prune --other-scopes" in out
    assert "agents do not read them until memory.scope is switched back" in " ".join(out.split())

    code, out, _ = run_cli(capsys, "memory", "status", "-c", "memory.scope=project", "--json")
    assert json.loads(out)["other_scopes"] == [{"scope": GLOBAL_SCOPE, "outputs": 1}]


def test_prune_keeps_them_unless_asked_and_then_removes_only_them(
    switched: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "memory", "prune", "--json")
    assert code == 0 and json.loads(out) == {"pruned": 0}
    assert _outputs(switched) == [GLOBAL_SCOPE, OLD]

    code, out, _ = run_cli(capsys, "memory", "prune", "--other-scopes", "--json")

    assert code == 0
    other = json.loads(out)["other_scopes"]
    assert (other["scope"], other["rows"], other["folders"]) == (OLD, 1, [str(scope_dir(switched, OLD))])
    assert _outputs(switched) == [GLOBAL_SCOPE]
    assert not (scope_dir(switched, OLD) / "MEMORY.md").exists()
    assert (scope_dir(switched, GLOBAL_SCOPE) / "MEMORY.md").is_file()
    code, out, _ = run_cli(capsys, "memory", "status", "--json")
    assert json.loads(out)["other_scopes"] == []


def test_reset_deletes_the_scope_memory_scope_writes(
    switched: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "memory", "reset", "--yes", "--json")

    assert code == 0 and json.loads(out)["scope"] == GLOBAL_SCOPE
    assert _outputs(switched) == [OLD]
    assert not (scope_dir(switched, GLOBAL_SCOPE) / "MEMORY.md").exists()
    assert (scope_dir(switched, OLD) / "MEMORY.md").is_file()


@pytest.mark.parametrize("command", [("reset", "--yes"), ("forget", "old")])
def test_reset_and_forget_report_a_skipped_config_layer_and_reset_deletes_nothing(
    switched: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    isolated_home.write_user_config("bad = [\n")

    code, _, err = run_cli(capsys, "memory", *command)

    assert code == 1 and "CF100" in err
    if command[0] == "reset":
        assert "nothing deleted" in err and _outputs(switched) == [GLOBAL_SCOPE, OLD]


@pytest.mark.parametrize("command", [("reset", "--yes"), ("forget", "old")])
def test_reset_and_forget_refuse_an_unusable_memory_setting(
    switched: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    isolated_home.write_user_config('[memory]\nscope = "bogus"\n')

    code, _, err = run_cli(capsys, "memory", *command)

    assert code == 2 and "ME023" in err
    assert _outputs(switched) == [GLOBAL_SCOPE, OLD]
