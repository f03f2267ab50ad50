"""Config edits from several processes at once: each keeps its change, none waits forever."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from skillshelf.config import SkillMode, edit_text
from skillshelf.config.edit import set_skill_mode
from skillshelf.errors import ConfigError
from skillshelf.fileio import folder_lock

_DISABLE = """
import sys
from pathlib import Path
from skillshelf.config import SkillMode
from skillshelf.config.edit import set_skill_mode
set_skill_mode(Path(sys.argv[1]), sys.argv[2], SkillMode.DISABLED)
"""


def _names(path: Path) -> set[str]:
    return {e["name"] for e in tomllib.loads(path.read_text(encoding="utf-8"))["skills"]["config"]}


def test_eight_processes_disabling_at_once_all_keep_their_entry(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    names = [f"skill-{i}" for i in range(8)]
    runs = [
        subprocess.Popen([sys.executable, "-c", _DISABLE, str(path), name], stderr=subprocess.PIPE)
        for name in names
    ]
    for run in runs:
        _, err = run.communicate(timeout=60)
        assert run.returncode == 0, err.decode()
    assert _names(path) == set(names)


def test_an_edit_waits_for_the_folders_lock_and_then_builds_on_what_the_holder_wrote(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    with folder_lock(tmp_path):
        other = subprocess.Popen([sys.executable, "-c", _DISABLE, str(path), "late"], stderr=subprocess.PIPE)
        try:
            other.wait(timeout=1.5)  # it may not end while the lock is held
        except subprocess.TimeoutExpired:
            pass
        assert other.returncode is None
        path.write_text('[projects."/work/repo"]\ntrust_level = "trusted"\n', encoding="utf-8")
    assert other.wait(timeout=60) == 0
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["projects"]["/work/repo"]["trust_level"] == "trusted"
    assert _names(path) == {"late"}


def test_a_lock_held_past_the_wait_is_cf113_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edit_text, "EDIT_WAIT", 0.1)
    path = tmp_path / "config.toml"
    path.write_text('[catalog]\nformat = "codex"\n', encoding="utf-8")
    with folder_lock(tmp_path), pytest.raises(ConfigError) as info:
        set_skill_mode(path, "foo", SkillMode.DISABLED)
    assert info.value.code == "CF113" and info.value.hint
    assert path.read_text(encoding="utf-8") == '[catalog]\nformat = "codex"\n'
