"""The MCP server's and the ui's watchers walk the roots within discovery's scan limits."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from serve_helpers import make_skill_tree

from skillshelf.env import Env
from skillshelf.serve import watch
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.mcp_server import ServeOptions, build_server
from skillshelf.serve.ui.server import UiServer
from skillshelf.skills.discover import discover_in
from skillshelf.skills.walk import ScanLimits
from testkit import IsolatedHome


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> list[ScanLimits]:
    """The limits each started watch was given (the watch itself returns at once)."""
    asked: list[ScanLimits] = []

    async def recording(_target: Any, _reload: Any, _debounce_ms: int = 400, **kwargs: Any) -> None:
        asked.append(kwargs.get("limits", watch.DISCOVERY_LIMITS))

    monkeypatch.setattr(watch, "watch_folders", recording)
    return asked


def test_the_mcp_server_watches_within_the_scan_limits_of_its_options(
    tmp_path: Path, watched: list[ScanLimits]
) -> None:
    root = make_skill_tree(tmp_path)
    raised = ScanLimits(max_dirs=9_000, max_entries=90_000)
    library = SkillLibrary.from_discover(lambda: discover_in([root]))
    server = build_server(library, ServeOptions(watch=True, prebuild_index=False, scan_limits=raised))

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(server, mode="legacy") as client:
                await client.list_tools()

    anyio.run(main)
    assert watched == [raised]


def test_the_ui_watches_within_the_limits_its_environment_raised(
    tmp_path: Path, isolated_home: IsolatedHome, watched: list[ScanLimits]
) -> None:
    base = Env.for_test(cwd=tmp_path, home=isolated_home.home)
    env = dataclasses.replace(
        base,
        environ={**base.environ, "SKILLSHELF_SCAN_MAX_DIRS": "9000", "SKILLSHELF_SCAN_MAX_ENTRIES": "90000"},
    )
    with UiServer(env, watch=True):
        deadline = time.monotonic() + 10
        while not watched and time.monotonic() < deadline:
            time.sleep(0.05)
    assert watched == [dataclasses.replace(ScanLimits(), max_dirs=9000, max_entries=90000)]
