"""Env's home folder: ``$HOME``, else the user's entry in the password database."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from skillshelf.env import Env


def test_an_empty_home_is_read_as_an_unset_one_the_users_home_in_the_password_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "")  # Path.home() then gives "/"
    for kind in ("CACHE", "DATA", "CONFIG", "STATE"):
        monkeypatch.delenv(f"XDG_{kind}_HOME", raising=False)
        monkeypatch.delenv(f"SKILLSHELF_{kind}_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    empty = Env.from_os(cwd=tmp_path)
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert empty.home == home
    assert empty.codex_home == home / ".codex"
    assert empty.dirs.data == home / ".local" / "share" / "skillshelf"
    assert empty.dirs.cache == home / ".cache" / "skillshelf"
