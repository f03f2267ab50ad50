"""The staged copies of a memory folder that a killed consolidation left are removed by the next
one; those of live processes, other hosts or other users' making are not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from skillshelf.memory.consolidator import StagedFolder
from skillshelf.memory.staging import PREFIX, remove_stale_staging, staging_prefix

_KILLED_WHILE_STAGING = """
import os, signal, sys
from pathlib import Path
from skillshelf.memory.consolidator import StagedFolder
staged = StagedFolder(Path(sys.argv[1]), temp_dir=Path(sys.argv[2]))
print(staged.path, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _memory_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "memory"
    (folder / "rollout_summaries").mkdir(parents=True)
    (folder / "raw_memories.md").write_text("# Raw Memories\n", encoding="utf-8")
    (folder / "rollout_summaries" / "a.md").write_text("recap\n", encoding="utf-8")
    return folder


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    return int(done.stdout)


def test_a_folder_staged_by_a_killed_run_is_removed_by_the_next(tmp_path: Path) -> None:
    memory, temp = _memory_folder(tmp_path), tmp_path / "tmp"
    temp.mkdir()
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_WHILE_STAGING, str(memory), str(temp)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL
    left = Path(killed.stdout.strip())
    assert (left / "raw_memories.md").is_file()
    with StagedFolder(memory, temp_dir=temp) as staged:
        assert (staged.path / "raw_memories.md").is_file()
        assert not left.parent.exists()
    assert list(temp.iterdir()) == []


def test_staged_folders_of_live_processes_other_hosts_and_unknown_names_stay(tmp_path: Path) -> None:
    host = staging_prefix().removeprefix(PREFIX).split("-")[0]
    dead = _dead_pid()
    mine = tmp_path / (staging_prefix() + "live")
    other_host = tmp_path / f"{PREFIX}{'0' if host[0] != '0' else '1'}{host[1:]}-{dead}-00000000-x"
    unnamed = tmp_path / f"{PREFIX}k2j4x9"
    gone = tmp_path / f"{PREFIX}{host}-{dead}-00000000-x"
    for folder in (mine, other_host, unnamed, gone):
        folder.mkdir()
        (folder / "raw_memories.md").write_text("kept?\n", encoding="utf-8")
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / f"{PREFIX}{host}-{dead}-00000000-link"
    link.symlink_to(target)
    assert remove_stale_staging(tmp_path) == [gone]
    assert mine.is_dir() and other_host.is_dir() and unnamed.is_dir() and link.is_symlink()
    assert target.is_dir() and not gone.exists()


def test_a_reused_pid_does_not_keep_a_dead_runs_folder(tmp_path: Path) -> None:
    host = staging_prefix().removeprefix(PREFIX).split("-")[0]
    reused = tmp_path / f"{PREFIX}{host}-{os.getpid()}-ffffffff-x"  # this pid, another start
    reused.mkdir()
    assert remove_stale_staging(tmp_path) == [reused]
