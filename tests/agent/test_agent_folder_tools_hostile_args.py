"""The agent's folder tools under hostile arguments: no crash, no emptied file, bounded memory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillshelf.agent.folder_tools import FolderTools


@pytest.fixture
def tools(tmp_path: Path) -> FolderTools:
    return FolderTools(tmp_path)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "important.txt", "old_text": "precious", "new_text": "\ud800"}),
        ("write_file", {"path": "important.txt", "content": "new \udfff text"}),
    ],
)
def test_a_lone_surrogate_is_refused_and_the_file_keeps_its_content_and_mode(
    tmp_path: Path, tools: FolderTools, tool: str, arguments: dict[str, str]
) -> None:
    target = tmp_path / "important.txt"
    target.write_text("precious\n", encoding="utf-8")
    target.chmod(0o640)
    outcome = tools.execute(tool, arguments)
    assert outcome.is_error and "surrogate" in outcome.text and outcome.edited is None
    assert target.read_text(encoding="utf-8") == "precious\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["important.txt"]


def test_writes_replace_the_file_in_one_rename_and_keep_its_mode(tmp_path: Path, tools: FolderTools) -> None:
    target = tmp_path / "run.sh"
    target.write_text("echo one\n", encoding="utf-8")
    target.chmod(0o750)
    before = target.stat().st_ino
    assert not tools.execute("edit_file", {"path": "run.sh", "old_text": "one", "new_text": "two"}).is_error
    assert target.read_text(encoding="utf-8") == "echo two\n"
    assert target.stat().st_mode & 0o777 == 0o750 and target.stat().st_ino != before
    assert not tools.execute("write_file", {"path": "sub/new.txt", "content": "é\n"}).is_error
    assert (tmp_path / "sub" / "new.txt").read_bytes() == "é\n".encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh", "sub"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"command": "echo hi", "timeout": 10**12},
        {"command": "echo hi", "timeout": -1},
        {"command": "echo hi", "timeout": True},
        {"command": "echo hi", "timeout": "5"},
        {"command": "echo hi", "timeout": 2.5},
        {"command": "echo a\x00b"},
        {"command": ""},
        {"command": 5},
    ],
)
def test_out_of_range_bash_arguments_are_error_results(
    tools: FolderTools, arguments: dict[str, object]
) -> None:
    outcome = tools.execute("bash", arguments)
    assert outcome.is_error and outcome.text.startswith("error: ")


def test_paths_the_file_system_cannot_name_are_error_results(tools: FolderTools) -> None:
    for tool in ("read_file", "write_file", "edit_file"):
        arguments = {"path": "a\ud800b", "content": "x", "old_text": "x", "new_text": "y"}
        outcome = tools.execute(tool, arguments)
        assert outcome.is_error and outcome.text.startswith("error: ")


def test_long_output_keeps_its_head_and_tail_and_says_what_was_cut(tools: FolderTools) -> None:
    command = "echo FIRST-LINE; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo LAST-LINE >&2"
    outcome = tools.execute("bash", {"command": command})
    assert not outcome.is_error and outcome.exit_code == 0
    assert outcome.text.startswith("exit code 0\nFIRST-LINE\n")
    assert outcome.text.rstrip().endswith("LAST-LINE")
    assert "bytes of output cut" in outcome.text and len(outcome.text) < 31_000


def test_a_background_child_holding_the_output_open_does_not_keep_the_tool_waiting(
    tmp_path: Path, tools: FolderTools
) -> None:
    outcome = tools.execute(
        "bash", {"command": "sleep 300 & echo $! > child.pid; echo started", "timeout": 120}
    )
    child = int((tmp_path / "child.pid").read_text(encoding="utf-8"))
    try:
        assert (outcome.is_error, outcome.exit_code) == (False, 0)
        assert "started" in outcome.text
    finally:
        os.kill(child, signal.SIGKILL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the child's state")
def test_a_timeout_kills_the_whole_command_group(tmp_path: Path, tools: FolderTools) -> None:
    outcome = tools.execute("bash", {"command": "sleep 300 & echo $! > child.pid; wait", "timeout": 1})
    assert outcome.is_error and outcome.exit_code == 124 and "timed out" in outcome.text
    child = int((tmp_path / "child.pid").read_text(encoding="utf-8"))
    for _ in range(100):  # SIGKILL is delivered asynchronously: give the kernel up to 10 s
        if not _running(child):
            break
        time.sleep(0.1)
    assert not _running(child)


def _running(pid: int) -> bool:
    """Alive and not a zombie (a killed grandchild may wait for a reaper in a container)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


# VmHWM is this process image's own peak (ru_maxrss would also count the pytest worker it was
# forked from, whose pages it shared until exec).
PEAK_RSS = """
import re, sys
from pathlib import Path
from skillshelf.agent.folder_tools import FolderTools
outcome = FolderTools(Path(sys.argv[1])).execute("bash", {"command": "head -c 400000000 /dev/zero"})
assert outcome.exit_code == 0, outcome.text[:200]
status = Path("/proc/self/status").read_text()
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) // 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to read the peak memory")
def test_400_mb_of_command_output_stays_under_300_mb_of_memory(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        encoding="utf-8",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    peak_mb = int(proc.stdout.strip())
    print(f"peak RSS running a command that prints 400 MB: {peak_mb} MB")
    assert peak_mb <= 300


def test_the_former_module_name_still_imports_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from skillshelf.agent import folder_tools

    monkeypatch.delitem(sys.modules, "skillshelf.agent.workspace", raising=False)
    with pytest.warns(DeprecationWarning, match="folder_tools"):
        old = importlib.import_module("skillshelf.agent.workspace")
    assert old.WorkspaceTools is folder_tools.FolderTools
    assert old.WORKSPACE_TOOLS is folder_tools.FOLDER_TOOLS
