"""A change between the scan and the watch being in place (no event tells of it) is caught up once
the watch is in place; without one, the watch does not reload."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
import watchfiles
from serve_helpers import write_skill

from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.watch import watch_folders
from skillshelf.serve.watch_checks import CLOCK_SLACK_NS, changed_since
from skillshelf.skills.discover import discover_in


def _library(*roots: Path) -> SkillLibrary:
    return SkillLibrary.from_discover(lambda: discover_in(list(roots)))


def _names(library: SkillLibrary) -> set[str]:
    return {skill.name for skill in library.skills}


def _watch_until(library: SkillLibrary, done: Callable[[], bool], seconds: float) -> int:
    """Watch ``library`` (from its scan on) until ``done()`` or ``seconds`` passed; the reloads."""
    reloads: list[int] = []

    async def reload() -> None:
        reloads.append(1)
        await anyio.to_thread.run_sync(library.reload)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: watch_folders(library, reload, 50, since_ns=library.scanned_ns))
            with anyio.move_on_after(seconds):
                while not done():
                    await anyio.sleep(0.02)
            group.cancel_scope.cancel()

    anyio.run(main)
    return len(reloads)


def test_a_skill_written_after_the_scan_before_the_watch_starts_is_loaded_once_it_is_watched(
    tmp_path: Path,
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "first", "d", "b")
    library = _library(root)
    write_skill(root, "second", "d", "b")  # after the scan, before any watch
    _watch_until(library, lambda: "second" in _names(library), 10)
    assert _names(library) == {"first", "second"}


def test_a_skill_written_just_before_the_watch_is_put_in_place_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "first", "d", "b")
    library = _library(root)
    real_awatch = watchfiles.awatch

    def awatch(*paths: Path, **options: Any) -> AsyncIterator[set[Any]]:
        """The real watch, after a skill is written once the folders to watch were listed."""
        if not (root / "late").exists():
            write_skill(root, "late", "d", "b")
        return real_awatch(*paths, **options)

    monkeypatch.setattr(watchfiles, "awatch", awatch)
    _watch_until(library, lambda: "late" in _names(library), 10)
    assert "late" in _names(library)


def test_a_skill_root_made_after_the_scan_before_the_watch_starts_is_loaded(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    root = project / ".agents" / "skills"
    library = _library(root)
    assert library.pending_roots() == (root,)
    write_skill(root, "new", "d", "b")
    _watch_until(library, lambda: "new" in _names(library), 10)
    assert _names(library) == {"new"}


def test_the_watch_does_not_reload_when_nothing_changed_since_the_scan(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "first", "d", "b")
    time.sleep(2 * CLOCK_SLACK_NS / 1e9)  # the tree's change times well before the scan
    library = _library(root)
    assert _watch_until(library, lambda: False, 1.0) == 0


def test_only_change_times_from_the_scan_on_count_as_changes(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "first", "d", "b")
    time.sleep(2 * CLOCK_SLACK_NS / 1e9)
    folders = (root, root / "first")
    assert not changed_since(folders, (), time.time_ns())
    before = time.time_ns()
    (root / "first" / "SKILL.md").chmod(0o600)  # a change of its change time only
    assert changed_since(folders, (), before)
    assert not changed_since(folders, (), time.time_ns() + 10 * CLOCK_SLACK_NS)
