"""SIGTERM as Ctrl-C: every skillshelf command unwinds the same way on either.

A memory run stopped by Ctrl-C hands its leases back (no retry used); one stopped by SIGTERM
(``kill``, a service manager, a CI timeout) must too, or each stop would cost its sessions a
retry. Inside :func:`sigterm_as_interrupt`, SIGTERM raises :class:`Terminated`, a
``KeyboardInterrupt``, in the main thread; the command then exits 143 instead of 130.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn

__all__ = ["Terminated", "exit_code_of", "leave_interrupted", "sigterm_as_interrupt"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread (see the module)."""


def exit_code_of(interrupt: BaseException) -> int:
    """130 for Ctrl-C, 143 (128 + SIGTERM) for a :class:`Terminated`."""
    return 128 + int(signal.SIGTERM) if isinstance(interrupt, Terminated) else 130


def leave_interrupted(code: int) -> NoReturn:
    """Exit ``code`` (130 or 143) now, saying nothing. Worker threads still in a call (a read of
    stdin no cancellation can stop, a memory run's model calls, whose work has been handed back
    by ``memory.service``) would hold the interpreter's exit until their calls end, so with one
    running the streams are flushed and the process leaves without them."""
    busy = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if busy:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a closed pipe or stream: nothing more to say
                pass
        os._exit(code)
    sys.exit(code)


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
