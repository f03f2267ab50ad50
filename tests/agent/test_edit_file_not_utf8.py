"""edit_file on a file that is not UTF-8 is refused with AG011 and a fix line, as write_file is."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.agent.file_checks import LOSSY_CODE
from skillshelf.agent.folder_tools import FolderTools

LATIN1 = b"caf\xe9 = 1\n"


@pytest.mark.parametrize(
    ("tools", "fix"), [(None, "change it with bash"), (("edit_file",), "leave it alone")]
)
def test_edit_file_refuses_a_latin1_file_with_ag011(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tools: tuple[str, ...] | None, fix: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "legacy.cfg").write_bytes(LATIN1)
    folder = FolderTools(tmp_path) if tools is None else FolderTools(tmp_path, allowed=tools)
    outcome = folder.execute("edit_file", {"path": "legacy.cfg", "old_text": "= 1", "new_text": "= 2"})
    assert outcome.is_error
    assert outcome.text.startswith(f"error: {LOSSY_CODE} the file is not UTF-8 text (byte 0xe9 at offset 3)")
    assert f"\nfix: {fix}" in outcome.text
    assert (tmp_path / "legacy.cfg").read_bytes() == LATIN1
