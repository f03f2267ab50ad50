"""One skills folder under two names (``~/.claude/skills -> ~/.agents/skills``) is one folder
to install, update and remove."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.errors import NotFoundError
from skillshelf.install import install_skill, list_installed, remove_skill, update_skills
from skillshelf.install.manage import installed_roots
from skillshelf.install.taken import AlreadyInstalledError, SameNameError
from skillshelf.install.targets import InstallTarget
from testkit import IsolatedHome


def _shared(home: Path) -> Path:
    """``~/.claude/skills`` made a symlink to ``~/.agents/skills``; the latter, returned."""
    codex = home / ".agents" / "skills"
    codex.mkdir(parents=True)
    (home / ".claude").mkdir(exist_ok=True)
    os.symlink("../.agents/skills", home / ".claude" / "skills")
    return codex


def test_install_for_all_into_a_shared_folder_puts_one_copy_and_no_link(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    codex = _shared(isolated_home.home)
    env = make_env(tmp_path, isolated_home.home)
    result = install_skill(str(write_skill(tmp_path / "src" / "alpha", "alpha")), env=env, target="all")
    assert result.path == codex / "alpha" and not result.path.is_symlink()
    assert result.entry.links == () and sorted(result.entry.agents) == ["claude", "codex"]
    assert [i.entry.name for i in list_installed(env)] == ["alpha"]
    assert installed_roots(env, "user").count(codex) == 1
    assert isolated_home.home / ".claude" / "skills" not in installed_roots(env, "user")


def test_update_and_remove_see_a_skill_in_a_shared_folder_once(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    codex = _shared(isolated_home.home)
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "beta", "beta")
    install_skill(str(source), env=env, target="codex")
    write_skill(source, "beta", body="second version")

    assert [(r.name, r.status) for r in update_skills(env=env)] == [("beta", "updated")]
    assert "second version" in (codex / "beta" / "SKILL.md").read_text(encoding="utf-8")
    removed = remove_skill("beta", env=env)
    assert removed.path == codex / "beta" and not (codex / "beta").exists()


def test_update_of_an_entry_whose_link_is_the_skill_itself_through_the_shared_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    codex = _shared(isolated_home.home)
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "gamma", "gamma")
    install_skill(str(source), env=env, target="codex")
    lock_file = codex / ".skillshelf-lock.json"
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    lock["skills"]["gamma"]["links"] = [str(isolated_home.home / ".claude" / "skills" / "gamma")]
    lock_file.write_text(json.dumps(lock), encoding="utf-8")
    write_skill(source, "gamma", body="second version")

    assert [(r.name, r.status) for r in update_skills(env=env)] == [("gamma", "updated")]
    assert (codex / "gamma").is_dir() and not (codex / "gamma").is_symlink()


def test_install_for_claude_into_the_folder_codex_shares_checks_codex_names_and_says_both_read_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    codex = _shared(isolated_home.home)
    write_skill(codex / "my-gamma", "gamma")
    env = make_env(tmp_path, isolated_home.home)
    source = str(write_skill(tmp_path / "src" / "gamma", "gamma"))

    with pytest.raises(SameNameError):
        install_skill(source, env=env, target="claude")
    result = install_skill(source, env=env, target="claude", force=True)
    assert [d.code for d in result.diagnostics if d.code == "IS132"] == ["IS132"]
    assert sorted(result.entry.agents) == ["claude", "codex"]


@pytest.mark.parametrize(("first", "second"), [("claude", "codex"), ("codex", "claude"), ("all", "claude")])
def test_the_same_source_installed_into_a_shared_folder_for_either_agent_is_already_installed(
    tmp_path: Path, isolated_home: IsolatedHome, first: InstallTarget, second: InstallTarget
) -> None:
    _shared(isolated_home.home)
    env = make_env(tmp_path, isolated_home.home)
    source = str(write_skill(tmp_path / "src" / "delta", "delta"))
    install_skill(source, env=env, target=first)

    with pytest.raises(AlreadyInstalledError):
        install_skill(source, env=env, target=second)


def test_a_skill_installed_before_its_folder_was_shared_is_still_already_installed(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """Installed for Codex alone, then ``~/.claude/skills`` linked to Codex's folder: the same
    install again is the one recorded, not another skill of its name."""
    env = make_env(tmp_path, isolated_home.home)
    source = str(write_skill(tmp_path / "src" / "delta", "delta"))
    first = install_skill(source, env=env, target="codex")
    assert first.entry.agents == ("codex",)
    (isolated_home.home / ".claude").mkdir(exist_ok=True)
    os.symlink("../.agents/skills", isolated_home.home / ".claude" / "skills")
    for target in ("codex", "claude"):
        with pytest.raises(AlreadyInstalledError):
            install_skill(source, env=env, target=target)


def test_remove_for_the_agent_whose_folder_is_a_link_to_the_shared_one_says_there_is_one_copy(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    codex = _shared(isolated_home.home)
    env = make_env(tmp_path, isolated_home.home)
    install_skill(str(write_skill(tmp_path / "src" / "gamma", "gamma")), env=env, target="all")
    with pytest.raises(NotFoundError) as caught:
        remove_skill("gamma", env=env, folder="claude")
    assert caught.value.code == "IS408" and "one copy" in str(caught.value)
    assert "links to" in str(caught.value) and "`skillshelf remove gamma`" in (caught.value.hint or "")
    assert (codex / "gamma" / "SKILL.md").is_file()  # nothing removed


def test_remove_for_the_agent_of_a_shared_folder_names_the_scope_asked_for_in_its_hint(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    codex = _shared(isolated_home.home)
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    source = str(write_skill(tmp_path / "src" / "pdf", "pdf"))
    install_skill(source, env=env, target="codex", scope="user")
    install_skill(source, env=env, target="codex", scope="project")

    with pytest.raises(NotFoundError) as caught:
        remove_skill("pdf", env=env, folder="claude", scope="user")

    assert caught.value.code == "IS408" and "`skillshelf remove pdf --scope user`" in (
        caught.value.hint or ""
    )
    with pytest.raises(NotFoundError) as unscoped:
        remove_skill("pdf", env=env, folder="claude")
    assert "`skillshelf remove pdf --scope user`" in (unscoped.value.hint or "")
    assert remove_skill("pdf", env=env, scope="user").path == codex / "pdf"  # the hint, followed
    assert (project / ".agents" / "skills" / "pdf").is_dir()
