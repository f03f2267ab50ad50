"""`setup --status` reads the hook logs: the newest problem of each, from the end of a long log."""

from __future__ import annotations

from pathlib import Path

from skillshelf.hooks.hooklog import jobs_log_path, log_path
from skillshelf.hooks.status import TAIL_BYTES, last_problems

OK = "2026-12-01T10:00:00Z codex UserPromptSubmit ok 40ms 812 bytes\n"


def test_the_newest_problem_is_found_at_the_end_of_a_long_log_and_a_missing_log_has_none(
    tmp_path: Path,
) -> None:
    log = log_path(tmp_path)
    log.parent.mkdir(parents=True)
    older = "2026-12-01T10:00:01Z codex SessionStart error 9ms SE001: the index is damaged\n"
    newest = older.replace("10:00:01", "11:00:00")
    log.write_text(older + OK * (2 * TAIL_BYTES // len(OK)) + newest + OK, encoding="utf-8")
    last = last_problems(tmp_path)
    assert last.hook_call == newest.strip()
    assert last.job_error is None and not jobs_log_path(tmp_path).exists()


def test_a_partial_first_line_of_the_tail_is_not_reported(tmp_path: Path) -> None:
    log = log_path(tmp_path)
    log.parent.mkdir(parents=True)
    every_cut_a_problem = "timeout " * (TAIL_BYTES // 8)
    log.write_text(every_cut_a_problem + "\n" + OK * 10, encoding="utf-8")
    assert last_problems(tmp_path).hook_call is None


def test_the_newest_job_error_is_reported_not_the_newest_line(tmp_path: Path) -> None:
    jobs = jobs_log_path(tmp_path)
    jobs.parent.mkdir(parents=True)
    started = "hook server 41 listening at /run/hooks.sock\n"
    jobs.write_text(started, encoding="utf-8")
    assert last_problems(tmp_path).job_error is None

    failed = "skillshelf: error SE001: the index is damaged\n  fix: run `skillshelf index --rebuild`\n"
    crashed = 'Traceback (most recent call last):\n  File "x.py", line 1\nOSError: [Errno 28] full\n'
    jobs.write_text(failed + started, encoding="utf-8")
    assert last_problems(tmp_path).job_error == failed.splitlines()[0]
    jobs.write_text(failed + crashed + started * 3, encoding="utf-8")
    assert last_problems(tmp_path).job_error == "OSError: [Errno 28] full"
