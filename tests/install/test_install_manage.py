"""update / remove / provenance, driven by the lock file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from install_helpers import commit_all, git, init_repo, make_env, tree, write_skill

from skillshelf.config.edit import set_trust
from skillshelf.config.loader import CONFIG_NAME
from skillshelf.env import Env
from skillshelf.errors import InstallError, NotFoundError
from skillshelf.install import install_skill, installed_provenance, read_lock, remove_skill, update_skills
from skillshelf.skills.model import RootOrigin, Scope, Skill
from testkit import IsolatedHome


def _skill_at(folder: Path) -> Skill:
    return Skill(
        name=folder.name,
        description="d",
        path=folder / "SKILL.md",
        root=folder.parent,
        scope=Scope.USER,
        origin=RootOrigin.INSTALLED,
    )


def _upstream(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "upstream")
    write_skill(repo / "skills" / "lint-fix", "lint-fix", body="rule one")
    write_skill(repo / "skills" / "other", "other")
    commit_all(repo, "one")
    return repo


def test_update_after_upstream_change_installs_the_new_commit(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _upstream(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    first = install_skill(f"{repo.as_uri()}#skills/lint-fix", env=env)
    assert [r.status for r in update_skills(env=env)] == ["up-to-date"]
    write_skill(repo / "skills" / "lint-fix", "lint-fix", body="rule two")
    (repo / "skills" / "lint-fix" / "extra.md").write_text("new file\n", encoding="utf-8")
    second_commit = commit_all(repo, "two")
    (result,) = update_skills(["lint-fix"], env=env)
    assert (result.status, result.old_commit, result.new_commit) == (
        "updated",
        first.entry.commit,
        second_commit,
    )
    assert "rule two" in (first.path / "SKILL.md").read_text(encoding="utf-8")
    assert (first.path / "extra.md").is_file()
    entry = read_lock(first.path.parent).get("lint-fix")
    assert entry is not None and entry.commit == second_commit


def test_change_outside_the_subfolder_leaves_the_skill_up_to_date(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _upstream(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    install_skill(f"{repo.as_uri()}#skills/lint-fix", env=env)
    write_skill(repo / "skills" / "other", "other", body="changed elsewhere")
    commit_all(repo, "elsewhere")
    (result,) = update_skills(env=env)
    assert result.status == "up-to-date"


def test_check_says_which_skills_have_an_update_and_changes_nothing(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _upstream(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(f"{repo.as_uri()}#skills/lint-fix", env=env)
    local = tmp_path / "local" / "notes"
    write_skill(local, "notes", body="first")
    notes = install_skill(str(local), env=env)
    assert {r.name: r.status for r in update_skills(env=env, check=True)} == {
        "lint-fix": "up-to-date",
        "notes": "up-to-date",
    }
    write_skill(repo / "skills" / "other", "other", body="changed elsewhere")
    elsewhere = commit_all(repo, "elsewhere")
    (result,) = update_skills(["lint-fix"], env=env, check=True)
    assert result.status == "up-to-date" and "no change in the skill's files" in result.message
    write_skill(repo / "skills" / "lint-fix", "lint-fix", body="rule two")
    newer = commit_all(repo, "two")
    write_skill(local, "notes", body="second")
    (notes.path / "SKILL.md").write_text("edited here\n", encoding="utf-8")

    def files() -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in installed.path.parent.rglob("*") if p.is_file()}

    before = files()
    by_name = {r.name: r for r in update_skills(env=env, check=True)}
    assert (by_name["lint-fix"].status, by_name["lint-fix"].new_commit) == ("available", newer) != elsewhere
    assert by_name["notes"].status == "available" and "changed locally" in by_name["notes"].message
    assert files() == before  # the skills and the lock file are as they were
    shutil.rmtree(installed.path)
    (missing,) = update_skills(["lint-fix"], env=env, check=True)
    assert missing.status == "available" and "missing" in missing.message and not installed.path.exists()


def test_pinned_tag_follows_a_moved_tag_and_commit_pins_do_not_move(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _upstream(tmp_path)
    git(repo, "tag", "stable")
    env = make_env(tmp_path, isolated_home.home)
    first = git(repo, "rev-parse", "HEAD")
    install_skill(f"{repo.as_uri()}@stable#skills/lint-fix", env=env)
    install_skill(f"{repo.as_uri()}@{first}#skills/lint-fix", env=env, name="lint-pinned")
    write_skill(repo / "skills" / "lint-fix", "lint-fix", body="moved")
    commit_all(repo, "moved")
    git(repo, "tag", "-f", "stable")
    by_name = {r.name: r for r in update_skills(env=env)}
    assert by_name["lint-fix"].status == "updated"
    assert by_name["lint-pinned"].status == "up-to-date"
    assert "pinned" in by_name["lint-pinned"].message


def test_locally_modified_skill_is_not_overwritten_without_force(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = _upstream(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(f"{repo.as_uri()}#skills/lint-fix", env=env)
    (installed.path / "SKILL.md").write_text(
        "---\nname: lint-fix\ndescription: my own edit of the lint skill.\n---\nmine\n", encoding="utf-8"
    )
    write_skill(repo / "skills" / "lint-fix", "lint-fix", body="upstream two")
    commit_all(repo, "two")
    (skipped,) = update_skills(env=env)
    assert skipped.status == "skipped"
    assert "mine" in (installed.path / "SKILL.md").read_text(encoding="utf-8")
    info = installed_provenance([_skill_at(installed.path)])[installed.path / "SKILL.md"]
    assert info.locally_modified
    (forced,) = update_skills(env=env, force=True)
    assert forced.status == "updated"
    assert "upstream two" in (installed.path / "SKILL.md").read_text(encoding="utf-8")
    assert forced.kept is not None and str(forced.kept) in forced.message  # the edit is kept aside
    assert "mine" in (forced.kept / "SKILL.md").read_text(encoding="utf-8")


def test_update_of_a_folder_source_and_a_failing_source_reports_each(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    good = write_skill(tmp_path / "good", "good", body="v1")
    gone = write_skill(tmp_path / "gone", "gone")
    install_skill(str(good), env=env)
    install_skill(str(gone), env=env)
    write_skill(good, "good", body="v2")
    (gone / "SKILL.md").unlink()
    gone.rmdir()
    by_name = {r.name: r for r in update_skills(env=env)}
    assert by_name["good"].status == "updated"
    assert by_name["gone"].status == "failed" and "IS103" in by_name["gone"].message
    assert (
        "--name gone --scope user --for codex --force" in by_name["gone"].message
    )  # how to point it elsewhere
    assert (Path.home() / ".agents" / "skills" / "gone" / "SKILL.md").is_file()


def test_update_of_unknown_name_lists_what_is_installed(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(write_skill(tmp_path / "a", "alpha")), env=env)
    with pytest.raises(NotFoundError) as caught:
        update_skills(["beta"], env=env)
    assert caught.value.code == "IS404"
    assert "alpha" in caught.value.hint


def test_remove_deletes_folder_and_lock_entry(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    a = install_skill(str(write_skill(tmp_path / "a", "alpha")), env=env)
    install_skill(str(write_skill(tmp_path / "b", "beta")), env=env)
    removed = remove_skill("alpha", env=env)
    assert removed.path == a.path and not a.path.exists()
    assert list(read_lock(a.path.parent).entries) == ["beta"]
    remove_skill("beta", env=env)
    assert tree(a.path.parent) == []
    with pytest.raises(NotFoundError):
        remove_skill("beta", env=env)


def test_remove_refuses_a_locally_changed_skill_unless_forced(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    a = install_skill(str(write_skill(tmp_path / "a", "alpha")), env=env)
    (a.path / "notes.md").write_text("my notes\n", encoding="utf-8")
    with pytest.raises(InstallError) as caught:
        remove_skill("alpha", env=env)
    assert caught.value.code == "IS405"
    assert (a.path / "notes.md").is_file()
    remove_skill("alpha", env=env, force=True)
    assert not a.path.exists()


def test_provenance_covers_installed_skills_only(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    repo = _upstream(tmp_path)
    env = make_env(tmp_path, isolated_home.home)
    installed = install_skill(f"{repo.as_uri()}#skills/lint-fix", env=env)
    hand_made = write_skill(installed.path.parent / "hand-made", "hand-made")
    elsewhere = write_skill(tmp_path / "elsewhere" / "x", "x")
    info = installed_provenance([_skill_at(installed.path), _skill_at(hand_made), _skill_at(elsewhere)])
    assert list(info) == [installed.path / "SKILL.md"]
    got = info[installed.path / "SKILL.md"]
    assert (got.source, got.commit, got.locally_modified) == (
        f"{repo.as_uri()}#skills/lint-fix",
        git(repo, "rev-parse", "HEAD"),
        False,
    )


def _project_with_skill_from(tmp_path: Path, home: Path, source: str) -> tuple[Env, Path]:
    """A project (a git repository) with one skill installed from ``source``; (env, the skill)."""
    project = init_repo(tmp_path / "project")
    env = make_env(tmp_path, home, cwd=project)
    installed = install_skill(source, env=env, scope="project")
    return env, installed.path


@pytest.mark.parametrize("as_git", [False, True], ids=["folder", "local-git"])
def test_an_untrusted_projects_lock_cannot_copy_a_folder_from_outside_the_project(
    tmp_path: Path, isolated_home: IsolatedHome, as_git: bool
) -> None:
    private = write_skill(tmp_path / "mine" / "private", "private", body="my own notes")
    source = str(private)
    if as_git:
        init_repo(private)
        commit_all(private, "one")
        source = private.as_uri() + "@main"
    env, copy = _project_with_skill_from(tmp_path, isolated_home.home, source)
    shutil.rmtree(copy)  # a clone: the lock is committed, the folder is not
    for check in (True, False):
        (result,) = update_skills(env=env, check=check)
        assert result.status == "skipped" and "not trusted" in result.message
        assert "skillshelf trust" in result.message
    assert not copy.exists()

    set_trust(env.dirs.config / CONFIG_NAME, env.project_root, True)
    (result,) = update_skills(env=env)
    assert result.status == "updated" and "installed it again" in result.message
    assert "my own notes" in (copy / "SKILL.md").read_text(encoding="utf-8")


def test_an_untrusted_project_updates_a_skill_from_a_folder_inside_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    vendored = write_skill(tmp_path / "project" / "vendor" / "tool", "tool", body="v1")
    env, copy = _project_with_skill_from(tmp_path, isolated_home.home, str(vendored))
    write_skill(vendored, "tool", body="v2")
    (result,) = update_skills(env=env)
    assert result.status == "updated"
    assert "v2" in (copy / "SKILL.md").read_text(encoding="utf-8")
    shutil.rmtree(copy)
    (result,) = update_skills(env=env)
    assert (result.status, result.message) == ("updated", "its folder was missing; installed it again")
    assert copy.is_dir()


def test_update_handles_each_name_on_its_own_and_a_name_not_installed_fails_alone(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "par6", "par6")
    install_skill(str(source), env=env, target="codex")
    write_skill(source, "par6", body="second version")

    assert [(r.name, r.status) for r in update_skills(["par6", "typo"], env=env, check=True)] == [
        ("par6", "available"),
        ("typo", "failed"),
    ]
    updated, typo = update_skills(["par6", "typo"], env=env)

    assert (updated.name, updated.status) == ("par6", "updated")
    assert (
        typo.scope is None and typo.message.startswith("IS404: ") and "installed skills: par6" in typo.message
    )
    with pytest.raises(NotFoundError) as caught:
        update_skills(["typo", "other"], env=env)
    assert caught.value.code == "IS404" and getattr(caught.value, "names", None) == ("typo", "other")
