"""The hook logs under ``<state dir>/hooks/``.

``hooks.log``: one line per hook call, and the problems a call met without failing (a usage
event it could not record). Past 1 MB it keeps its newer half; every writer holds the folder's
lock (:func:`~skillshelf.dirs.append_to_log`).

``jobs.log``: the error output of the jobs the hooks start detached (the hook server, a
warm-up, a memory run). Those processes keep the file open and write without the lock, so it
is never rewritten: past 1 MB the next job renames it to ``jobs.log.1``
(:func:`~skillshelf.dirs.open_output_log`) and a job still running writes on there.

A log that cannot be written is given up silently (the hook's answer matters more).
:func:`last_problems` reads the newest problem of each back for ``setup --status``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from skillshelf.dirs import append_to_log, open_output_log
from skillshelf.fileio import open_regular

__all__ = ["LastProblems", "jobs_log_path", "last_problems", "log_path", "open_jobs_log", "write_log_line"]

MAX_LOG_BYTES = 1024 * 1024
LOG_WAIT = 1.0  # seconds a hook waits for another process's write to the log
TAIL_BYTES = 64 * 1024  # how much of a log's end last_problems reads
_PROBLEMS = ("error", "timeout")  # a hook call's status words that are problems


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


@dataclass(frozen=True, slots=True, kw_only=True)
class LastProblems:
    """The newest problem line of each hook log (``None``: none in its last 64 KB, or no log)."""

    hook_call: str | None
    job_output: str | None


def last_problems(state_dir: Path) -> LastProblems:
    """The newest hook call that failed or timed out, and the newest line a detached job wrote."""
    calls = _tail_lines(log_path(state_dir))
    return LastProblems(
        hook_call=next((line for line in reversed(calls) if _is_problem(line)), None),
        job_output=next((line for line in reversed(_tail_lines(jobs_log_path(state_dir))) if line), None),
    )


def _is_problem(line: str) -> bool:
    words = line.split(maxsplit=4)  # stamp, agent, event, status, the rest
    return len(words) >= 4 and words[3] in _PROBLEMS


def _tail_lines(path: Path) -> list[str]:
    """The whole lines of the last :data:`TAIL_BYTES` of ``path``, stripped; [] if unreadable."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - TAIL_BYTES))
            data = f.read(TAIL_BYTES)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    return [line.strip() for line in (lines[1:] if size > TAIL_BYTES else lines)]
