"""A skill folder that cannot be read for a while (a permission change) cannot be watched either;
its skills come back on their own once it can be read again, in `skillshelf serve` as it runs."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from serve_helpers import serve_args, write_skill

import testkit
from skillshelf.serve import watch_checks
from skillshelf.serve.watch_notes import note_blocked

pytestmark = pytest.mark.usefixtures("isolated_home")


def _names(result: types.CallToolResult) -> set[str]:
    data = result.structured_content or {}
    return {row["name"] for row in data.get("skills", [])}


def test_a_skill_root_unreadable_for_a_while_has_its_skills_back_once_it_is_readable(tmp_path: Path) -> None:
    root = tmp_path / "shelf" / "skills"  # no watch of a folder above it (the cwd, the home)
    project = tmp_path / "project"
    project.mkdir()
    write_skill(root, "kept", "A skill in a folder that is unreadable for a while.", "Body.")
    prefix = testkit.bound_by_file_modes()
    command = [*prefix, sys.executable, *serve_args(root)]
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=str(project)
    )

    reloads: list[object] = []

    async def handler(message: object) -> None:
        if isinstance(message, types.ResourceListChangedNotification):  # sent after each reload
            reloads.append(message)

    async def listed(client: Client) -> set[str]:
        return _names(await client.call_tool("list_skills", {}))

    async def main() -> None:
        async with Client(params, mode="legacy", message_handler=handler) as client:
            assert await listed(client) == {"kept"}
            root.chmod(0)
            with anyio.fail_after(20):
                while not reloads or await listed(client):  # the watch saw the change and reloaded
                    await anyio.sleep(0.05)
            await anyio.sleep(1.5)  # the watch restarted, without the folder it cannot watch
            root.chmod(0o755)  # no watch sees this
            with anyio.fail_after(20):
                while await listed(client) != {"kept"}:
                    await anyio.sleep(0.1)

    try:
        anyio.run(main)
    finally:
        root.chmod(0o755)


def test_a_folder_that_cannot_be_listed_is_unlistable_and_one_gone_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked, gone, fine = tmp_path / "locked", tmp_path / "gone", tmp_path / "fine"
    locked.mkdir()
    fine.mkdir()
    real = os.scandir

    def scandir(path: object) -> object:
        if path == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(watch_checks.os, "scandir", scandir)
    assert watch_checks.unlistable([locked, gone, fine]) == {locked}


def test_a_folder_that_cannot_be_read_is_noted_once_while_it_cannot(caplog: pytest.LogCaptureFixture) -> None:
    noted: set[str] = set()
    folder = Path("/skills/locked")
    with caplog.at_level(logging.WARNING, logger="skillshelf.serve.watch"):
        for blocked in ({folder}, {folder}, set(), {folder}):
            note_blocked(frozenset(blocked), noted)
    notes = [r.getMessage() for r in caplog.records]
    assert len(notes) == 2 and all(
        n.startswith("SV210") and "fix: make the folder readable" in n for n in notes
    )
