"""SkillFolders never lets read_file read the whole file system: a skill whose folder is ``/``
(as written or once symlinks are followed) opens nothing, and a folder holds only its own paths."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from skillshelf.agent.skill_reads import SkillFolders
from skillshelf.skills.discover import discover_in
from skillshelf.skills.model import Skill


def _skill(root: Path, name: str = "deploy") -> Skill:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Deploy it.\n---\nSteps.\n", encoding="utf-8"
    )
    (skill,) = discover_in([root]).skills
    return skill


def test_a_skill_folder_that_is_the_root_matches_no_path(tmp_path: Path) -> None:
    rooted = replace(_skill(tmp_path / "skills"), path=Path("/SKILL.md"))
    folders = SkillFolders([rooted])
    assert folders.find(tmp_path, "/etc/hostname") is None
    assert folders.find(tmp_path, str(tmp_path / "skills" / "deploy" / "SKILL.md")) is None


def test_a_skill_folder_that_is_a_symlink_to_the_root_matches_no_path(tmp_path: Path) -> None:
    skill = _skill(tmp_path / "skills")
    link = tmp_path / "to-root"
    link.symlink_to("/")
    folders = SkillFolders([replace(skill, path=link / "SKILL.md")])
    assert folders.find(tmp_path, "/etc/hostname") is None
    assert folders.find(tmp_path, str(link / "etc" / "hostname")) is None


def test_a_skill_folder_holds_its_files_and_not_a_sibling_sharing_its_name_prefix(tmp_path: Path) -> None:
    skill = _skill(tmp_path / "skills")
    (tmp_path / "skills" / "deploy-other").mkdir()
    folders = SkillFolders([skill])
    assert folders.find(tmp_path, "skills/deploy/SKILL.md") == (skill, "SKILL.md")
    assert folders.find(tmp_path, "skills/deploy-other/SKILL.md") is None
    assert folders.find(tmp_path, "skills/deploy") is None
