"""A forced install, update or remove keeps the work it would otherwise delete: a skill folder
changed by hand since it was installed, or one skillshelf never installed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from install_helpers import make_env, run_cli, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock, remove_skill
from skillshelf.install import kept as kept_module
from skillshelf.install import lock as lock_module
from testkit import IsolatedHome


def _own_skill(root: Path) -> Path:
    """A hand-written skill with a note and a relative symlink, as a user keeps one."""
    folder = write_skill(root / "mine", "mine", body="precious steps")
    (folder / "notes.md").write_text("my notes\n", encoding="utf-8")
    (folder / "link.md").symlink_to("notes.md")
    return folder


def _kept_files(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): (f"-> {os.readlink(p)}" if p.is_symlink() else p.read_text("utf-8"))
        for p in sorted(folder.rglob("*"))
    }


def test_install_force_over_a_folder_skillshelf_did_not_install_keeps_it(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    root = isolated_home.home / ".agents" / "skills"
    own = _own_skill(root)
    before = _kept_files(own)
    source = write_skill(tmp_path / "src" / "lint-fix", "lint-fix", body="upstream")
    with pytest.raises(InstallError) as refused:
        install_skill(str(source), env=env, name="mine")
    assert refused.value.code == "IS305" and "did not install" in refused.value.message
    result = install_skill(str(source), env=env, name="mine", force=True)
    assert result.replaced and result.kept is not None
    assert result.kept.parent == env.dirs.data / "replaced-skills" and result.kept.name.startswith("mine-")
    assert _kept_files(result.kept) == before
    assert "upstream" in (root / "mine" / "SKILL.md").read_text(encoding="utf-8")
    assert result.to_dict()["kept"] == str(result.kept)


def test_install_force_over_its_own_unchanged_install_keeps_nothing(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "alpha", "alpha", body="v1")
    install_skill(str(source), env=env)
    write_skill(source, "alpha", body="v2")
    again = install_skill(str(source), env=env, force=True)
    assert again.replaced and again.kept is None
    assert not (env.dirs.data / "replaced-skills").exists()


def test_remove_force_keeps_the_changed_copy_and_a_plain_remove_keeps_none(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    a = install_skill(str(write_skill(tmp_path / "a", "alpha")), env=env)
    b = install_skill(str(write_skill(tmp_path / "b", "beta")), env=env)
    (a.path / "notes.md").write_text("my notes\n", encoding="utf-8")
    removed = remove_skill("alpha", env=env, force=True)
    assert removed.kept is not None and not a.path.exists()
    assert (removed.kept / "notes.md").read_text(encoding="utf-8") == "my notes\n"
    assert list(read_lock(a.path.parent).entries) == ["beta"]
    assert remove_skill("beta", env=env).kept is None and not b.path.exists()
    assert [p.name for p in removed.kept.parent.iterdir()] == [removed.kept.name]


def test_across_file_systems_the_copy_is_made_first_and_dropped_when_the_change_fails(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    own = _own_skill(isolated_home.home / ".agents" / "skills")
    before = _kept_files(own)
    source = write_skill(tmp_path / "src" / "lint-fix", "lint-fix", body="upstream")
    monkeypatch.setattr(kept_module, "_same_device", lambda a, b: False)
    failing = lock_module.write_lock

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("skillshelf.install.installer.write_lock", disk_full)
    with pytest.raises(InstallError):
        install_skill(str(source), env=env, name="mine", force=True)
    assert _kept_files(own) == before
    assert list((env.dirs.data / "replaced-skills").iterdir()) == []
    monkeypatch.setattr("skillshelf.install.installer.write_lock", failing)
    result = install_skill(str(source), env=env, name="mine", force=True)
    assert result.kept is not None and _kept_files(result.kept) == before


def test_a_copy_that_cannot_be_kept_stops_the_change(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    own = _own_skill(isolated_home.home / ".agents" / "skills")
    before = _kept_files(own)
    (env.dirs.data).mkdir(parents=True, exist_ok=True)
    (env.dirs.data / "replaced-skills").write_text("a file where the folder goes\n", encoding="utf-8")
    source = write_skill(tmp_path / "src" / "lint-fix", "lint-fix", body="upstream")
    with pytest.raises(InstallError) as caught:
        install_skill(str(source), env=env, name="mine", force=True)
    assert caught.value.code == "IS309" and "nothing was changed" in caught.value.message
    assert _kept_files(own) == before


def test_the_cli_says_where_the_copy_is_kept(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    _own_skill(isolated_home.home / ".agents" / "skills")
    source = write_skill(tmp_path / "src" / "lint-fix", "lint-fix", body="upstream")
    done = run_cli(tmp_path, "install", str(source), "--name", "mine", "--force", "--for", "codex")
    assert done.returncode == 0, done.stderr
    assert "the folder it replaced is kept in" in done.stdout and "replaced-skills" in done.stdout
    listed = run_cli(
        tmp_path, "install", str(source), "--name", "mine", "--force", "--for", "codex", "--json"
    )
    assert json.loads(listed.stdout)["kept"] is None  # its own unchanged install: nothing to keep
