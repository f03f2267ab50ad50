"""A ``.git`` made inside an installed skill (``install`` copies none) is a change by hand:
``update`` and ``remove`` leave it alone without ``--force``, and keep it aside with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import commit_all, git, init_repo, make_env, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock, remove_skill, update_skills
from skillshelf.install.lock import content_hash
from skillshelf.install.provenance import locally_modified
from testkit import IsolatedHome


def _history(folder: Path) -> str:
    return git(folder, "log", "--format=%s")


def _installed_with_history(tmp_path: Path, isolated_home: IsolatedHome) -> tuple[Path, Path]:
    """An installed skill the user made a repository of (one commit), and its changed source."""
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "gt", "gt", body="v1")
    installed = install_skill(str(source), env=env, target="codex").path
    init_repo(installed)
    commit_all(installed, "my history")
    write_skill(source, "gt", body="upstream v2")
    return installed, source


def test_update_leaves_a_skill_with_its_own_repository_alone_and_force_keeps_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    installed, _ = _installed_with_history(tmp_path, isolated_home)

    (skipped,) = update_skills(["gt"], env=env)
    assert skipped.status == "skipped" and "changed locally" in skipped.message
    assert _history(installed) == "my history"
    (checked,) = update_skills(["gt"], env=env, check=True)
    assert "changed locally" in checked.message

    (forced,) = update_skills(["gt"], env=env, force=True)
    assert forced.status == "updated" and forced.kept is not None
    assert _history(forced.kept) == "my history"
    assert "upstream v2" in (installed / "SKILL.md").read_text(encoding="utf-8")
    assert not (installed / ".git").exists()


def test_remove_refuses_a_skill_with_its_own_repository_and_force_keeps_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    installed, _ = _installed_with_history(tmp_path, isolated_home)

    with pytest.raises(InstallError) as refused:
        remove_skill("gt", env=env)
    assert refused.value.code == "IS405"
    assert _history(installed) == "my history" and read_lock(installed.parent).get("gt") is not None

    removed = remove_skill("gt", env=env, force=True)
    assert removed.kept is not None and _history(removed.kept) == "my history"
    assert not installed.exists()


@pytest.mark.parametrize("where", [".git", "scripts/.git"])
@pytest.mark.parametrize("kind", ["folder", "file"])
def test_a_git_file_or_folder_anywhere_in_an_installed_skill_is_a_change(
    tmp_path: Path, isolated_home: IsolatedHome, where: str, kind: str
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "gt", "gt")
    (source / "scripts").mkdir()
    (source / "scripts" / "run.sh").write_text("echo hi\n", encoding="utf-8")
    installed = install_skill(str(source), env=env, target="codex")
    assert not locally_modified(installed.path, installed.entry)
    made = installed.path / where
    if kind == "folder":
        made.mkdir()
        (made / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    else:
        made.write_text("gitdir: ../.git/modules/gt\n", encoding="utf-8")

    assert locally_modified(installed.path, installed.entry)


def test_the_hash_of_a_folder_without_git_is_the_recorded_one_and_a_repository_is_not_read(
    tmp_path: Path,
) -> None:
    folder = write_skill(tmp_path / "gt", "gt")
    plain = content_hash(folder)
    assert content_hash(folder, with_git=True) == plain

    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert content_hash(folder) == plain  # a source's .git is never part of the skill
    with_repository = content_hash(folder, with_git=True)
    assert with_repository != plain
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/other\n", encoding="utf-8")
    (folder / ".git" / "index").write_bytes(b"\x00" * 64)
    assert content_hash(folder, with_git=True) == with_repository
