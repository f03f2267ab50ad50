"""Old hook-call claims are pruned after the answer, never before it, a bounded batch a call:
a claims folder of any size costs no answer, and one grown huge shrinks call by call."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from hooks_helpers import context_text, hook_input, make_project, run_python

from skillshelf.hooks.claims import (
    CLAIM_SECONDS,
    MARK_SECONDS,
    MAX_CLAIMS,
    SESSION_MARK,
    marks_folder,
    prune_claims,
)
from skillshelf.hooks.runner import log_path, run_hook


def _claims(state: Path) -> Path:
    return state / "hooks" / "claims"


def _planted(state: Path, count: int, *, age: float) -> list[Path]:
    """``count`` claims ``age`` seconds old, newest first (each 10 ms older than the one before)."""
    folder = _claims(state)
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    planted = []
    for n in range(count):
        path = folder / f"{n:040x}"
        path.write_bytes(b"hook")
        os.utime(path, (now - age - n / 100, now - age - n / 100))
        planted.append(path)
    return planted


def test_a_hook_call_is_answered_before_any_old_claim_is_pruned(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    stale = _planted(env.dirs.state, 40, age=CLAIM_SECONDS + 5)
    raw = hook_input("UserPromptSubmit", env, prompt="write the release notes")
    run = run_hook("claude", "UserPromptSubmit", raw, env=env, state_dir=env.dirs.state, deadline=0)
    assert run.status == "ok"
    assert all(path.exists() for path in stale)
    prune_claims(env.dirs.state)
    assert [path.name for path in _claims(env.dirs.state).iterdir() if path in stale] == []
    left = os.listdir(_claims(env.dirs.state))
    assert len([name for name in left if not name.startswith(SESSION_MARK)]) == 1  # the call's own claim


def test_each_prune_takes_out_a_bounded_batch_until_a_huge_folder_is_clean(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    _planted(env.dirs.state, 100, age=CLAIM_SECONDS + 5)
    counts = []
    for _ in range(7):
        prune_claims(env.dirs.state, seconds=0, batch=16)
        counts.append(len(os.listdir(_claims(env.dirs.state))))
    assert counts == [84, 68, 52, 36, 20, 4, 0]


def test_a_folder_past_its_cap_keeps_the_newest_claims_however_many_passes_it_takes(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    planted = _planted(env.dirs.state, MAX_CLAIMS + 300, age=0)
    prune_claims(env.dirs.state, seconds=60, batch=MAX_CLAIMS + 100)
    assert sorted(os.listdir(_claims(env.dirs.state))) == sorted(p.name for p in planted[:MAX_CLAIMS])


def test_a_missing_claims_folder_is_nothing_to_prune(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    prune_claims(env.dirs.state)
    assert not _claims(env.dirs.state).exists()


def test_the_hook_command_answers_and_then_prunes_old_claims(isolated_home: Any) -> None:
    env = make_project(isolated_home)
    stale = _planted(env.dirs.state, 30, age=CLAIM_SECONDS + 5)
    raw = hook_input("UserPromptSubmit", env, prompt="write the release notes")
    done = run_python(
        ["-m", "skillshelf.cli.main", "hook", "UserPromptSubmit", "--agent", "claude"],
        env.cwd,
        raw,
        SKILLSHELF_HOOK_DEADLINE="0",
    )
    assert done.returncode == 0 and "- release-notes: " in context_text(done.stdout)
    assert not any(path.exists() for path in stale)
    assert log_path(env.dirs.state).read_text(encoding="utf-8").split()[3] == "ok"


def _marks_filed(state: Path, week: int | None, count: int, *, age: float) -> set[Path]:
    """``count`` session marks ``age`` seconds old in the folder of ``week`` (None: the marks
    folder itself, where marks were once kept)."""
    folder = marks_folder(state) / str(week) if week is not None else marks_folder(state)
    folder.mkdir(parents=True, exist_ok=True)
    then = time.time() - age
    planted = set()
    for n in range(count):
        path = folder / f"{SESSION_MARK}{week}-{n:036x}"
        path.touch()
        os.utime(path, (then, then))
        planted.add(path)
    return planted


def test_week_old_marks_go_a_bounded_batch_a_call_however_many_young_ones_the_folder_holds(
    isolated_home: Any,
) -> None:
    env = make_project(isolated_home)
    state = env.dirs.state
    week = int(time.time() // MARK_SECONDS)
    young = _marks_filed(state, week, 200, age=60) | _marks_filed(state, week - 1, 200, age=60)
    old = _marks_filed(state, week - 2, 300, age=MARK_SECONDS + 60)
    old |= _marks_filed(state, None, 100, age=0)  # filed outside a week's folder: never read
    left = []
    for _ in range(8):
        prune_claims(state, batch=64)
        left.append(len([path for path in old if path.exists()]))
    assert all(0 < before - after <= 64 for before, after in zip([400, *left[:5]], left[:6], strict=True))
    assert left[6:] == [0, 0] and all(path.exists() for path in young)
    assert sorted(path.name for path in marks_folder(state).iterdir()) == sorted([str(week - 1), str(week)])
