"""The place of an `install --for all` link: skillshelf's own link is recognised, and with
--force what the user keeps there is moved to replaced-skills (never deleted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, run_cli, tree, write_skill

from skillshelf.env import Env
from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock, remove_skill
from skillshelf.install.kept import kept_root
from skillshelf.install.taken import NameTakenError
from testkit import IsolatedHome


def _own_folder(home: Path, name: str) -> Path:
    """The user's own folder where Claude Code reads skills, which skillshelf did not install."""
    folder = home / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("mine\n", encoding="utf-8")
    return folder


def _setup(tmp_path: Path, home: Path, name: str) -> tuple[Env, Path]:
    return make_env(tmp_path, home), write_skill(tmp_path / "src" / name, name)


def test_installing_for_claude_over_skillshelfs_own_link_says_it_is_that_link(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, source = _setup(tmp_path, isolated_home.home, "p")
    installed = install_skill(str(source), env=env, target="all")
    before = tree(isolated_home.home)
    with pytest.raises(NameTakenError) as caught:
        install_skill(str(source), env=env, target="claude")
    assert caught.value.code == "IS305" and "did not install it" not in caught.value.message
    assert f"is skillshelf's link to {installed.path}" in caught.value.message
    assert "skillshelf update" in caught.value.hint and tree(isolated_home.home) == before


def test_force_for_claude_over_skillshelfs_own_link_puts_a_copy_there_and_keeps_no_link(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, source = _setup(tmp_path, isolated_home.home, "p")
    for_all = install_skill(str(source), env=env, target="all")
    copy = install_skill(str(source), env=env, target="claude", force=True)
    assert not copy.path.is_symlink() and (copy.path / "SKILL.md").is_file() and copy.kept is None
    assert not kept_root(env).exists()
    remove_skill("p", env=env, folder="codex")
    assert not for_all.path.exists() and (copy.path / "SKILL.md").is_file()


def test_force_for_all_keeps_the_users_own_folder_in_replaced_skills_and_links_in_its_place(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, source = _setup(tmp_path, isolated_home.home, "q")
    own = _own_folder(isolated_home.home, "q")
    result = install_skill(str(source), env=env, target="all", force=True)

    assert own.is_symlink() and own.resolve() == result.path.resolve()
    (note,) = [d for d in result.diagnostics if d.code == "IS315"]
    (kept,) = kept_root(env).iterdir()
    assert str(kept) in note.message and (kept / "SKILL.md").read_text(encoding="utf-8") == "mine\n"
    remove_skill("q", env=env)
    assert not own.exists() and (kept / "SKILL.md").is_file()


def test_a_dry_run_with_force_says_what_would_move_and_moves_nothing(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, source = _setup(tmp_path, isolated_home.home, "q")
    _own_folder(isolated_home.home, "q")
    before = tree(isolated_home.home)
    result = install_skill(str(source), env=env, target="all", force=True, dry_run=True)
    assert [d.code for d in result.diagnostics] == ["IS315"]
    assert "--force moves it to replaced-skills/" in result.diagnostics[0].message
    assert tree(isolated_home.home) == before


def test_a_failed_force_install_puts_the_users_folder_back(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, source = _setup(tmp_path, isolated_home.home, "q")
    own = _own_folder(isolated_home.home, "q")

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("skillshelf.install.installer.write_lock", refuse)
    with pytest.raises(InstallError) as caught:
        install_skill(str(source), env=env, target="all", force=True)
    assert caught.value.code == "IS307"
    assert not own.is_symlink() and (own / "SKILL.md").read_text(encoding="utf-8") == "mine\n"
    assert not (isolated_home.home / ".agents" / "skills" / "q").exists()
    assert not kept_root(env).exists() or not any(kept_root(env).iterdir())


def test_force_does_not_move_a_skill_skillshelf_installed_for_claude(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, source = _setup(tmp_path, isolated_home.home, "q")
    for_claude = install_skill(str(source), env=env, target="claude")
    before = tree(isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(str(source), env=env, target="all", force=True)
    assert caught.value.code == "IS308" and "skillshelf remove q --for claude" in caught.value.hint
    assert tree(isolated_home.home) == before
    assert read_lock(for_claude.path.parent).get("q") is not None


def test_the_install_command_prints_where_the_users_folder_is_kept(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = write_skill(tmp_path / "src" / "q", "q")
    _own_folder(isolated_home.home, "q")
    refused = run_cli(tmp_path, "install", str(source), "--for", "all")
    assert refused.returncode == 1 and "IS308" in refused.stderr and "--force" in refused.stderr
    done = run_cli(tmp_path, "install", str(source), "--for", "all", "--force")
    assert done.returncode == 0, done.stderr
    assert "IS315" in done.stderr and "replaced-skills" in done.stderr
