"""write_file refuses with AG010 a new file whose missing folders would be made in a folder it
cannot write, as it does a file right in such a folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import testkit
from skillshelf.agent.file_checks import LOCKED_CODE

_WRITE = """
import json, sys
from pathlib import Path
from skillshelf.agent.folder_tools import FolderTools
outcome = FolderTools(Path(sys.argv[1])).execute("write_file", {"path": sys.argv[2], "content": "new"})
print(json.dumps({"text": outcome.text, "is_error": outcome.is_error}))
"""


@pytest.mark.parametrize("mode", [0o555, 0o500])
@pytest.mark.parametrize("raw_path", ["ro/a/b.txt", "ro/a/b/c/d.txt"])
def test_write_file_refuses_new_folders_under_a_folder_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int, raw_path: str
) -> None:
    monkeypatch.chdir(tmp_path)
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(mode)
    try:
        command = [*testkit.bound_by_file_modes(), sys.executable, "-c", _WRITE, str(tmp_path), raw_path]
        done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", check=True)
    finally:
        locked.chmod(0o755)
    result = json.loads(done.stdout)
    assert result["is_error"]
    assert f"{LOCKED_CODE} {raw_path!r} would need a new folder in {str(locked)!r}" in result["text"]
    assert "\nfix: " in result["text"]
    assert list(locked.iterdir()) == []


def test_write_file_makes_new_folders_under_a_writable_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw").mkdir()
    command = [*testkit.bound_by_file_modes(), sys.executable, "-c", _WRITE, str(tmp_path), "rw/a/b.txt"]
    done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", check=True)
    assert not json.loads(done.stdout)["is_error"]
    assert (tmp_path / "rw" / "a" / "b.txt").read_text(encoding="utf-8") == "new"
