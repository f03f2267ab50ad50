"""Fixtures for the bad-input tests: no debug tracebacks, a wide terminal, an empty project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import skillshelf


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLSHELF_DEBUG", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def work(tmp_path: Path, isolated_home: Any) -> Path:
    """An empty project folder (its own repository) to run commands from."""
    project = tmp_path / "work"
    (project / ".git").mkdir(parents=True)
    return project


@pytest.fixture
def env(tmp_path: Path, isolated_home: Any) -> skillshelf.Env:
    """An Env in an empty project (its own repository) under the isolated home."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return skillshelf.Env.for_test(cwd=project, home=Path(isolated_home.home))
