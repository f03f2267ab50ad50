"""A watch that keeps failing for one cause: the folders above missing skill folders (the project
root, the home folder) fail on their own, and never stop the skill folders' watch; a name notify
cannot decode fails the watch each time it is touched, which never makes it give up."""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from skillshelf.serve.watch import watch_folders

BAD = b"build-\xe9.log"


class _Blip:
    """A missing skill folder whose ``is_dir`` fails ``times`` times: with ``errno`` (a permission
    change by default, which leaves the root neither there nor missing; an I/O error fails the
    watch)."""

    def __init__(self, path: Path, times: int, errno: int = errno.EACCES) -> None:
        self.path, self.times, self.errno = path, times, errno

    def __str__(self) -> str:
        return str(self.path)

    def is_dir(self) -> bool:
        if self.times:
            self.times -= 1
            raise OSError(self.errno, os.strerror(self.errno), str(self.path))
        return self.path.is_dir()


class _Project:
    def __init__(self, root: Path, parent: Path, waits_for: object) -> None:
        self.root, self.parent, self.waits_for = root, parent, waits_for

    def watch_paths(self) -> tuple[Path, ...]:
        return (self.root,)

    def pending_roots(self) -> tuple[Path, ...]:
        return (self.waits_for,)  # type: ignore[return-value]

    def pending_parents(self) -> tuple[Path, ...]:
        return (self.parent,)

    def scanned_roots(self) -> tuple[Path, ...]:
        return ()


def _run(target: _Project, act: Callable[[list[set[str]]], Awaitable[None]]) -> list[set[str]]:
    seen: list[set[str]] = []

    async def reload() -> None:
        seen.append(set(os.listdir(target.root)))

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_folders, target, reload, 50)
            await anyio.sleep(0.2)
            await act(seen)
            group.cancel_scope.cancel()

    anyio.run(main)
    return seen


async def _until(check: Callable[[], bool], within: float = 2.0) -> None:
    with anyio.fail_after(within):
        while not check():
            await anyio.sleep(0.05)


def _project(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "proj" / ".agents" / "skills" / "s0").mkdir(parents=True)
    return tmp_path / "proj", tmp_path / "proj" / ".agents" / "skills"


@pytest.fixture(autouse=True)
def _quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("skillshelf.serve.watch.RESTART_S", 0.01)
    monkeypatch.setattr("skillshelf.serve.watch.MAX_WAIT_S", 0.05, raising=False)


def test_a_pending_parent_watch_that_gives_up_leaves_the_skill_folders_watched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    proj, root = _project(tmp_path)
    target = _Project(root, proj, _Blip(proj / ".claude" / "skills", 1000, errno.EIO))

    async def act(seen: list[set[str]]) -> None:
        for i in range(3):  # each change in the project root fails the pending parents' watch
            (proj / f"notes{i}.txt").write_text("x", encoding="utf-8")
            await anyio.sleep(0.15)
        await _until(lambda: any("stopped watching" in r.getMessage() for r in caplog.records))
        (root / "later").mkdir()
        await _until(lambda: any("later" in names for names in seen))

    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        _run(target, act)
    notes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("SV210")]
    assert not any("stopped following changes" in note for note in notes), notes
    assert any("the skill folders stay watched" in note for note in notes), notes


def test_a_permission_blip_in_a_pending_parent_leaves_its_watch_running_and_a_new_root_is_seen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    proj, root = _project(tmp_path)
    blip = _Blip(proj / ".claude" / "skills", 2)
    target = _Project(root, proj, blip)

    async def act(seen: list[set[str]]) -> None:
        for left in (1, 0):  # is_dir fails twice (a root that cannot be told from a missing one)
            (proj / f"touched-{left}").write_text("x", encoding="utf-8")
            await _until(lambda: blip.times <= left)  # noqa: B023 (awaited in this pass)
        await anyio.sleep(0.2)
        before = len(seen)
        (proj / ".claude" / "skills").mkdir(parents=True)
        await _until(lambda: len(seen) > before)

    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        _run(target, act)
    assert not [r.getMessage() for r in caplog.records if "stopped" in r.getMessage()]


def test_a_name_that_is_not_utf8_appended_to_in_a_pending_parent_leaves_new_skills_seen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    proj, root = _project(tmp_path)
    target = _Project(root, proj, proj / ".claude" / "skills")
    bad = os.fsencode(proj) + b"/" + BAD

    async def act(seen: list[set[str]]) -> None:
        for _ in range(8):
            with open(bad, "a", encoding="utf-8") as out:
                out.write("line\n")
            await anyio.sleep(0.1)
        (root / "later").mkdir()
        await _until(lambda: any("later" in names for names in seen))

    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        _run(target, act)
    notes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("SV210")]
    assert len(notes) == 1, notes
    assert "the skill folders stay watched" in notes[0] and "other folders" not in notes[0]
    assert "out of the skill folder" not in notes[0] and f"or create {proj}/.claude/skills" in notes[0]


def test_a_name_that_is_not_utf8_read_again_and_again_in_a_skill_folder_never_gives_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    proj, root = _project(tmp_path)
    target = _Project(root, proj, proj / ".claude" / "skills")
    bad = os.fsencode(root) + b"/s0/refs\xff"
    os.mkdir(bad)
    target.watch_paths = lambda: (root, root / "s0")  # type: ignore[method-assign]

    async def act(seen: list[set[str]]) -> None:
        for _ in range(10):  # each read fails the watch: never counted towards giving up
            os.listdir(bad)
            await anyio.sleep(0.1)
        (root / "later").mkdir()
        await _until(lambda: any("later" in names for names in seen))

    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        _run(target, act)
    notes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("SV210")]
    assert len(notes) == 1 and "stay watched" not in notes[0], notes
