"""Reading SKILL.md from disk: a socket is not a regular file, as a FIFO is not."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from skill_tree_helpers import repo_root

from skillshelf.fileio import NotRegularFile
from skillshelf.skills.parse import read_skill
from skillshelf.skills.skill_files import read_head


@pytest.fixture
def socket_skill_md(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "skills" / "sock"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)  # a socket's path is bound short: sun_path holds 108 bytes
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("SKILL.md")
        yield folder / "SKILL.md"


def test_a_socket_is_refused_as_not_a_regular_file(socket_skill_md: Path) -> None:
    with pytest.raises(NotRegularFile, match=r"not a regular file \(a socket\)"):
        read_head(socket_skill_md, 100)


def test_a_socket_skill_md_is_reported_as_not_a_regular_file(socket_skill_md: Path) -> None:
    parsed = read_skill(socket_skill_md, repo_root(socket_skill_md.parents[1]))
    assert parsed.skill is None
    [note] = parsed.diagnostics
    assert note.code == "SK116"
    assert note.message == "failed to read file: not a regular file (a socket)"
    assert note.fix == "replace it with a regular SKILL.md file"
