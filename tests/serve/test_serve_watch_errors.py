"""A watch that fails while it runs (watchfiles raises from its own task group, as an
``ExceptionGroup``) is reported once with the folder and a fix, and restarted: the folders stay
watched. A folder whose name is not UTF-8 is one such cause: notify cannot decode its events."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import watchfiles

from skillshelf.serve.watch import watch_folders, watch_list

BAD = b"bad\xffname"


class _Root:
    def __init__(self, root: Path) -> None:
        self.root = root

    def watch_paths(self) -> tuple[Path, ...]:
        return (self.root,)

    def pending_roots(self) -> tuple[Path, ...]:
        return ()

    def pending_parents(self) -> tuple[Path, ...]:
        return ()

    def scanned_roots(self) -> tuple[Path, ...]:
        return ()


def _sv210(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("SV210")]


def test_a_folder_whose_path_is_not_utf8_is_not_in_the_watch_list(tmp_path: Path) -> None:
    bad_top = Path(os.fsdecode(os.fsencode(tmp_path) + b"/" + BAD))
    (bad_top / "inner").mkdir(parents=True)
    (tmp_path / "good" / "inner").mkdir(parents=True)
    os.mkdir(os.fsencode(tmp_path / "good") + b"/" + BAD)
    assert watch_list([bad_top, tmp_path / "good"]) == (tmp_path / "good", tmp_path / "good" / "inner")


def test_an_undecodable_folder_name_is_reported_once_and_the_watch_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    bad = os.fsencode(root) + b"/" + BAD
    os.mkdir(bad)
    seen: list[set[str]] = []

    async def reload() -> None:
        seen.append(set(os.listdir(root)))

    async def until(check: Any) -> None:
        with anyio.fail_after(15):
            while not check():
                await anyio.sleep(0.05)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_folders, _Root(root), reload, 50)
            await anyio.sleep(0.2)
            (root / "first").mkdir()
            await until(lambda: any("first" in names for names in seen))
            # read until the watch sees it (the reload of "first" restarts the watch, and a read
            # before the new watch is in place goes unseen), then twice more: still one note
            await until(lambda: os.listdir(bad) == [] and bool(_sv210(caplog)))
            for _ in range(2):
                os.listdir(bad)
                await anyio.sleep(0.2)
            (root / "second").mkdir()
            await until(lambda: any("second" in names for names in seen))
            group.cancel_scope.cancel()

    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        anyio.run(main)
    notes = _sv210(caplog)
    assert len(notes) == 1, notes
    assert "bad\\xFFname" in notes[0] or "bad\\xffname" in notes[0]
    assert "fix: rename" in notes[0]


def test_a_watch_that_keeps_failing_gives_up_with_a_note_and_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[int] = []

    async def failing_awatch(*paths: Path, **options: Any) -> AsyncIterator[set[Any]]:
        calls.append(1)
        raise ExceptionGroup("unhandled errors in a TaskGroup", [RuntimeError("the backend broke")])
        yield set()

    async def reload() -> None:
        return None

    async def main() -> None:
        with anyio.fail_after(10):
            await watch_folders(_Root(tmp_path), reload)

    monkeypatch.setattr(watchfiles, "awatch", failing_awatch)
    monkeypatch.setattr("skillshelf.serve.watch.RESTART_S", 0.001, raising=False)
    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        anyio.run(main)
    assert len(calls) > 1  # restarted before giving up
    notes = _sv210(caplog)
    assert any("the backend broke" in note and str(tmp_path) in note and "fix:" in note for note in notes)
    assert any("stopped following changes" in note for note in notes), notes
