"""A project's skills folders are written only inside the project: a committed symlink that
leads out of it (``.claude -> ~/.claude``, ``.agents -> a folder of the user's``) makes
install, update and remove refuse (``IS314``) before anything is written there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from install_helpers import make_env, tree, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, remove_skill, update_skills
from skillshelf.install.many import install_all
from testkit import IsolatedHome


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


@pytest.mark.parametrize("linked", [".claude", ".agents"])
def test_install_into_a_project_folder_linked_out_of_it_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome, linked: str
) -> None:
    project = _project(tmp_path)
    outside = tmp_path / "users-own"
    outside.mkdir()
    (project / linked).symlink_to(outside)
    source = write_skill(tmp_path / "src" / "tool", "tool")
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    for install in (
        lambda: install_skill(str(source), env=env, scope="project", target="all"),
        lambda: install_all(str(source.parent), env=env, scope="project", target="all"),
    ):
        with pytest.raises(InstallError) as caught:
            install()
        assert caught.value.code == "IS314" and str(outside) in caught.value.message
        assert caught.value.hint.startswith(f"remove the symlink {project / linked} (")
    assert tree(outside) == [] and tree(project) == sorted([".git", linked])


def test_update_and_remove_refuse_a_skills_folder_that_now_leads_out_of_the_project(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = _project(tmp_path)
    source = write_skill(project / "vendor" / "tool", "tool")  # inside: update copies from it
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    install_skill(str(source), env=env, scope="project", target="codex")
    outside = tmp_path / "users-own"
    shutil.move(project / ".agents", outside)
    (project / ".agents").symlink_to(outside)
    write_skill(source, "tool", body="changed upstream")
    before = tree(outside)

    for check in (True, False):
        (result,) = update_skills(env=env, scope="project", check=check)
        assert result.status == "failed" and "IS314" in result.message
    with pytest.raises(InstallError) as caught:
        remove_skill("tool", env=env, scope="project")
    assert caught.value.code == "IS314"
    assert tree(outside) == before and "changed upstream" not in (
        outside / "skills" / "tool" / "SKILL.md"
    ).read_text(encoding="utf-8")


def test_a_pack_s_new_skill_is_not_placed_through_a_links_folder_leading_out(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = _project(tmp_path)
    write_skill(project / "vendor" / "pack" / "a", "a")
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    install_all("vendor/pack", env=env, scope="project", target="all")
    outside = tmp_path / "users-claude"
    shutil.move(project / ".claude", outside)
    (project / ".claude").symlink_to(outside)
    write_skill(project / "vendor" / "pack" / "b", "b")
    before = tree(outside)

    for check in (True, False):
        results = {r.name: r for r in update_skills(env=env, scope="project", check=check)}
        assert results["b"].status == "failed" and "IS314" in results["b"].message
    assert tree(outside) == before and not (project / ".agents" / "skills" / "b").exists()
