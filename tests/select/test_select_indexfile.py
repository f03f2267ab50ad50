"""The index cache file: arrays and text lists written and read back as they were."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from skillshelf.select.indexfile import read_file, write_file


def test_text_lists_come_back_as_written_paths_that_are_not_utf8_included(tmp_path: Path) -> None:
    odd = os.fsdecode(b"/srv/bad\xffdir/.agents/skills/a/SKILL.md")
    texts = {"keys": ["/srv/plain/SKILL.md", "/srv/café/SKILL.md", odd], "empty": []}
    path = tmp_path / "index.bin"
    write_file(path, 3, {"ids": np.arange(3, dtype=np.int32)}, texts)
    loaded = read_file(path, 3)
    assert loaded is not None
    arrays, back = loaded
    assert back == texts and arrays["ids"].tolist() == [0, 1, 2]
