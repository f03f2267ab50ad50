"""A progress display for steps that can be slow: a cold scan of thousands of skills, the first
search index build over them (minutes with the embedding models), an evaluation run.

:func:`working` shows a spinner, the step and the time spent on stderr, and only on a terminal
and once the step has lasted :data:`DELAY` seconds, so quick runs, pipes and CI logs see
nothing. ``memory run`` and installs have their own bars (they know how far along they are).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["DELAY", "working"]

#: Seconds a step runs before the display appears (a quick command never flickers).
DELAY = 0.5


def _ignore(_text: str) -> None:
    return None


def _terminal_console() -> Any:
    """A rich console on stderr when stderr is a terminal, else None (rich is not imported)."""
    if not sys.stderr.isatty():
        return None
    from skillshelf.cli.output import stderr_console

    console = stderr_console()
    return console if console.is_terminal else None


@contextmanager
def working(
    message: str, *, console: Any = None, delay: float | None = None
) -> Iterator[Callable[[str], None]]:
    """Show ``message`` with a spinner while the block runs; yields a function that changes it."""
    console = console if console is not None else _terminal_console()
    if console is None:
        yield _ignore
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    display = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = display.add_task(message, total=None)
    lock = threading.Lock()
    finished = False

    def show() -> None:
        with lock:
            if not finished:
                display.start()

    wait = DELAY if delay is None else delay
    timer = threading.Timer(wait, show)
    timer.daemon = True
    if wait <= 0:
        show()
    else:
        timer.start()
    try:
        yield lambda text: display.update(task, description=text)
    finally:
        timer.cancel()
        with lock:
            finished = True
            display.stop()
