"""Skills a pack gains, as ``update`` installs them: links only in the agents' own skills
folders, and a skill that could not be installed is tried again by the next ``update``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from install_helpers import commit_all, init_repo, make_env, write_skill

from skillshelf.install import install_skill, read_lock, update_skills
from skillshelf.install.lock import LOCK_FILE_NAME
from skillshelf.install.many import install_all
from testkit import IsolatedHome


def _statuses(results: Any) -> dict[str, str]:
    return {r.name: r.status for r in results}


def test_a_gained_skill_gets_no_link_a_committed_lock_names_outside_the_agents_folders(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    write_skill(project / "vendor" / "pack" / "a", "a")
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    result = install_all("vendor/pack", env=env, scope="project", target="all")
    root = result.installed[0].path.parent
    user_claude = isolated_home.home / ".claude" / "skills"
    outside = tmp_path / "outside" / "evil"
    lock_path = root / LOCK_FILE_NAME
    data = json.loads(lock_path.read_text(encoding="utf-8"))
    data["skills"]["a"]["links"] = [
        os.path.relpath(user_claude / "a", root),
        os.path.relpath(outside / "a", root),
    ]
    lock_path.write_text(json.dumps(data), encoding="utf-8")
    write_skill(project / "vendor" / "pack" / "b", "b")

    assert _statuses(update_skills(env=env, scope="project"))["b"] == "added"

    assert not (user_claude / "b").exists() and not (user_claude / "b").is_symlink()
    assert not (tmp_path / "outside").exists()
    b = read_lock(root).get("b")
    assert b is not None and (root / "b" / "SKILL.md").is_file()
    assert all(Path(link).parent == project / ".claude" / "skills" for link in b.links)


def test_a_gained_skill_that_failed_for_a_taken_name_is_listed_and_installed_once_the_name_is_free(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = tmp_path / "shelf"
    write_skill(source / "a", "a")
    env = make_env(tmp_path, isolated_home.home)
    root = install_all(str(source), env=env, target="codex").installed[0].path.parent
    write_skill(source / "b", "b", "The pack's own b skill, new since the install.")
    write_skill(root / "b", "b", "The user's own b skill, made by hand.")

    assert _statuses(update_skills(env=env))["b"] == "failed"
    (root / "b").rename(tmp_path / "my-b")

    assert _statuses(update_skills(env=env, check=True))["b"] == "new"
    assert _statuses(update_skills(env=env))["b"] == "added"
    assert "pack's own" in (root / "b" / "SKILL.md").read_text(encoding="utf-8")


def test_a_git_pack_whose_gained_skill_failed_is_fetched_again_though_its_commit_did_not_move(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = init_repo(tmp_path / "pack")
    write_skill(repo / "a", "a")
    commit_all(repo, "first")
    env = make_env(tmp_path, isolated_home.home)
    root = install_all(repo.as_uri(), env=env, target="codex").installed[0].path.parent
    write_skill(repo / "b", "b")
    commit_all(repo, "b joins")
    write_skill(root / "b", "b", "The user's own b skill, made by hand.")

    assert _statuses(update_skills(env=env))["b"] == "failed"
    (root / "b").rename(tmp_path / "my-b")

    assert _statuses(update_skills(env=env))["b"] == "added"
    assert read_lock(root).get("b") is not None


@pytest.mark.parametrize("subdir", ["../../secretdir", "/etc/secretdir", "a/../../secretdir"])
@pytest.mark.parametrize("pack", [True, False])
def test_a_recorded_subdir_that_leaves_the_source_is_refused_as_such(
    tmp_path: Path, isolated_home: IsolatedHome, subdir: str, pack: bool
) -> None:
    repo = init_repo(tmp_path / "pack")
    write_skill(repo / "a", "a")
    write_skill(repo / "b", "b")
    commit_all(repo, "first")
    write_skill(tmp_path / "secretdir", "secret")
    env = make_env(tmp_path, isolated_home.home)
    if pack:
        root = install_all(repo.as_uri(), env=env, target="codex").installed[0].path.parent
    else:
        root = install_skill(f"{repo.as_uri()}#a", env=env, target="codex").path.parent
    lock_path = root / LOCK_FILE_NAME
    data = json.loads(lock_path.read_text(encoding="utf-8"))
    data["skills"]["a"]["subdir"] = subdir
    lock_path.write_text(json.dumps(data), encoding="utf-8")

    for check in (True, False):
        result = {r.name: r for r in update_skills(env=env, check=check)}["a"]
        assert result.status == "failed" and "leaves the repository" in result.message, result.message
    assert (root / "a" / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: a\n")
