"""What a watch of skill folders checks beside the events it is sent.

- :func:`changed_since`: whether anything in the watched folders changed since a scan began. A
  watch is put in place some time after the first scan (about half a second in a server); a skill
  written in between sends no event, so once the watch is in place this decides whether to reload.
- :func:`unlistable` and :func:`restart_when_listable`: a folder that cannot be read (a permission
  change, a folder being replaced; at the first scan, before the watch was in place, or since)
  cannot be watched either, so no event says when it can be read again; it is looked at again
  after a wait that doubles up to :data:`RETRY_MAX_S`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

import anyio
import anyio.to_thread

__all__ = ["CLOCK_SLACK_NS", "RETRY_MAX_S", "changed_since", "restart_when_listable", "unlistable"]

CLOCK_SLACK_NS = 50_000_000
"""How far before the scan began a file's time may be and still count as changed since: the kernel
stamps files from a clock that can lag the one :func:`time.time_ns` reads by a tick (up to 10 ms;
a change seen twice costs one more reload, a change missed costs the skill)."""
RETRY_FIRST_S = 0.2
"""The first wait before a folder that could not be read is looked at again."""
RETRY_MAX_S = 5.0
"""The longest wait between looks at a folder that still cannot be read (a folder unreadable on
purpose is looked at this often for as long as the watch runs: one failed open each time)."""


def changed_since(folders: Iterable[Path], roots: Iterable[Path], since_ns: int) -> bool:
    """Whether a folder of ``folders`` or an entry in one, or a folder of ``roots`` (the roots
    scanned, a root missing then made since included), changed at or after ``since_ns`` (less
    :data:`CLOCK_SLACK_NS`). The change time decides: every write, rename, link and chmod sets
    it to the clock, and no program can set it back or ahead (a modification time can be: one
    set ahead would count as a change forever). A change time past now is ignored for the same
    reason. A folder that cannot be read counts as unchanged here."""
    window = range(since_ns - CLOCK_SLACK_NS, time.time_ns() + CLOCK_SLACK_NS)
    for root in roots:
        try:
            if os.stat(root).st_ctime_ns in window:
                return True
        except OSError:
            continue
    for folder in folders:
        try:
            if os.stat(folder).st_ctime_ns in window:
                return True
            with os.scandir(folder) as listing:
                for entry in listing:
                    try:
                        if entry.stat(follow_symlinks=False).st_ctime_ns in window:
                            return True
                    except OSError:
                        continue
        except OSError:
            continue
    return False


def unlistable(folders: Iterable[Path]) -> frozenset[Path]:
    """The folders of ``folders`` that are there but cannot be listed (one gone is not)."""
    out: set[Path] = set()
    for folder in folders:
        try:
            with os.scandir(folder):
                pass
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            out.add(folder)
    return frozenset(out)


async def restart_when_listable(blocked: frozenset[Path], restart: anyio.Event) -> None:
    """Set ``restart`` (the watch restarts, reloading) once a folder of ``blocked`` can be listed or
    is gone: look again after :data:`RETRY_FIRST_S`, the wait doubling up to :data:`RETRY_MAX_S`."""
    wait = RETRY_FIRST_S
    while await anyio.to_thread.run_sync(unlistable, blocked) == blocked:
        await anyio.sleep(wait)
        wait = min(wait * 2, RETRY_MAX_S)
    restart.set()
