"""write_file and edit_file leave read-only files alone; read_file says when a file is not UTF-8,
and text from such a read is not written back over the file's bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import testkit
from skillshelf.agent.file_checks import LOCKED_CODE, LOSSY_CODE
from skillshelf.agent.folder_tools import FolderTools

LATIN1 = b'name = "caf\xe9"\nversion = 1\n'


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "locked.txt"
    path.write_text("do not touch\n", encoding="utf-8")
    path.chmod(0o444)
    return path


def test_write_file_refuses_a_read_only_file(locked: Path) -> None:
    outcome = FolderTools(locked.parent).execute("write_file", {"path": "locked.txt", "content": "new\n"})
    assert outcome.is_error and outcome.edited is None
    assert f"error: {LOCKED_CODE} 'locked.txt' is read-only" in outcome.text and "\nfix: " in outcome.text
    assert locked.read_text(encoding="utf-8") == "do not touch\n"


def test_edit_file_refuses_a_read_only_file(locked: Path) -> None:
    arguments = {"path": "locked.txt", "old_text": "do not", "new_text": "do"}
    outcome = FolderTools(locked.parent).execute("edit_file", arguments)
    assert outcome.is_error and LOCKED_CODE in outcome.text
    assert locked.read_text(encoding="utf-8") == "do not touch\n"


_IN_A_LOCKED_FOLDER = """
import json, sys
from pathlib import Path
from skillshelf.agent.folder_tools import FolderTools
root = Path(sys.argv[1])
outcome = FolderTools(root).execute("write_file", {"path": "shut/file.txt", "content": "new"})
print(json.dumps({"text": outcome.text, "is_error": outcome.is_error}))
"""


def test_write_file_refuses_a_file_in_a_folder_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shut = tmp_path / "shut"
    shut.mkdir()
    (shut / "file.txt").write_text("old", encoding="utf-8")
    shut.chmod(0o555)
    (shut / "file.txt").chmod(0o666)
    try:
        command = [*testkit.bound_by_file_modes(), sys.executable, "-c", _IN_A_LOCKED_FOLDER, str(tmp_path)]
        done = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", check=True)
    finally:
        shut.chmod(0o755)
    result = json.loads(done.stdout)
    assert (
        result["is_error"]
        and f"{LOCKED_CODE} the folder of 'shut/file.txt' is not writable" in result["text"]
    )
    assert (shut / "file.txt").read_text(encoding="utf-8") == "old"


def test_read_file_says_a_file_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.cfg").write_bytes(LATIN1)
    outcome = FolderTools(tmp_path).execute("read_file", {"path": "legacy.cfg"})
    note, text = outcome.text.split("\n", 1)
    assert not outcome.is_error
    assert note.startswith(f"[note {LOSSY_CODE}: this file is not UTF-8 text (byte 0xe9 at offset 11)")
    assert text == 'name = "caf\ufffd"\nversion = 1\n'


def test_read_file_shows_a_utf8_file_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.txt").write_text("café \ufffd\n", encoding="utf-8")
    assert FolderTools(tmp_path).execute("read_file", {"path": "ok.txt"}).text == "café \ufffd\n"


def test_write_file_refuses_text_from_a_lossy_read_over_a_non_utf8_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.cfg").write_bytes(LATIN1)
    content = 'name = "caf\ufffd"\nversion = 2\n'
    outcome = FolderTools(tmp_path).execute("write_file", {"path": "legacy.cfg", "content": content})
    assert outcome.is_error and f"error: {LOSSY_CODE} 'legacy.cfg' is not UTF-8 text" in outcome.text
    assert (tmp_path / "legacy.cfg").read_bytes() == LATIN1


def test_write_file_replaces_a_non_utf8_file_with_new_text_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.cfg").write_bytes(LATIN1)
    content = 'name = "café"\nversion = 2\n'
    outcome = FolderTools(tmp_path).execute("write_file", {"path": "legacy.cfg", "content": content})
    assert not outcome.is_error and outcome.text.endswith("(it was not UTF-8 text; it is UTF-8 now)")
    assert (tmp_path / "legacy.cfg").read_text(encoding="utf-8") == content
