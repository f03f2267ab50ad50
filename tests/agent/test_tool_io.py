"""run_clipped: a command interrupted while it runs does not outlive the agent."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from skillshelf.agent.tool_io import run_clipped
from skillshelf.cli.interrupt import Terminated


@pytest.fixture
def alarm() -> Iterator[None]:
    before = signal.getsignal(signal.SIGALRM)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, before)


def _raise_after(seconds: float, error: type[BaseException]) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise error

    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)


@pytest.mark.parametrize("error", [KeyboardInterrupt, Terminated])
def test_an_interrupt_kills_the_running_command_and_propagates(
    tmp_path: Path, alarm: None, error: type[BaseException]
) -> None:
    _raise_after(0.3, error)
    started = time.monotonic()
    with pytest.raises(error):
        run_clipped("sleep 2; touch marker", cwd=tmp_path, timeout=30, limit=1000)
    assert time.monotonic() - started < 1.5
    time.sleep(2.5)
    assert not (tmp_path / "marker").exists()
