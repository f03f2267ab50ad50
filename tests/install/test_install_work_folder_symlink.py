"""The work folder beside a skills root is never followed through a symlink: a project that
commits ``.agents/.skillshelf-tmp`` as a link to a folder of the user's loses only that link."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.env import Env
from skillshelf.errors import InstallError
from skillshelf.install import install_skill, update_skills
from skillshelf.install.files import TMP_DIR_NAME, workspace
from testkit import IsolatedHome


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    (victim / "Documents").mkdir(parents=True)
    (victim / "Documents" / "thesis.txt").write_text("precious\n", encoding="utf-8")
    (victim / "todo.txt").write_text("notes\n", encoding="utf-8")
    return victim


def _project(tmp_path: Path, home: Path) -> tuple[Env, Path]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agents").mkdir()
    return make_env(tmp_path, home, cwd=project), project


def _untouched(victim: Path) -> bool:
    return (victim / "Documents" / "thesis.txt").read_text(encoding="utf-8") == "precious\n" and (
        victim / "todo.txt"
    ).is_file()


def test_install_removes_a_symlinked_work_folder_and_never_what_it_points_to(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    victim = _victim(tmp_path)
    env, project = _project(tmp_path, isolated_home.home)
    (project / ".agents" / TMP_DIR_NAME).symlink_to(victim)
    source = write_skill(tmp_path / "src" / "demo", "demo")

    result = install_skill(str(source), env=env, scope="project")

    assert (result.path / "SKILL.md").is_file()
    assert _untouched(victim)
    assert not (project / ".agents" / TMP_DIR_NAME).is_symlink()


def test_update_in_a_cloned_project_with_a_symlinked_work_folder_deletes_nothing_behind_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    victim = _victim(tmp_path)
    env, project = _project(tmp_path, isolated_home.home)
    source = write_skill(project / "vendor" / "demo", "demo")
    result = install_skill("vendor/demo", env=env, scope="project")
    (source / "x").write_text("changed\n", encoding="utf-8")
    (project / ".agents" / TMP_DIR_NAME).symlink_to(victim)

    update_skills(env=env, scope="project", force=True)

    assert _untouched(victim)
    assert (result.path / "x").is_file()


def test_a_work_folder_name_taken_by_a_file_is_refused_with_a_code(tmp_path: Path) -> None:
    root = tmp_path / ".agents" / "skills"
    root.mkdir(parents=True)
    (root.parent / TMP_DIR_NAME).write_text("not a folder\n", encoding="utf-8")
    with pytest.raises(InstallError) as caught, workspace(root):
        pass
    assert caught.value.code == "IS313" and caught.value.hint
    assert (root.parent / TMP_DIR_NAME).read_text(encoding="utf-8") == "not a folder\n"
