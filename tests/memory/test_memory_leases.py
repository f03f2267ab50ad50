"""Lease holders: this process is alive; an ended process, a zombie or a reused pid are gone;
a lease is stuck, expired, silent or live by the rules of ``memory.leases``."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

from skillshelf.memory.leases import holder_alive, judge, process_start, this_holder
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import LeaseHolder, LeaseRow
from testkit import missing


def _lease(holder: LeaseHolder | None, *, until: int | None = 10_000, beat: int | None = 1_000) -> LeaseRow:
    return LeaseRow(
        kind="memory_stage1",
        key="s",
        token="t",
        worker_id="w",
        holder=holder,
        started_at_ms=0,
        lease_until_ms=until,
        beat_at_ms=beat,
    )


def test_this_process_is_a_live_holder() -> None:
    me = this_holder(MemorySettings())
    assert me.pid == os.getpid() and holder_alive(me)


def test_an_ended_process_a_zombie_and_a_reused_pid_are_gone() -> None:
    if not os.path.exists("/proc/self/stat"):
        missing("/proc is not available (process start times are read from it on Linux)")
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert not holder_alive(LeaseHolder(host="h", pid=int(ended.stdout)))
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        while True:  # exited but not yet waited for: a zombie
            with open(f"/proc/{zombie.pid}/stat", encoding="utf-8") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
        assert process_start(zombie.pid) is None
        assert not holder_alive(LeaseHolder(host="h", pid=zombie.pid))
    finally:
        zombie.wait()
    me = this_holder(MemorySettings())
    assert me.start and not holder_alive(replace(me, start=me.start + "0"))  # same pid, another start


def test_judge_applies_the_rules_in_order() -> None:
    here = LeaseHolder(host="here", pid=7, beat_ms=1_000)

    def verdict(lease: LeaseRow, *, alive: bool = True, lease_ms: int = 3_600_000) -> str:
        return judge(lease, now_ms=5_000, lease_ms=lease_ms, host="here", alive=lambda h: alive).state

    assert verdict(_lease(here)) == "live"
    assert verdict(_lease(here), alive=False) == "stuck"
    assert verdict(_lease(replace(here, host="there")), alive=False) == "live"  # not ours to probe
    assert verdict(_lease(here, until=4_000)) == "expired"
    assert verdict(_lease(here, beat=0), lease_ms=1_000) == "silent"  # 5 s > max(1 s, 2 x 1 s)
    assert verdict(_lease(here, beat=4_000), lease_ms=1_000) == "live"  # 1 s < max(1 s, 2 x 1 s)
    assert verdict(_lease(replace(here, beat_ms=4_000), beat=0), lease_ms=1_000) == "live"  # 5 s < 8 s
    assert verdict(_lease(None, beat=None), lease_ms=1_000) == "live"  # old rows: 90 s beats assumed


def test_a_short_lease_makes_holders_beat_at_least_three_times_per_lease() -> None:
    assert MemorySettings().beat_seconds == 90.0
    assert MemorySettings().with_overrides(lease_seconds=1.5).beat_seconds == 0.5
