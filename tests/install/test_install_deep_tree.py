"""Folder trees deeper than Python's recursion limit: install, hash, remove, and staging leftovers.

A skill (or a stale staging folder) 1,100 folders deep used to end in ``RecursionError``
(``shutil.rmtree`` and the copy plan recurse once per level), left its staging folder behind,
and that leftover then broke every later install in the scope.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.install import content_hash, install_skill, remove_skill, update_skills
from skillshelf.install.files import TMP_DIR_NAME
from testkit import IsolatedHome

DEPTH = 1100


def _deep(folder: Path, depth: int = DEPTH, leaf: str = "f") -> Path:
    """``folder/d/d/.../d/<leaf>`` ``depth`` levels down, made without long absolute paths."""
    folder.mkdir(parents=True, exist_ok=True)
    top = os.open(folder, os.O_RDONLY)
    fd = top
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            if fd != top:
                os.close(fd)
            fd = below
        leaf_fd = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf_fd, b"x")
        os.close(leaf_fd)
    finally:
        if fd != top:
            os.close(fd)
        os.close(top)
    return folder


@pytest.fixture(autouse=True)
def _cleanup(tmp_path: Path) -> Iterator[None]:
    """pytest's own clean-up of old temporary folders uses ``shutil.rmtree``, which these trees
    would overflow: remove them here with ``rm -rf`` (iterative)."""
    yield
    subprocess.run(["rm", "-rf", *map(str, tmp_path.iterdir())], check=False)


def test_a_skill_1100_folders_deep_installs_hashes_and_removes(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = _deep(write_skill(tmp_path / "src" / "deep", "deep"))
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(str(source), env=env)
    assert installed.entry.content_hash == content_hash(source)
    staging = installed.path.parent.parent / TMP_DIR_NAME
    assert not staging.exists()
    assert [r.status for r in update_skills(env=env)] == ["up-to-date"]
    remove_skill("deep", env=env)
    assert not installed.path.exists()
    assert not staging.exists()


def test_a_failed_install_of_a_deep_tree_leaves_no_staging_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "src" / "broken"
    _deep(source)
    (source / "SKILL.md").write_text("---\nname: broken\n---\nno description\n", encoding="utf-8")
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(Exception) as caught:
        install_skill(str(source), env=env)
    assert getattr(caught.value, "code", None) == "IS320"
    home = isolated_home.home
    for skills_parent in (home / ".agents", home / ".claude", env.dirs.data):
        assert not (skills_parent / TMP_DIR_NAME).exists()


def test_a_stale_deep_staging_folder_never_blocks_the_next_install(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    first = install_skill(str(write_skill(tmp_path / "src" / "first", "first")), env=env)
    staging = first.path.parent.parent / TMP_DIR_NAME  # beside the skills folder install used
    _deep(staging / "install-killed")
    outside = tmp_path / "outside"
    (outside / "keep.txt").parent.mkdir()
    (outside / "keep.txt").write_text("keep\n", encoding="utf-8")
    (staging / "install-killed" / "d" / "link").symlink_to(outside, target_is_directory=True)
    result = install_skill(str(write_skill(tmp_path / "src" / "ok", "ok")), env=env)
    assert result.path.is_dir()
    assert not staging.exists()
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "keep\n"


def test_remove_tree_takes_files_links_and_deep_folders_but_never_follows_a_link(tmp_path: Path) -> None:
    from skillshelf.install.files import remove_tree

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n", encoding="utf-8")
    target = _deep(tmp_path / "target")
    (target / "to-outside").symlink_to(outside, target_is_directory=True)
    (target / "d" / "file").write_text("x", encoding="utf-8")
    remove_tree(target)
    assert not target.exists() and (outside / "keep.txt").is_file()
    (tmp_path / "lone").write_text("x", encoding="utf-8")
    remove_tree(tmp_path / "lone")
    remove_tree(tmp_path / "missing")
    link = tmp_path / "link"
    link.symlink_to(outside, target_is_directory=True)
    remove_tree(link)
    assert not link.is_symlink() and (outside / "keep.txt").is_file()
