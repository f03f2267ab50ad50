"""What the skill watcher watches: each folder discovery's walk lists, on its own (never a
recursive watch through a symlinked folder), and a folder it cannot watch leaves the rest watched."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import watchfiles
from serve_helpers import write_skill

from skillshelf.serve.watch import watch_folders, watch_list, watched_folders
from skillshelf.skills.discover import discover_in
from skillshelf.skills.walk import ScanLimits


class _Roots:
    def __init__(self, *roots: Path) -> None:
        self.roots = roots

    def watch_paths(self) -> tuple[Path, ...]:
        return tuple(root.resolve() for root in self.roots)

    def pending_roots(self) -> tuple[Path, ...]:
        return ()

    def pending_parents(self) -> tuple[Path, ...]:
        return ()

    def scanned_roots(self) -> tuple[Path, ...]:
        return ()


def _tree(base: Path, width: int, depth: int) -> Path:
    """``width`` folders on each of ``depth`` levels below ``base``."""
    for level in range(1, depth + 1):
        for i in range(width):
            (base / "/".join(f"d{i}" for _ in range(level))).mkdir(parents=True, exist_ok=True)
    return base


def test_a_symlinked_folder_is_watched_only_as_far_as_the_scan_limits(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "a", "d", "b")
    (root / "big").symlink_to(_tree(tmp_path / "outside", 4, 4), target_is_directory=True)
    folders = watch_list([root], ScanLimits(max_dirs=10))
    assert len(folders) == 10
    assert folders[:3] == (root, root / "a", root / "big")
    assert all(folder.is_relative_to(root) for folder in folders)  # through the link, as discovery reads


def test_hidden_folders_and_folders_past_the_depth_limit_are_not_watched(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / ".git" / "objects").mkdir(parents=True)
    _tree(root / "deep", 1, 8)
    folders = watch_list([root], ScanLimits(max_depth=3))
    assert folders == (root, root / "deep", root / "deep/d0", root / "deep/d0/d0")


def test_a_symlink_loop_is_watched_once(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "a").mkdir(parents=True)
    (root / "a" / "again").symlink_to(root, target_is_directory=True)
    (root / "b").symlink_to(root / "a", target_is_directory=True)
    assert watch_list([root]) == (root, root / "a")


def test_the_entry_limit_ends_the_list(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(6):
        (root / f"s{i}").mkdir(parents=True)
    assert watch_list([root], ScanLimits(max_entries=3)) == (root, root / "s0", root / "s1", root / "s2")


def test_a_root_inside_another_root_is_watched_too(tmp_path: Path) -> None:
    outer = tmp_path / "skills"
    write_skill(outer, "a", "d", "b")
    write_skill(outer / ".system", "sys", "d", "b")
    discovery = discover_in([outer, outer / ".system"])
    tops = watched_folders(discovery)
    assert tops == (outer.resolve(), (outer / ".system").resolve())
    assert outer.resolve() / ".system/sys" in watch_list(tops)


def test_the_watch_is_given_every_listed_folder_and_is_not_recursive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "a", "d", "b")
    (root / "big").symlink_to(_tree(tmp_path / "outside", 4, 4), target_is_directory=True)
    calls: list[tuple[tuple[Path, ...], dict[str, Any]]] = []

    async def fake_awatch(*paths: Path, **options: Any) -> AsyncIterator[set[Any]]:
        calls.append((paths, options))
        await anyio.sleep_forever()
        yield set()

    monkeypatch.setattr(watchfiles, "awatch", fake_awatch)

    async def reload() -> None:
        return None

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_folders, _Roots(root), reload, 50, ScanLimits(max_dirs=6))
            with anyio.fail_after(20):
                while not calls:
                    await anyio.sleep(0.01)
            group.cancel_scope.cancel()

    anyio.run(main)
    ((paths, options),) = calls
    assert options["recursive"] is False and paths == watch_list([root], ScanLimits(max_dirs=6))


def test_a_folder_that_cannot_be_watched_is_noted_once_and_the_others_still_notify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "skills"
    write_skill(root, "a", "d", "b")
    write_skill(root, "locked", "d", "b")
    locked = str(root.resolve() / "locked")
    real_awatch = watchfiles.awatch

    async def awatch(*paths: Path, **options: Any) -> AsyncIterator[set[Any]]:
        """Like the real one on a folder the kernel refuses to watch: an error unless told to skip it."""
        if not options.get("ignore_permission_denied"):
            raise PermissionError(13, f'Permission denied (os error 13) about ["{locked}"]')
        async for batch in real_awatch(*(p for p in paths if str(p) != locked), **options):
            yield batch

    monkeypatch.setattr(watchfiles, "awatch", awatch)
    reloads: list[int] = []

    async def reload() -> None:
        reloads.append(1)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_folders, _Roots(root), reload, 50)
            await anyio.sleep(0.5)  # let the watch start
            with anyio.fail_after(20):
                while not reloads:
                    (root / "a" / "SKILL.md").write_text(
                        "---\nname: a\ndescription: e\n---\nc\n", encoding="utf-8"
                    )
                    await anyio.sleep(0.2)
            group.cancel_scope.cancel()

    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        anyio.run(main)
    notes = [r.getMessage() for r in caplog.records if "SV210" in r.getMessage()]
    assert len(notes) == 1 and locked in notes[0] and "fix: make the folder readable" in notes[0]


def test_a_folder_made_after_the_start_is_watched_from_the_next_reload(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "a", "d", "b")
    reloads: list[int] = []

    async def reload() -> None:
        reloads.append(1)

    async def wait_for(count: int, touch: Path) -> None:
        with anyio.fail_after(20):
            while len(reloads) < count:
                touch.write_text(str(os.getpid()), encoding="utf-8")
                await anyio.sleep(0.2)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_folders, _Roots(root), reload, 50)
            await anyio.sleep(0.5)  # let the watch start
            (root / "a" / "references" / "deep").mkdir(parents=True)
            await wait_for(1, root / "a" / "SKILL.md")
            await anyio.sleep(0.5)  # the restarted watch
            seen = len(reloads)
            await wait_for(seen + 1, root / "a" / "references" / "deep" / "notes.md")
            group.cancel_scope.cancel()

    anyio.run(main)
