"""A project whose root is the home folder (run from the home folder, or in a home that is a git
repository): its skills folders are the user's, so each installed skill counts once, as the
user's, the way ``install`` put it there and ``list`` shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.env import Env
from skillshelf.install import install_skill, list_installed, read_lock, remove_skill, update_skills
from skillshelf.install.manage import installed_roots, link_diagnostics, lock_diagnostics
from testkit import IsolatedHome


def _home_project_env(tmp_path: Path, home: Path, *, repository: bool) -> Env:
    """Working in ``~/notes`` of a home that is a git repository, or in the home folder itself."""
    if repository:
        (home / ".git").mkdir()
        cwd = home / "notes"
        cwd.mkdir()
    else:
        cwd = home
    env = make_env(tmp_path, home, cwd=cwd)
    assert env.project_root == home
    return env


@pytest.mark.parametrize("repository", [True, False])
def test_a_skill_in_the_home_skills_folder_is_installed_once_as_the_users(
    tmp_path: Path, isolated_home: IsolatedHome, repository: bool
) -> None:
    env = _home_project_env(tmp_path, isolated_home.home, repository=repository)
    source = write_skill(tmp_path / "src" / "s1", "s1", body="v1")
    installed = install_skill(str(source), env=env, target="codex")
    assert installed.path == isolated_home.home / ".agents" / "skills" / "s1"

    assert [(i.scope, i.path) for i in list_installed(env)] == [("user", installed.path)]
    roots = installed_roots(env)
    assert len(roots) == len(set(roots)) and roots.count(installed.path.parent) == 1

    write_skill(source, "s1", body="v2")
    assert [(r.scope, r.status) for r in update_skills(env=env)] == [("user", "updated")]
    assert [(r.scope, r.status) for r in update_skills(env=env, force=True)] == [("user", "up-to-date")]

    removed = remove_skill("s1", env=env)
    assert (removed.scope, removed.path) == ("user", installed.path)
    assert not installed.path.exists() and read_lock(installed.path.parent).get("s1") is None


def test_the_home_skills_folder_is_still_found_when_the_project_scope_is_asked_for(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = _home_project_env(tmp_path, isolated_home.home, repository=True)
    source = write_skill(tmp_path / "src" / "s1", "s1")
    install_skill(str(source), env=env, target="codex")

    assert [i.scope for i in list_installed(env, scope="project")] == ["project"]
    assert remove_skill("s1", env=env, scope="project").scope == "project"


def test_a_lock_problem_of_the_home_skills_folder_is_reported_once(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = _home_project_env(tmp_path, isolated_home.home, repository=True)
    source = write_skill(tmp_path / "src" / "s1", "s1")
    installed = install_skill(str(source), env=env, target="codex")
    lock = installed.path.parent / ".skillshelf-lock.json"
    lock.write_text(
        lock.read_text(encoding="utf-8").replace('"agents"', '"links": ["../../elsewhere/s1"],\n"agents"'),
        encoding="utf-8",
    )
    assert [d.code for d in link_diagnostics(env)] == ["IS402"]
    lock.write_text("{", encoding="utf-8")
    assert [d.code for d in lock_diagnostics(installed_roots(env))] == ["IS401"]
