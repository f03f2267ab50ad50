"""Private folders, files and the capped logs in them."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from skillshelf import dirs
from skillshelf.dirs import append_to_log, open_output_log
from skillshelf.fileio import FolderBusy, folder_lock


def test_a_log_past_its_cap_keeps_its_newer_half_and_stays_private(tmp_path: Path) -> None:
    log = tmp_path / "state" / "events.log"
    for i in range(40):
        append_to_log(log, f"line {i:02d}\n", max_bytes=200, wait=1)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "line 39" and "line 00" not in lines
    assert lines == [f"line {i:02d}" for i in range(int(lines[0][5:]), 40)]  # a suffix, no gaps
    assert log.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in log.parent.iterdir()] == ["events.log"]


def test_a_line_appended_while_another_process_halves_the_log_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "events.log"
    log.write_text("".join(f"old {i}\n" for i in range(50)), encoding="utf-8")
    halving = threading.Event()
    real_write_atomic = dirs.write_atomic

    def slow_write_atomic(path: Path, data: str, **kwargs: object) -> None:
        halving.set()
        time.sleep(0.3)  # the other append arrives while the halved copy is being written
        real_write_atomic(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dirs, "write_atomic", slow_write_atomic)
    first = threading.Thread(
        target=append_to_log, args=(log, "first\n"), kwargs={"max_bytes": 100, "wait": 5}
    )
    first.start()
    assert halving.wait(5)
    append_to_log(log, "second\n", max_bytes=10_000, wait=5)
    first.join(5)
    assert log.read_text(encoding="utf-8").splitlines()[-2:] == ["first", "second"]


def test_an_output_log_past_its_cap_moves_aside_and_an_open_writer_loses_nothing(tmp_path: Path) -> None:
    log = tmp_path / "jobs.log"
    with open_output_log(log, max_bytes=100, wait=1) as server_errors:  # a long-lived job's stderr
        server_errors.write("x" * 150 + "\n")
        server_errors.flush()
        with open_output_log(log, max_bytes=100, wait=1) as next_job:
            server_errors.write("traceback\n")
            next_job.write("next job\n")
    assert (tmp_path / "jobs.log.1").read_text(encoding="utf-8") == "x" * 150 + "\ntraceback\n"
    assert log.read_text(encoding="utf-8") == "next job\n"
    assert log.stat().st_mode & 0o777 == 0o600


def test_an_output_log_keeps_at_most_two_files(tmp_path: Path) -> None:
    log = tmp_path / "jobs.log"
    for i in range(5):
        with open_output_log(log, max_bytes=10, wait=1) as job:
            job.write(f"job {i} " + "." * 20 + "\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.log", "jobs.log.1"]
    assert log.read_text(encoding="utf-8").startswith("job 4")
    assert (tmp_path / "jobs.log.1").read_text(encoding="utf-8").startswith("job 3")


def test_a_log_whose_folder_stays_locked_is_busy_after_the_wait(tmp_path: Path) -> None:
    log = tmp_path / "events.log"
    with folder_lock(tmp_path), pytest.raises(FolderBusy):
        append_to_log(log, "line\n", max_bytes=100, wait=0.1)
    assert not log.exists()
