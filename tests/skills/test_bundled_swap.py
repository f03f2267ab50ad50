"""A skill's files are read in the folder discovery found, even after that folder is swapped.

Discovery finds a skill in a real folder; replacing that folder (or a folder above it) with a
symlink afterwards must not let a read follow it out (``SS403``). A skill discovery found
through a symlinked folder (Codex follows them) keeps being read in the real folder the link
led to.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from skill_tree_helpers import only_skill

from skillshelf.errors import PathEscapeError
from skillshelf.skills.bundled import discovered_folder, read_bundled_file


def _skill_in(folder: Path, body: str = "body") -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {folder.name}\ndescription: d\n---\n{body}\n", "utf-8")
    (folder / "notes.md").write_text(f"notes of {folder.name}\n", "utf-8")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside every root, holding a secret where a swapped-in link would lead."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "notes.md").write_text("the password is hunter2\n", "utf-8")
    return folder


def test_a_skill_folder_swapped_for_a_symlink_after_discovery_is_not_read(
    tmp_path: Path, outside: Path
) -> None:
    _skill_in(tmp_path / "root" / "s")
    skill = only_skill(tmp_path / "root")
    assert read_bundled_file(skill, "notes.md").text == "notes of s\n"
    shutil.rmtree(tmp_path / "root" / "s")
    os.symlink(outside, tmp_path / "root" / "s")
    with pytest.raises(PathEscapeError) as caught:
        read_bundled_file(skill, "notes.md")
    assert caught.value.code == "SS403" and "symlink" in str(caught.value)


def test_a_folder_above_the_skill_swapped_for_a_symlink_is_not_read(tmp_path: Path, outside: Path) -> None:
    _skill_in(tmp_path / "root" / "group" / "s")
    skill = only_skill(tmp_path / "root")
    (outside / "s").mkdir()
    (outside / "s" / "notes.md").write_text("outside\n", "utf-8")
    os.rename(tmp_path / "root", tmp_path / "aside")
    os.symlink(tmp_path / "aside", tmp_path / "root")  # the root itself is now a link
    with pytest.raises(PathEscapeError):
        read_bundled_file(skill, "notes.md")


def test_a_skill_found_through_a_symlinked_folder_is_read_in_the_folder_it_led_to(tmp_path: Path) -> None:
    _skill_in(tmp_path / "shared" / "s")
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "shared" / "s", tmp_path / "root" / "s")
    skill = only_skill(tmp_path / "root")
    assert skill.real_path == tmp_path / "shared" / "s" / "SKILL.md"
    assert read_bundled_file(skill, "notes.md").text == "notes of s\n"
    assert discovered_folder(skill) == tmp_path / "shared" / "s"


def test_a_linked_skill_whose_link_is_pointed_elsewhere_stays_in_the_folder_discovery_resolved(
    tmp_path: Path, outside: Path
) -> None:
    _skill_in(tmp_path / "shared" / "s")
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "shared" / "s", tmp_path / "root" / "s")
    skill = only_skill(tmp_path / "root")
    os.unlink(tmp_path / "root" / "s")
    os.symlink(outside, tmp_path / "root" / "s")
    assert read_bundled_file(skill, "notes.md").text == "notes of s\n"


def test_the_folder_a_linked_skill_resolved_to_swapped_for_a_symlink_is_not_read(
    tmp_path: Path, outside: Path
) -> None:
    _skill_in(tmp_path / "shared" / "s")
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "shared" / "s", tmp_path / "root" / "s")
    skill = only_skill(tmp_path / "root")
    shutil.rmtree(tmp_path / "shared" / "s")
    os.symlink(outside, tmp_path / "shared" / "s")
    with pytest.raises(PathEscapeError):
        read_bundled_file(skill, "notes.md")


def test_a_skill_whose_skill_md_is_a_link_is_read_in_its_own_folder(tmp_path: Path) -> None:
    _skill_in(tmp_path / "shared" / "s")
    (tmp_path / "root" / "s").mkdir(parents=True)
    os.symlink(tmp_path / "shared" / "s" / "SKILL.md", tmp_path / "root" / "s" / "SKILL.md")
    (tmp_path / "root" / "s" / "notes.md").write_text("beside the link\n", "utf-8")
    real = only_skill(tmp_path / "shared")
    # as Claude Code's roots find it (they follow a linked SKILL.md; Codex's skip it)
    skill = replace(real, path=tmp_path / "root" / "s" / "SKILL.md", real_path=real.path)
    assert read_bundled_file(skill, "notes.md").text == "beside the link\n"


def test_a_linked_folder_whose_skill_md_is_a_link_too_is_read_beside_that_link(tmp_path: Path) -> None:
    _skill_in(tmp_path / "shared" / "s")
    store = tmp_path / "store" / "s"
    store.mkdir(parents=True)
    os.symlink(tmp_path / "shared" / "s" / "SKILL.md", store / "SKILL.md")
    (store / "own.md").write_text("beside the link\n", "utf-8")
    (tmp_path / "root").mkdir()
    os.symlink(store, tmp_path / "root" / "s")  # as `install --for all` links a skill for Claude Code
    real = only_skill(tmp_path / "shared")
    skill = replace(real, path=tmp_path / "root" / "s" / "SKILL.md", real_path=real.path)
    assert discovered_folder(skill) == store
    assert read_bundled_file(skill, "own.md").text == "beside the link\n"
