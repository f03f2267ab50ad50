"""Atomic writes, non-blocking reads of regular files and the folder lock of read-change-write edits."""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from skillshelf import fileio
from skillshelf.fileio import (
    FileTooLarge,
    FolderBusy,
    NotRegularFile,
    atomic_file,
    file_identity,
    folder_lock,
    open_regular,
    read_regular_text,
    resolve_path,
    write_atomic,
)


def test_an_atomic_write_replaces_the_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old", encoding="utf-8")
    write_atomic(target, "néw")
    assert target.read_bytes() == "néw".encode()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    write_atomic(target, b"bytes", mode=0o644)
    assert target.read_bytes() == b"bytes" and stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "index.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_file(target) as handle:
        handle.write(b"half of the new")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["index.bin"]


def test_a_fifo_or_folder_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)  # no writer: a blocking open would hang here
    with pytest.raises(NotRegularFile):
        open_regular(fifo)
    with pytest.raises(NotRegularFile):
        open_regular(tmp_path)


def test_a_regular_file_is_read_and_a_symlink_can_be_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"content")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with open_regular(link) as handle:
        assert handle.read() == b"content"
    with pytest.raises(OSError) as caught:
        open_regular(link, follow_symlinks=False)
    assert not isinstance(caught.value, NotRegularFile)


def test_read_regular_text_reads_up_to_its_cap_and_refuses_past_it_or_a_fifo(tmp_path: Path) -> None:
    text = tmp_path / "lock.json"
    text.write_bytes("{}\n\xe9".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        read_regular_text(text, limit=100)
    assert read_regular_text(text, limit=4, errors="replace") == "{}\n\ufffd"
    with pytest.raises(FileTooLarge) as caught:
        read_regular_text(text, limit=3)
    assert "larger than 3 bytes" in str(caught.value)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        read_regular_text(fifo, limit=100)


def test_keep_mode_keeps_an_existing_files_bits_and_gives_a_new_one_the_mode(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("old", encoding="utf-8")
    script.chmod(0o751)
    write_atomic(script, "new", mode=0o644, keep_mode=True, sync=True)
    assert script.read_text(encoding="utf-8") == "new" and stat.S_IMODE(script.stat().st_mode) == 0o751
    fresh = tmp_path / "fresh.toml"
    write_atomic(fresh, "x", mode=0o644, keep_mode=True)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_umask_mode_gives_a_new_file_what_open_would(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "made.txt", b"x", mode="umask")
        with open(tmp_path / "opened.txt", "wb"):
            pass
    finally:
        os.umask(old)
    made, opened = (stat.S_IMODE((tmp_path / n).stat().st_mode) for n in ("made.txt", "opened.txt"))
    assert made == opened == 0o640


def test_private_state_stays_0600_even_over_a_readable_file(tmp_path: Path) -> None:
    state = tmp_path / "queue.json"
    state.write_text("{}", encoding="utf-8")
    state.chmod(0o644)
    write_atomic(state, "{}")
    assert stat.S_IMODE(state.stat().st_mode) == 0o600


def test_a_file_renamed_into_place_has_another_identity(tmp_path: Path) -> None:
    target = tmp_path / "cache.bin"
    write_atomic(target, b"same bytes")
    before = file_identity(os.stat(target))
    assert file_identity(os.stat(target)) == before
    write_atomic(target, b"same bytes")  # same size and content, a new file
    os.utime(target, ns=(before[3], before[3]))  # even with the old modification time
    assert file_identity(os.stat(target)) != before


def test_a_folder_lock_keeps_a_second_holder_out_until_it_is_released(tmp_path: Path) -> None:
    folder = tmp_path / "made" / "here"
    with folder_lock(folder):  # a missing folder is created
        assert folder.is_dir()
        with pytest.raises(FolderBusy), folder_lock(folder, wait=0.1):
            pass  # flock: another open of the folder conflicts, even in the same process
    with folder_lock(folder, wait=0.1):
        pass


def test_a_waiting_holder_gets_the_lock_when_the_first_lets_go(tmp_path: Path) -> None:
    order: list[str] = []

    def second() -> None:
        with folder_lock(tmp_path, wait=5):
            order.append("second")

    with folder_lock(tmp_path):
        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.2)
        order.append("first")
    waiter.join(5)
    assert order == ["first", "second"]


def test_a_file_system_without_flock_runs_the_block_unlocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fileio.fcntl, "flock", refuse)
    ran = False
    with folder_lock(tmp_path, wait=1):
        ran = True
    assert ran


def test_a_folder_lock_on_a_file_or_fifo_fails_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError), folder_lock(fifo):
        pass


@pytest.mark.parametrize("name", ["a", "a/inside", "through"])
def test_a_loop_of_symlinks_is_an_eloop_error_on_every_python(tmp_path: Path, name: str) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    (tmp_path / "through").symlink_to("missing/../a")
    with pytest.raises(OSError) as caught:
        resolve_path(tmp_path / name)
    assert caught.value.errno == errno.ELOOP


def test_resolving_follows_links_and_keeps_a_missing_end_as_written(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    (tmp_path / "dangling").symlink_to("gone")
    base = tmp_path.resolve()
    assert resolve_path(tmp_path / "link" / "file.md") == base / "real" / "file.md"
    assert resolve_path(tmp_path / "dangling") == base / "gone"
    assert resolve_path(tmp_path / "no" / "such") == base / "no" / "such"
