"""Who holds a lease, and whether that holder is gone.

A claim records its holder (:func:`this_holder`): host name, process id, the process's start
(``<boot id>:<start time in clock ticks>`` from ``/proc`` on Linux) and its heartbeat interval.
A running job's lease is then, for a reader on host H whose lease length is L:

- ``stuck``: held by a process of H that is gone: no such pid, a zombie, or a pid now used by a
  process that started at another time or before a reboot. Free at once.
- ``expired``: past its ``lease_until``: any claim may take it.
- ``silent``: no heartbeat for longer than max(L, 2 x the holder's interval): a holder elsewhere
  (or a hung one) stopped beating. So ``-c memory.lease_seconds=N`` shortens how long a silent
  lease is honoured, but never below what a live holder's own heartbeats keep up.
- ``live``: anything else.

Holders on other hosts cannot be probed: they can only fall silent or expire. Where ``/proc``
is missing (macOS), liveness is ``kill(pid, 0)`` and a reused pid is not told apart, so such a
lease waits for its silence. Two containers sharing a host name but not a pid namespace would
take each other's holders for gone: give them distinct host names.

Freeing a lease (:func:`free_leases`) costs the job one retry: a holder that died may have
died of its input, and a transcript that kills every worker must not be retried forever. (Codex
takes over an expired lease without lowering ``retry_remaining``, so such a transcript loops
there.) A holder stopped by Ctrl-C or SIGTERM hands its leases back first and costs nothing
(``cli/interrupt.py``); only a hard death (SIGKILL, out of memory, a lost machine) is counted.
"""

from __future__ import annotations

import functools
import os
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import LeaseHolder, LeaseRow, Store

__all__ = [
    "LeaseVerdict",
    "free_leases",
    "holder_alive",
    "judge",
    "judge_leases",
    "process_start",
    "this_holder",
]

LeaseState = Literal["live", "stuck", "expired", "silent"]
LEGACY_BEAT_MS = 90_000  # leases taken before holders were recorded: the heartbeat default then


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaseVerdict:
    """One running job's lease and what it is (``reason`` says why, with a code unless live)."""

    lease: LeaseRow
    state: LeaseState
    reason: str

    def to_dict(self, now_ms: int) -> dict[str, object]:
        holder = self.lease.holder
        last = self.lease.beat_at_ms or self.lease.started_at_ms
        return {
            "kind": self.lease.kind,
            "key": self.lease.key,
            "state": self.state,
            "reason": self.reason,
            "worker": self.lease.worker_id,
            "host": holder.host if holder else None,
            "pid": holder.pid if holder else None,
            "last_beat_s_ago": round((now_ms - last) / 1000, 1),
            "lease_left_s": None
            if self.lease.lease_until_ms is None
            else round((self.lease.lease_until_ms - now_ms) / 1000, 1),
        }


@functools.cache
def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return ""


def process_start(pid: int) -> str | None:
    """``<boot id>:<start ticks>`` of a running process, "" when it runs but its start cannot
    be read (no ``/proc``), None when there is no such process or it is a zombie."""
    if pid <= 0:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None if Path("/proc/self/stat").exists() else _kill_probe(pid)
    except OSError:
        return _kill_probe(pid)
    fields = stat[stat.rfind(")") + 2 :].split()  # the command name may hold spaces and parentheses
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return f"{_boot_id()}:{fields[19]}"


def _kill_probe(pid: int) -> str | None:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:  # it exists under another user, or cannot be asked about: take it as running
        return ""
    return ""


def this_holder(settings: MemorySettings) -> LeaseHolder:
    """This process as a lease holder."""
    pid = os.getpid()
    return LeaseHolder(
        host=socket.gethostname(),
        pid=pid,
        start=process_start(pid) or "",
        beat_ms=int(settings.beat_seconds * 1000),
    )


def holder_alive(holder: LeaseHolder) -> bool:
    """Whether ``holder``'s process still runs on this host (the same process, not a reused pid)."""
    start = process_start(holder.pid)
    if start is None:
        return False
    return not (holder.start and start and start != holder.start)


def judge(
    lease: LeaseRow, *, now_ms: int, lease_ms: int, host: str, alive: Callable[[LeaseHolder], bool]
) -> LeaseVerdict:
    """What ``lease`` is for a reader on ``host`` whose lease length is ``lease_ms`` (see the module)."""
    holder = lease.holder
    if holder is not None and holder.host == host and not alive(holder):
        return LeaseVerdict(
            lease=lease,
            state="stuck",
            reason=f"ME050: its holder, process {holder.pid} on {host}, is gone",
        )
    if lease.lease_until_ms is not None and lease.lease_until_ms <= now_ms:
        ago = (now_ms - lease.lease_until_ms) / 1000
        return LeaseVerdict(lease=lease, state="expired", reason=f"ME051: the lease expired {ago:.0f} s ago")
    last = lease.beat_at_ms or lease.started_at_ms
    beat = holder.beat_ms if holder is not None and holder.beat_ms > 0 else LEGACY_BEAT_MS
    patience = max(lease_ms, 2 * beat)
    if now_ms - last > patience:
        who = f"{holder.host}:{holder.pid}" if holder else (lease.worker_id or "its holder")
        return LeaseVerdict(
            lease=lease,
            state="silent",
            reason=f"ME052: no heartbeat from {who} for {(now_ms - last) / 1000:.0f} s "
            f"(more than {patience / 1000:.0f} s)",
        )
    return LeaseVerdict(lease=lease, state="live", reason="held")


def judge_leases(store: Store, settings: MemorySettings, *, now_ms: int) -> list[LeaseVerdict]:
    """Every running job's lease, judged from this host."""
    host = socket.gethostname()
    lease_ms = int(settings.lease_seconds * 1000)
    return [
        judge(lease, now_ms=now_ms, lease_ms=lease_ms, host=host, alive=holder_alive)
        for lease in store.running_leases()
    ]


def free_leases(store: Store, verdicts: Iterable[LeaseVerdict], *, now_ms: int) -> list[LeaseVerdict]:
    """Free every lease that is not live (if still held as judged); returns those freed."""
    freed = []
    for verdict in verdicts:
        if verdict.state == "live":
            continue
        reason = f"{verdict.reason}; lease freed"
        if store.free_lease(verdict.lease, reason=reason, now_ms=now_ms, count_attempt=True):
            freed.append(verdict)
    return freed
