"""``remove`` of a ``--for all`` skill is all or nothing: a link it cannot take away leaves the
folder, the lock entry and every link as they were, so a later ``remove`` finishes the job."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.install import install_skill, read_lock
from testkit import IsolatedHome, bound_by_file_modes


def _remove_bound_by_modes(name: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = "import sys; from skillshelf.cli.entry import main; sys.exit(main())"
    return subprocess.run(
        [*bound_by_file_modes(), sys.executable, "-c", script, "remove", name],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def test_remove_that_cannot_take_away_a_link_changes_nothing_and_can_run_again(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(str(write_skill(tmp_path / "src" / "foo", "foo")), env=env, target="all")
    (link,) = map(Path, installed.entry.links)
    os.chmod(link.parent, 0o555)
    try:
        refused = _remove_bound_by_modes("foo", tmp_path)
    finally:
        os.chmod(link.parent, 0o755)
    assert refused.returncode == 1 and "IS316" in refused.stderr and str(link) in refused.stderr
    assert installed.path.is_dir() and link.is_symlink() and link.resolve() == installed.path
    assert read_lock(installed.path.parent).get("foo") is not None
    done = _remove_bound_by_modes("foo", tmp_path)
    assert done.returncode == 0, done.stderr
    assert not installed.path.exists() and not link.is_symlink()


def test_remove_puts_taken_links_back_when_the_lock_cannot_be_written(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.install import manage

    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(str(write_skill(tmp_path / "src" / "foo", "foo")), env=env, target="all")
    (link,) = map(Path, installed.entry.links)

    def full_disk(root: Path, lock: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(manage, "write_lock", full_disk)
    with pytest.raises(Exception) as caught:
        manage.remove_skill("foo", env=env)
    assert getattr(caught.value, "code", None) == "IS307"
    assert installed.path.is_dir() and link.is_symlink() and link.resolve() == installed.path


def test_the_fix_for_a_moved_source_installs_again_for_the_same_agents(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    from skillshelf.install import update_skills

    env = make_env(tmp_path, isolated_home.home)
    gone = write_skill(tmp_path / "src" / "foo", "foo")
    install_skill(str(gone), env=env, target="all")
    (gone / "SKILL.md").unlink()
    gone.rmdir()
    (result,) = update_skills(env=env)
    assert result.status == "failed" and "IS103" in result.message
    assert "--name foo --scope user --for all --force" in result.message
