"""The hook server checks that skillshelf's source files are the ones it started with before it
answers a hook call: after an upgrade or an edit (a file changed, added or removed) it declines
the call, so the hook answers with the new code, logs why and leaves. Byte-code and other files
written into a package folder are no change."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import hook_input, make_project

from skillshelf.hooks import runner
from skillshelf.hooks.address import server_address
from skillshelf.hooks.hooklog import log_path
from skillshelf.hooks.runner import HookRun
from skillshelf.hooks.server import ServerState, _reply
from skillshelf.hooks.source_files import SourceFiles


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    (package / "select" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "select" / "suggest.py").write_text("HEADER = 'Skills'\n", encoding="utf-8")
    return package


def _touch_later(path: Path) -> None:
    """``path`` rewritten in place with a later modification time (no rename: its folder's
    time stays)."""
    path.write_text("HEADER = 'UPGRADED'\n", encoding="utf-8")
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))


def test_source_files_see_an_edit_in_place_a_new_file_and_a_removed_one(tmp_path: Path) -> None:
    package = _package(tmp_path)
    source = SourceFiles.of(package)
    (package / "select" / "__pycache__" / "suggest.cpython-311.pyc").write_bytes(b"bytecode")
    assert not source.changed()
    _touch_later(package / "select" / "suggest.py")
    assert source.changed()
    source = SourceFiles.of(package)
    (package / "select" / "new.py").write_text("", encoding="utf-8")
    assert source.changed()
    source = SourceFiles.of(package)
    (package / "select" / "new.py").unlink()
    assert source.changed()


def _later(folder: Path) -> None:
    """``folder``'s modification time moved on by a second (as a write into it moves it, on a
    file system whose clock is coarser than the test)."""
    info = folder.stat()
    os.utime(folder, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))


def test_byte_code_and_other_files_written_into_a_package_folder_are_no_change(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "skills").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "skills" / "parse.py").write_text("X = 1\n", encoding="utf-8")
    source = SourceFiles.of(package)  # a fresh install: no __pycache__ yet
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"bytecode")
    _later(package)
    (package / "skills" / "__pycache__").mkdir()
    (package / "skills" / ".parse.py.swp").write_bytes(b"vim")
    (package / "skills" / "notes.txt").write_text("", encoding="utf-8")
    _later(package / "skills")
    assert not source.changed()
    assert not source.changed()  # and again, once the folders' new times are kept
    (package / "skills" / "new.py").write_text("", encoding="utf-8")
    _later(package / "skills")
    assert source.changed()


def test_a_removed_or_added_source_file_counts_after_byte_code_was_written(tmp_path: Path) -> None:
    package = _package(tmp_path)
    source = SourceFiles.of(package)
    (package / "select" / "x.pyc").write_bytes(b"bytecode")
    _later(package / "select")
    assert not source.changed()
    (package / "select" / "suggest.py").rename(package / "select" / "suggestions.py")
    _later(package / "select")
    assert source.changed()


def test_a_hook_call_after_the_source_changed_is_declined_and_the_server_leaves(
    isolated_home: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answered = HookRun(answer=b'{"answer": 1}', status="ok", seconds=0.0)
    monkeypatch.setattr(runner, "run_hook", lambda *args, **kw: answered)  # the gate, not the hook
    env = make_project(isolated_home)
    package = _package(tmp_path)
    address = server_address(env.dirs.state, dict(os.environ))
    assert address is not None
    state = ServerState(address=address, idle_seconds=60, source=SourceFiles.of(package))
    header = {
        "protocol": 1,
        "agent": "codex",
        "event": "UserPromptSubmit",
        "deadline": 5,
        "cwd": str(env.cwd),
        "environ": dict(os.environ),
    }
    raw = hook_input("UserPromptSubmit", env, prompt="fill the PDF form fields")
    reply, caller = _reply((header, raw), state, env.dirs.state)
    assert reply == b'ok\n{"answer": 1}' and caller is not None and not state.stopping.is_set()

    _touch_later(package / "select" / "suggest.py")
    raw = hook_input("UserPromptSubmit", env, prompt="fill the PDF form fields")
    assert _reply((header, raw), state, env.dirs.state) == (b"no\n", None)
    assert state.stopping.is_set()
    logged = log_path(env.dirs.state).read_text(encoding="utf-8")
    assert "codex UserPromptSubmit declined by the hook server: skillshelf's source files changed" in logged
