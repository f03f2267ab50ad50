"""Which folders the skill watch watches when a folder above a root cannot be searched: the root
cannot be told from a missing one, and neither raises."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skillshelf.serve.watch_paths import is_folder, pending_parents, watched_folders


@pytest.fixture
def shelf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path/shelf``, a folder that cannot be searched (as without root's rights): a stat of
    anything below it is refused."""
    shelf = tmp_path / "shelf"
    (shelf / "skills").mkdir(parents=True)
    real = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if Path(os.fspath(path)).is_relative_to(shelf) and Path(os.fspath(path)) != shelf:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    return shelf


def test_a_root_below_a_folder_that_cannot_be_searched_is_neither_there_nor_missing(shelf: Path) -> None:
    assert is_folder(shelf / "skills") is None
    assert is_folder(shelf) is True
    assert is_folder(shelf / "gone") is None
    assert is_folder(shelf.parent / "gone") is False


def test_a_root_given_to_watch_below_a_folder_that_cannot_be_searched_stays_watched(shelf: Path) -> None:
    assert watched_folders(None, [shelf / "skills", shelf.parent / "gone"]) == (shelf / "skills",)


def test_the_parent_watched_for_a_root_below_a_folder_that_cannot_be_searched_is_that_folder(
    shelf: Path,
) -> None:
    assert pending_parents([shelf / "project" / ".agents" / "skills"]) == (shelf,)
