"""The page's state when its folder changes under it: a project folder deleted while the page
is open keeps the last snapshot and says why, as the CLI refuses a folder that is gone."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from ui_helpers import Page, Served

from skillshelf.env import Env
from skillshelf.serve.ui import UiOptions, UiServer
from skillshelf.workspace import WorkspaceOptions
from testkit import IsolatedHome


@pytest.fixture
def project_page(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[tuple[Path, UiServer, Page]]:
    work = tmp_path / "work"
    project = work / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("PROJECT rules\n", encoding="utf-8")
    (work / "AGENTS.md").write_text("PARENT folder rules\n", encoding="utf-8")
    options = UiOptions(workspace=WorkspaceOptions(include_builtin=False), semantic=False)
    server = UiServer(Env.from_os(cwd=project), options, watch=False).start()
    page = Page(server.port, server.token)
    yield project, server, page
    page.close()
    server.close()


def test_a_deleted_project_folder_keeps_the_last_state_and_shows_the_error(
    project_page: tuple[Path, UiServer, Page],
) -> None:
    project, server, page = project_page
    before = page.json("/api/overview")
    assert before["project"] == str(project) and before["error"] is None
    memory_before = [s["scope"] for s in page.json("/api/memory")["scopes"]]
    shutil.rmtree(project)
    assert page.json("/api/overview")["error_code"] == "SS006"  # before any reload saw it
    server.state.reload()
    after = page.json("/api/overview")
    assert after["project"] == str(project)
    assert after["error"] and after["error_code"] == "SS006" and after["error_fix"]
    assert after["skills"] == before["skills"]
    for route in ("/api/budget", "/api/memory"):
        refused = page.get(route)
        assert refused.status_code == 409, route
        assert refused.json()["error"] == "SS006" and refused.json()["fix"], route
    assert memory_before[0].endswith(str(project))


def test_a_watch_that_ended_shows_as_not_following_changes(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    import skillshelf.serve.watch as watch

    async def ends_at_once(*args: object, **kwargs: object) -> None:
        return None

    monkeypatch.setattr(watch, "watch_folders", ends_at_once)
    served = Served(tmp_path, watch=True)
    try:
        deadline = time.monotonic() + 10
        while served.page.json("/api/overview")["watching"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert served.page.json("/api/overview")["watching"] is False
        with served.page.http.stream(
            "GET", "/api/events", params={"token": served.page.token}, timeout=10
        ) as stream:
            lines = stream.iter_lines()
            head = [next(lines) for _ in range(6)]
        assert "event: watch" in head and "data: stopped" in head
    finally:
        served.close()
