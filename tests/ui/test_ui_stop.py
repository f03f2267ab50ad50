"""`skillshelf ui` stopped by Ctrl-C or SIGTERM at any moment of its start: it exits, with the
status every command gives (130, 143), and frees its port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testkit import IsolatedHome

DELAYS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
"""Seconds between the URL line and the signal: the watch starts within them."""
EXIT_SECONDS = 10


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _start(cwd: Path, port: int) -> subprocess.Popen[str]:
    """``skillshelf ui`` on ``port``, watching (the default), once it printed its URL; SIGINT
    reaches it as it reaches a command in a terminal."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillshelf.cli.main", "ui", "--port", str(port), "--no-builtin"],
        cwd=cwd,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "token=" in line, proc.communicate(timeout=30)
    return proc


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_at_any_moment_after_start_stops_the_page_and_frees_its_port(
    tmp_path: Path, isolated_home: IsolatedHome, signum: int, status: int
) -> None:
    project = tmp_path / "project"
    (project / ".agents" / "skills").mkdir(parents=True)
    hung: list[float] = []
    for delay in DELAYS:
        port = _free_port()
        proc = _start(project, port)
        try:
            time.sleep(delay)
            proc.send_signal(signum)
            try:
                _, err = proc.communicate(timeout=EXIT_SECONDS)
            except subprocess.TimeoutExpired:
                hung.append(delay)
                continue
        finally:
            proc.kill()
            proc.wait()
        assert proc.returncode == status, err
        assert "skillshelf ui: stopped" in err and "Traceback" not in err
        assert _port_free(port)
    assert not hung, f"still running {EXIT_SECONDS} s after the signal sent at these delays: {hung}"
