"""The hook log, ``<state dir>/hooks/hooks.log``: one line per hook call, and the problems a
call met without failing (a usage event it could not record).

Past 1 MB the log keeps its newer half, rewritten in place: the hook server and the jobs the
hooks start detached write their errors to it. A log that cannot be written is given up
silently (the hook's answer matters more).
"""

from __future__ import annotations

import time
from pathlib import Path

from skillshelf.dirs import append_to_log

__all__ = ["log_path", "write_log_line"]

MAX_LOG_BYTES = 1024 * 1024
LOG_WAIT = 1.0  # seconds a hook waits for another process's write to the log


def log_path(state_dir: Path) -> Path:
    return state_dir / "hooks" / "hooks.log"


def write_log_line(state_dir: Path, text: str) -> None:
    """Append ``text`` (one line, time-stamped in UTC) to the hook log."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    try:
        append_to_log(
            log_path(state_dir), f"{stamp}Z {text}\n", max_bytes=MAX_LOG_BYTES, wait=LOG_WAIT, in_place=True
        )
    except OSError:
        return
