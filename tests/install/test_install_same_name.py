"""A skill name another skill the same agents read already has is refused (IS305), and an
update whose source renamed its skill says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from install_helpers import make_env, tree, write_skill

from skillshelf.install import install_skill, update_skills
from skillshelf.install.many import install_all
from skillshelf.install.taken import AlreadyInstalledError, SameNameError
from testkit import IsolatedHome


def _agents(home: Path) -> Path:
    return home / ".agents" / "skills"


@pytest.mark.parametrize("where", ["own", "project", "install"])
def test_a_skill_name_another_skill_already_has_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome, where: str
) -> None:
    env = make_env(tmp_path, isolated_home.home, cwd=tmp_path / "proj")
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    if where == "own":
        write_skill(_agents(isolated_home.home) / "my-delta", "delta")
    elif where == "project":
        write_skill(tmp_path / "proj" / ".agents" / "skills" / "their-delta", "delta")
    else:
        first = str(write_skill(tmp_path / "other" / "first", "delta"))
        install_skill(first, env=env, target="codex", name="first-delta")
    before = tree(_agents(isolated_home.home))
    with pytest.raises(SameNameError) as caught:
        install_skill(str(write_skill(tmp_path / "src" / "delta", "delta")), env=env, target="codex")
    assert caught.value.code == "IS305" and "--force" in caught.value.hint
    assert tree(_agents(isolated_home.home)) == before


@pytest.mark.parametrize("how", ["force", "name"])
def test_force_or_name_installs_beside_a_skill_of_the_same_name_with_a_warning(
    tmp_path: Path, isolated_home: IsolatedHome, how: str
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    write_skill(_agents(isolated_home.home) / "my-delta", "delta")
    source = str(write_skill(tmp_path / "src" / "delta", "delta"))
    extra = {"force": True} if how == "force" else {"name": "delta-two"}
    result = install_skill(source, env=env, target="codex", **extra)  # type: ignore[arg-type]
    (note,) = [d for d in result.diagnostics if d.code == "IS132"]
    assert note.path == _agents(isolated_home.home) / "my-delta" and result.path.is_dir()


def test_claude_code_alone_knows_skills_by_folder_so_the_same_name_elsewhere_is_no_clash(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    write_skill(isolated_home.home / ".claude" / "skills" / "my-delta", "delta")
    result = install_skill(str(write_skill(tmp_path / "src" / "delta", "delta")), env=env, target="claude")
    assert result.path.is_dir() and not [d for d in result.diagnostics if d.code == "IS132"]


def test_an_update_that_renames_the_skill_to_a_taken_name_is_refused_and_says_so(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    write_skill(_agents(isolated_home.home) / "my-delta", "delta")
    source = write_skill(tmp_path / "src" / "gamma", "gamma")
    installed = install_skill(str(source), env=env, target="codex")
    lock = _agents(isolated_home.home) / ".skillshelf-lock.json"
    recorded = lock.read_bytes()
    write_skill(source, "delta", "Gamma, renamed upstream to a name that is taken.")

    (result,) = update_skills(env=env)

    assert result.status == "failed" and result.message.startswith("IS305: ")
    assert "renamed its skill 'gamma' to 'delta'" in result.message
    assert lock.read_bytes() == recorded and "name: gamma" in (installed.path / "SKILL.md").read_text(
        encoding="utf-8"
    )


def test_an_update_that_renames_the_skill_to_a_free_name_reports_the_rename(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "gamma", "gamma")
    install_skill(str(source), env=env, target="codex")
    write_skill(source, "epsilon", "Gamma, renamed upstream to a free name.")

    (result,) = update_skills(env=env)

    assert result.status == "updated" and "renamed upstream from 'gamma' to 'epsilon'" in result.message
    lock = json.loads((_agents(isolated_home.home) / ".skillshelf-lock.json").read_text(encoding="utf-8"))
    assert lock["skills"]["gamma"]["skill_name"] == "epsilon"


def test_a_skill_a_pack_gained_under_a_taken_name_is_not_installed(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    write_skill(_agents(isolated_home.home) / "my-delta", "delta")
    pack = tmp_path / "pack"
    write_skill(pack / "alpha", "alpha")
    install_all(str(pack), env=env, target="codex")
    write_skill(pack / "delta", "delta", "The pack's own delta, new since it was installed.")

    results = {r.name: r for r in update_skills(env=env)}

    assert results["delta"].status == "failed" and "IS305" in results["delta"].message
    assert not (_agents(isolated_home.home) / "delta").exists()


@pytest.mark.parametrize("how", ["name", "renamed upstream"])
def test_the_same_skill_installed_under_another_folder_of_the_same_scope_is_already_installed(
    tmp_path: Path, isolated_home: IsolatedHome, how: str
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = write_skill(tmp_path / "src" / "delta", "delta")
    if how == "name":
        install_skill(str(source), env=env, target="codex", name="my-delta")
        holder = "my-delta"
    else:
        install_skill(str(source), env=env, target="codex")
        write_skill(source, "delta-tools", "Delta, renamed upstream.")
        assert update_skills(env=env)[0].status == "updated"
        holder = "delta"
    before = tree(_agents(isolated_home.home))

    with pytest.raises(AlreadyInstalledError) as caught:
        install_skill(str(source), env=env, target="codex")

    assert caught.value.target == _agents(isolated_home.home) / holder
    assert f"update {holder}" in caught.value.hint and tree(_agents(isolated_home.home)) == before
