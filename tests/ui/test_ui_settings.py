"""The page follows the settings its workspace read: a skill enabled or disabled, a project
trusted, a config layer broken and mended show in the next answer, and (while the page watches)
without one."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_helpers import BODY, Served, write_skill

from skillshelf.config import SkillMode
from skillshelf.config.edit import set_skill_mode
from skillshelf.env import Env
from skillshelf.serve.ui.stamps import settings_files
from skillshelf.workspace import Workspace, WorkspaceOptions
from testkit import IsolatedHome, run_cli


@pytest.fixture
def served(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Served]:
    box = Served(tmp_path)
    yield box
    box.close()


def _cli(served: Served, capsys: pytest.CaptureFixture[str], *args: str) -> None:
    """``skillshelf ARGS`` in the page's project, through the real entry point."""
    old = Path.cwd()
    os.chdir(served.project)
    try:
        code, _, err = run_cli(list(args), capsys)
    finally:
        os.chdir(old)
    assert code == 0, err


def _row(served: Served, name: str) -> dict[str, Any]:
    rows = served.page.json("/api/budget")["skills"]
    return next(row for row in rows if row["name"] == name)


def test_a_skill_disabled_or_enabled_by_the_cli_shows_in_the_next_answer(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _row(served, "release-notes")["mode"] == "enabled"
    _cli(served, capsys, "disable", "release-notes")
    row = _row(served, "release-notes")
    assert row["mode"] == "disabled" and row["state"] == "omitted"
    load = served.page.get("/api/load", name="release-notes")
    assert load.json()["error"] == "SK405"
    _cli(served, capsys, "enable", "release-notes")
    assert _row(served, "release-notes")["mode"] == "enabled"
    assert served.page.get("/api/load", name="release-notes").status_code == 200


def test_trusting_the_project_shows_in_the_next_answer(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    write_skill(served.project / ".agents" / "skills", "alpha", "Alpha helper. Use when alpha.", BODY)
    served.server.state.reload()  # the new skill folder (the watch's part, off here)
    assert "[untrusted project]" in served.page.json("/api/budget")["catalog_text"]
    _cli(served, capsys, "trust")
    budget = served.page.json("/api/budget")
    assert "alpha" in budget["catalog_text"] and "[untrusted project]" not in budget["catalog_text"]


def test_a_broken_config_layer_and_its_repair_show_in_the_next_answer(
    served: Served, isolated_home: IsolatedHome
) -> None:
    def codes() -> set[str]:
        groups = served.page.json("/api/problems")["groups"]
        return {d["code"] for group in groups for d in group["diagnostics"]}

    assert "CF100" not in codes()
    path = isolated_home.write_user_config("[catalog\n")
    assert "CF100" in codes()
    path.write_text('[catalog]\nformat = "codex"\n', encoding="utf-8")
    assert "CF100" not in codes()


def _mode(state: Any, name: str) -> str:
    skill = next(s for s in state.snapshot.workspace.discovery.skills if s.name == name)
    return str(state.snapshot.workspace.modes.mode_of(skill).value)


def test_while_watching_a_config_edit_reloads_the_page_without_a_request(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    user_config = isolated_home.write_user_config("")  # no new folder for the folder watch to see
    served = Served(tmp_path, watch=True)
    try:
        state = served.server.state
        version = state.snapshot.version
        set_skill_mode(user_config, "release-notes", SkillMode.DISABLED)  # what `disable` writes
        deadline = time.monotonic() + 60  # a reload the watch started before the edit may come first
        while _mode(state, "release-notes") != "disabled" and time.monotonic() < deadline:
            version = state.wait_for_change(version, timeout=max(0.0, deadline - time.monotonic()))
        assert _mode(state, "release-notes") == "disabled"
    finally:
        served.close()


def test_the_settings_files_cover_every_config_layer_the_workspace_read(
    served: Served, isolated_home: IsolatedHome
) -> None:
    isolated_home.write_user_config("")
    nested = served.project / "sub"
    (nested / ".skillshelf").mkdir(parents=True)
    (nested / ".skillshelf" / "config.toml").write_text("", encoding="utf-8")
    (served.project / ".skillshelf").mkdir()
    (served.project / ".skillshelf" / "config.toml").write_text("", encoding="utf-8")
    env = Env.from_os(cwd=nested)
    layers = Workspace.open(env, WorkspaceOptions(include_builtin=False)).config.layers
    read = {layer.path for layer in layers if layer.path is not None}
    assert len(read) >= 5 and read <= set(settings_files(env))
