"""The hook logs as ``skillshelf setup --status`` reads them: the newest problem in each
(:func:`last_problems`), from the last :data:`TAIL_BYTES` of the log."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from skillshelf.fileio import open_regular
from skillshelf.hooks.hooklog import jobs_log_path, log_path

__all__ = ["TAIL_BYTES", "LastProblems", "last_problems"]

TAIL_BYTES = 64 * 1024  # how much of a log's end last_problems reads
_PROBLEMS = ("error", "timeout")  # a hook call's status words that are problems


@dataclass(frozen=True, slots=True, kw_only=True)
class LastProblems:
    """The newest problem line of each hook log (``None``: none in its last 64 KB, or no log)."""

    hook_call: str | None
    job_error: str | None


def last_problems(state_dir: Path) -> LastProblems:
    """The newest hook call that failed or timed out, and the newest error a detached job wrote
    (lines such as a hook server's start-up notes are not errors)."""
    calls = _tail_lines(log_path(state_dir))
    jobs = _tail_lines(jobs_log_path(state_dir))
    return LastProblems(
        hook_call=next((line for line in reversed(calls) if _is_problem(line)), None),
        job_error=next((line for line in reversed(jobs) if _is_job_error(line)), None),
    )


def _is_problem(line: str) -> bool:
    words = line.split(maxsplit=4)  # stamp, agent, event, status, the rest
    return len(words) >= 4 and words[3] in _PROBLEMS


_JOB_ERROR = re.compile(r"(?i:\berror\b)|^[\w.]*(?:Error|Exception)\b")
"""An error line of a job's output: the word ``error`` (``skillshelf: error CODE: ...``, a
finding's ``path: error CODE``) or a Python exception's last line (``OSError: ...``)."""


def _is_job_error(line: str) -> bool:
    return _JOB_ERROR.search(line) is not None


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
