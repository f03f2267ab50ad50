"""Fixtures of the config tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cli_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user config folder of a CLI run isolated in ``tmp_path`` (its own HOME and Codex
    home, no system layer); the folder is made, its ``config.toml`` is not."""
    user = tmp_path / "cfg"
    user.mkdir()
    monkeypatch.setenv("SKILLSHELF_CONFIG_DIR", str(user))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / ".codex"))
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    return user
