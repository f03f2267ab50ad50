"""open_beneath / read_beneath on files that cannot be opened for reading (Unix sockets)."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillshelf.skills.confined import open_beneath, read_beneath


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # a socket's path is capped at 108 bytes: bind it relative
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock")
        yield tmp_path


def test_a_socket_comes_back_as_a_descriptor_the_caller_can_check(folder: Path) -> None:
    fd = open_beneath(folder, ["sock"], "sock")
    try:
        assert stat.S_ISSOCK(os.fstat(fd).st_mode)
    finally:
        os.close(fd)


def test_reading_a_socket_is_refused_as_not_a_regular_file(folder: Path) -> None:
    with pytest.raises(IsADirectoryError, match="not a regular file"):
        read_beneath(folder, ["sock"], "sock", max_bytes=10)
