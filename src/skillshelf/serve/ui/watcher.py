"""The page's watch: the skill folders (:func:`skillshelf.serve.watch.watch_folders`, the MCP
server's) and the settings files' stamps (:meth:`UiState.refresh
<skillshelf.serve.ui.state.UiState.refresh>`, once a second), in one daemon thread that runs its
own event loop.

Everything that can block lives in that thread: the thread that starts the watch only starts it
and the one that stops it only sets an event and waits a bounded time. A blocking portal
started from the serving thread would not do: an interrupt (Ctrl-C, SIGTERM) arriving while the
portal starts leaves its event loop running, and the portal then waits for that loop's thread
without end, holding the port.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillshelf.serve.ui.state import UiState

__all__ = ["UiWatcher"]

log = logging.getLogger(__name__)

STOP_POLL_S = 0.1
"""How often the watch looks at its stop event."""
SETTINGS_POLL_S = 1.0
"""How often the watch looks at the settings files' stamps."""


class UiWatcher:
    """:meth:`start` once, :meth:`stop` any number of times (before :meth:`start` too)."""

    def __init__(self, state: UiState) -> None:
        self.state = state
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="skillshelf-ui-watch", daemon=True)

    def start(self) -> UiWatcher:
        if not self._stop.is_set():
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the watch to end and wait for it, ``timeout`` seconds at most (the thread is a
        daemon: one still busy, in a reload, does not hold the process)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        import anyio

        try:
            anyio.run(self._main)
        except Exception as exc:  # serving goes on without the watch
            log.warning(
                "SV210: the page stopped following changes: %s (fix: start `skillshelf ui` again)", exc
            )
        if not self._stop.is_set():
            self.state.stop_watching()

    async def _main(self) -> None:
        import anyio
        import anyio.to_thread

        from skillshelf.serve.watch import watch_folders
        from skillshelf.skills.walk import ScanLimits
        from skillshelf.skills.walk_limits import limits_from_environ

        state = self.state

        async def reload() -> None:
            await anyio.to_thread.run_sync(state.reload)

        # the roots are walked within discovery's limits, SKILLSHELF_SCAN_MAX_* included
        limits, _ = limits_from_environ(state.env.environ, ScanLimits())
        polls_per_check = max(1, round(SETTINGS_POLL_S / STOP_POLL_S))

        async def follow() -> None:
            """The skill folders' watch; when it ends (it gave up), the page says so."""
            try:
                await watch_folders(state, reload, limits=limits, since_ns=state.snapshot.scanned_ns)
            except Exception as exc:
                log.warning(
                    "SV210: the page stopped following changes: %s (fix: start `skillshelf ui` again)", exc
                )
            if not self._stop.is_set():
                state.stop_watching()

        async with anyio.create_task_group() as group:
            group.start_soon(follow)
            polls = 0
            while not self._stop.is_set():
                await anyio.sleep(STOP_POLL_S)
                polls += 1
                if polls % polls_per_check == 0 and not self._stop.is_set():
                    await anyio.to_thread.run_sync(state.refresh)
            group.cancel_scope.cancel()
