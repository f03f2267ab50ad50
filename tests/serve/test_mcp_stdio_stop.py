"""`skillshelf serve` over stdio stops when told: Ctrl-C (SIGINT) and SIGTERM end it at once, in a
terminal and through a pipe, with 130 / 143 and nothing said; the end of stdin ends it with 0."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import subprocess
import sys
import termios
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest
from serve_helpers import serve_args, write_skill

pytestmark = pytest.mark.usefixtures("isolated_home")

HANG_GUARD = 20.0
"""Seconds a stopped server gets to exit: a guard against a hang (the defect was a wait for the
next line of stdin), not a measure of speed."""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "stop", "version": "0"},
    },
}


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "pdf-forms", "Fill in PDF forms.", "# PDF forms\n")
    return root


def _popen(root: Path, cwd: Path, stdin: Any, **extra: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *serve_args(root, "--no-watch")],
        cwd=cwd,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **extra,
    )


def _handshake(write: Any, stdout: IO[bytes] | None) -> None:
    """Answer of ``initialize`` read back: the server is serving, blocked on its next line."""
    assert stdout is not None
    write((json.dumps(INITIALIZE) + "\n").encode())
    answer = json.loads(stdout.readline())
    assert answer["id"] == 1 and "result" in answer


def _ended(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    """The exit code and stderr of ``proc``, which must end within :data:`HANG_GUARD`."""
    try:
        proc.wait(timeout=HANG_GUARD)  # its output is a few lines: no pipe fills meanwhile
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the server was still running {HANG_GUARD:.0f} s after being stopped") from None
    assert proc.stderr is not None
    return proc.returncode, proc.stderr.read().decode("utf-8", "replace")


@contextmanager
def _piped_server(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = _popen(_root(tmp_path), tmp_path, subprocess.PIPE)
    try:
        assert proc.stdin is not None
        stdin = proc.stdin

        def write(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        _handshake(write, proc.stdout)
        yield proc
    finally:
        _reap(proc)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _set_controlling_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@contextmanager
def _terminal_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """The server with a terminal (a pty) as its stdin and controlling terminal, as a user starts
    it in a shell; yields the process and the terminal's master side."""
    master, slave = pty.openpty()
    try:
        proc = _popen(
            _root(tmp_path),
            tmp_path,
            slave,
            start_new_session=True,
            preexec_fn=_set_controlling_terminal,
        )
    finally:
        os.close(slave)
    try:
        _handshake(lambda data: os.write(master, data), proc.stdout)
        yield proc, master
    finally:
        _reap(proc)
        os.close(master)


def test_sigint_stops_a_server_whose_stdin_stays_open_with_130_and_no_aborted(tmp_path: Path) -> None:
    with _piped_server(tmp_path) as proc:
        proc.send_signal(signal.SIGINT)
        code, err = _ended(proc)
    assert code == 130, err
    assert "Aborted" not in err


def test_sigterm_stops_a_server_whose_stdin_stays_open_with_143_and_no_aborted(tmp_path: Path) -> None:
    with _piped_server(tmp_path) as proc:
        proc.terminate()
        code, err = _ended(proc)
    assert code == 143, err
    assert "Aborted" not in err


def test_ctrl_c_in_a_terminal_stops_the_server_with_130_and_no_aborted(tmp_path: Path) -> None:
    with _terminal_server(tmp_path) as (proc, master):
        os.write(master, b"\x03")  # the terminal turns it into SIGINT for its foreground group
        code, err = _ended(proc)
    assert code == 130, err
    assert "Aborted" not in err


def test_closing_stdin_ends_the_server_with_0_saying_nothing_after_its_start_line(tmp_path: Path) -> None:
    with _piped_server(tmp_path) as proc:
        assert proc.stdin is not None
        proc.stdin.close()
        code, err = _ended(proc)
    assert code == 0, err
    assert err.splitlines() == ["skillshelf: serving 1 skill over MCP on stdio"]
