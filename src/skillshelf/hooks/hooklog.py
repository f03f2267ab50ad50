"""The hook logs under ``<state dir>/hooks/``.

``hooks.log``: one line per hook call, and the problems a call met without failing (a usage
event it could not record). Past 1 MB it keeps its newer half; every writer holds the folder's
lock (:func:`~skillshelf.dirs.append_to_log`).

``jobs.log``: the error output of the jobs the hooks start detached (the hook server, a
warm-up, a memory run). Those processes keep the file open and write without the lock, so it
is never rewritten: past 1 MB the next job renames it to ``jobs.log.1``
(:func:`~skillshelf.dirs.open_output_log`) and a job still running writes on there.

A log that cannot be written is given up silently (the hook's answer matters more).
``setup --status`` reads the newest problem of each back (:func:`~skillshelf.hooks.status.last_problems`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO

from skillshelf.dirs import append_to_log, open_output_log

__all__ = ["jobs_log_path", "log_path", "open_jobs_log", "write_log_line"]

MAX_LOG_BYTES = 1024 * 1024
LOG_WAIT = 1.0  # seconds a hook waits for another process's write to the log


def log_path(state_dir: Path) -> Path:
    return state_dir / "hooks" / "hooks.log"


def jobs_log_path(state_dir: Path) -> Path:
    return state_dir / "hooks" / "jobs.log"


def write_log_line(state_dir: Path, text: str) -> None:
    """Append ``text`` (one line, time-stamped in UTC) to the hook log."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    try:
        append_to_log(log_path(state_dir), f"{stamp}Z {text}\n", max_bytes=MAX_LOG_BYTES, wait=LOG_WAIT)
    except OSError:
        return


def open_jobs_log(state_dir: Path) -> IO[str]:
    """The jobs log opened for appending, as a detached job's stderr. Raises ``OSError``."""
    return open_output_log(jobs_log_path(state_dir), max_bytes=MAX_LOG_BYTES, wait=LOG_WAIT)
