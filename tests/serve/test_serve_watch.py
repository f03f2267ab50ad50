"""Watching skill folders ends by setting watchfiles' stop event, which its thread looks at."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import watchfiles

from skillshelf.serve.watch import watch_folders


class _Folders:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def watch_paths(self) -> tuple[Path, ...]:
        return (self.folder,)

    def pending_roots(self) -> tuple[Path, ...]:
        return ()

    def pending_parents(self) -> tuple[Path, ...]:
        return (self.folder.parent,)

    def scanned_roots(self) -> tuple[Path, ...]:
        return ()


def test_cancelling_the_watch_sets_the_stop_event_of_every_watch_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[Any] = []
    started = anyio.Event()

    async def fake_awatch(*paths: Path, **options: Any) -> AsyncIterator[set[Any]]:
        events.append(options.get("stop_event"))
        if len(events) == 2:
            started.set()
        await anyio.sleep_forever()  # the real one blocks in a thread that only the event ends
        yield set()

    async def reload() -> None:
        return None

    monkeypatch.setattr(watchfiles, "awatch", fake_awatch)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_folders, _Folders(tmp_path), reload)
            await started.wait()
            group.cancel_scope.cancel()

    anyio.run(main)
    assert len(events) == 2 and all(event is not None and event.is_set() for event in events)
