"""``load_skill`` reads the SKILL.md discovery found, even after its folder is swapped for a link.

The bundled files' side of this is in ``test_bundled_swap.py``; here the SKILL.md itself: a
folder (or one above it) replaced with a symlink since discovery is refused (``SS403``), and a
skill that a symlink led to (a linked folder, or a linked SKILL.md as Claude Code's roots
follow) is read from the real file discovery resolved.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from skill_tree_helpers import only_skill

from skillshelf.errors import PathEscapeError
from skillshelf.skills.load import handle_load_skill, load_skill


def _skill_in(folder: Path, body: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: s\ndescription: d\n---\n{body}\n", "utf-8")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside every root whose SKILL.md a swapped-in link would lead to."""
    folder = tmp_path / "outside"
    _skill_in(folder, "the password is hunter2")
    return folder


def test_a_skill_folder_swapped_for_a_symlink_after_discovery_is_not_loaded(
    tmp_path: Path, outside: Path
) -> None:
    _skill_in(tmp_path / "root" / "s", "inside")
    skill = only_skill(tmp_path / "root")
    assert "inside" in load_skill([skill], "s").contents
    shutil.rmtree(tmp_path / "root" / "s")
    os.symlink(outside, tmp_path / "root" / "s")
    with pytest.raises(PathEscapeError) as caught:
        load_skill([skill], "s")
    assert caught.value.code == "SS403"
    answer = handle_load_skill([skill], {"name": "s"})
    assert answer.startswith("Error:") and "hunter2" not in answer


def test_a_folder_above_the_skill_swapped_for_a_symlink_is_not_loaded(tmp_path: Path, outside: Path) -> None:
    _skill_in(tmp_path / "root" / "group" / "s", "inside")
    skill = only_skill(tmp_path / "root")
    (tmp_path / "elsewhere" / "group").mkdir(parents=True)
    os.symlink(outside, tmp_path / "elsewhere" / "group" / "s")
    os.rename(tmp_path / "root", tmp_path / "aside")
    os.symlink(tmp_path / "elsewhere", tmp_path / "root")
    with pytest.raises(PathEscapeError):
        load_skill([skill], "s")


def test_a_skill_found_through_a_linked_folder_loads_from_the_folder_it_led_to(
    tmp_path: Path, outside: Path
) -> None:
    _skill_in(tmp_path / "shared" / "s", "shared body")
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path / "shared" / "s", tmp_path / "root" / "s")
    skill = only_skill(tmp_path / "root")
    os.unlink(tmp_path / "root" / "s")  # the link pointed elsewhere since discovery
    os.symlink(outside, tmp_path / "root" / "s")
    loaded = load_skill([skill], "s")
    assert "shared body" in loaded.contents and "hunter2" not in loaded.contents


def test_a_skill_whose_skill_md_is_a_link_loads_the_file_it_leads_to(tmp_path: Path) -> None:
    _skill_in(tmp_path / "shared" / "s", "shared body")
    (tmp_path / "root" / "s").mkdir(parents=True)
    os.symlink(tmp_path / "shared" / "s" / "SKILL.md", tmp_path / "root" / "s" / "SKILL.md")
    real = only_skill(tmp_path / "shared")
    # as Claude Code's roots find it (they follow a linked SKILL.md)
    skill = replace(real, path=tmp_path / "root" / "s" / "SKILL.md", real_path=real.path)
    loaded = load_skill([skill], "s")
    assert "shared body" in loaded.contents
    assert f"<path>{real.path}</path>" in loaded.fragment
