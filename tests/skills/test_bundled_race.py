"""A folder of a skill swapped for a symlink while it is read never yields outside content.

Only the last component used to be opened with ``O_NOFOLLOW``: a thread renaming ``sub`` away
and putting a symlink to an outside folder in its place made ``read_confined_file`` return
the outside file 137 times in ~95,000 reads. Now each component is opened relative to the
folder before it, so a read sees the real folder, or fails, but never goes outside.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from skillshelf.errors import SkillshelfError
from skillshelf.skills.bundled import read_confined_file
from skillshelf.skills.load import load_skill
from skillshelf.skills.model import RootOrigin, Scope, Skill

READS = 20_000
# Swaps PATH for a symlink to TARGET and back, forever, in its own process (so it runs beside
# the reads instead of taking turns with them for the GIL); each state is held a few
# microseconds. On the code before the fix this gave 9 to 46 outside reads per 20,000.
SWAPPER = """
import os, sys
path, target = sys.argv[1], sys.argv[2]
aside = path + ".real"
while True:
    os.rename(path, aside)
    os.symlink(target, path)
    [0 for _ in range(1000)]
    os.unlink(path)
    os.rename(aside, path)
    [0 for _ in range(1000)]
"""


def _race(read: Callable[[], str], path: Path, target: Path, reads: int = READS) -> tuple[int, int]:
    """Read ``reads`` times while ``path`` is swapped for a symlink to ``target``: (leaks, failures)."""
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(path), str(target)])
    leaks = refused = 0
    try:
        for _ in range(reads):
            try:
                leaks += "OUTSIDE" in read()
            except (SkillshelfError, OSError):
                refused += 1
    finally:
        swapper.kill()
        swapper.wait()
    aside = path.with_name(path.name + ".real")
    if aside.exists():  # killed mid-swap: put the real one back
        if path.is_symlink():
            path.unlink()
        aside.rename(path)
    return leaks, refused


def test_read_confined_file_never_reads_through_a_folder_swapped_for_a_symlink(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    (skill / "sub").mkdir(parents=True)
    (skill / "sub" / "f.txt").write_text("inside\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("OUTSIDE SECRET\n", encoding="utf-8")
    leaks, refused = _race(
        lambda: read_confined_file(skill, "sub/f.txt", skill="r").text or "", skill / "sub", outside
    )
    assert leaks == 0
    assert refused > 0  # the swap did happen while reading


def test_load_skill_never_reads_a_skill_md_swapped_in_through_a_symlink(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = root / "r"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: r\ndescription: inside\n---\ninside\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_text("OUTSIDE SECRET\n", encoding="utf-8")
    skill = Skill(
        name="r",
        description="inside",
        path=folder / "SKILL.md",
        root=root,
        scope=Scope.REPO,
        origin=RootOrigin.AGENTS_REPO,
    )
    leaks, _ = _race(
        lambda: load_skill([skill], "r", max_files=0).contents, folder / "SKILL.md", outside / "SKILL.md"
    )
    assert leaks == 0


def test_a_hard_linked_file_is_refused(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    skill.mkdir()
    (tmp_path / "secret.txt").write_text("top secret\n", encoding="utf-8")
    os.link(tmp_path / "secret.txt", skill / "notes.txt")
    try:
        read_confined_file(skill, "notes.txt", skill="r")
    except SkillshelfError as exc:
        assert exc.code == "SS403" and "hard-linked" in exc.message
    else:
        raise AssertionError("a hard-linked file was read")
