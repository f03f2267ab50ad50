"""Confined reads of Unix sockets (which cannot be opened for reading): refused as special files."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillshelf.errors import PathEscapeError
from skillshelf.skills.bundled import read_confined_file


@pytest.fixture
def skill_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "demo"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: demo\ndescription: d\n---\nBody\n", encoding="utf-8")
    monkeypatch.chdir(folder)  # a socket's path is capped at 108 bytes: bind it relative
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("references/sock.md")
        yield folder


def test_a_unix_socket_is_refused_as_a_special_file(skill_folder: Path) -> None:
    with pytest.raises(PathEscapeError, match="socket; only regular files") as caught:
        read_confined_file(skill_folder, "references/sock.md", skill="demo")
    assert caught.value.code == "SS403"


def test_a_symlink_to_a_unix_socket_inside_the_folder_is_refused_as_a_special_file(
    skill_folder: Path,
) -> None:
    (skill_folder / "link.md").symlink_to("references/sock.md")
    with pytest.raises(PathEscapeError, match="socket") as caught:
        read_confined_file(skill_folder, "link.md", skill="demo")
    assert caught.value.code == "SS403"
