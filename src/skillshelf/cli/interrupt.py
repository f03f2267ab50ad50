"""SIGTERM as Ctrl-C: every skillshelf command unwinds the same way on either.

A memory run stopped by Ctrl-C hands its leases back (no retry used); one stopped by SIGTERM
(``kill``, a service manager, a CI timeout) must too, or each stop would cost its sessions a
retry. Inside :func:`sigterm_as_interrupt`, SIGTERM raises :class:`Terminated`, a
``KeyboardInterrupt``, in the main thread; the command then exits 143 instead of 130.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["Terminated", "exit_code_of", "sigterm_as_interrupt"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread (see the module)."""


def exit_code_of(interrupt: BaseException) -> int:
    """130 for Ctrl-C, 143 (128 + SIGTERM) for a :class:`Terminated`."""
    return 128 + int(signal.SIGTERM) if isinstance(interrupt, Terminated) else 130


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    raise Terminated


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated` in the main thread; the handler before
    is put back after. Outside the main thread (no handler can be set there) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
