"""The same skill from the same source at the other scope is installed beside the one there
(IS132 says Codex lists it twice); another skill of that name is still refused, and the fix
``install --all`` gives for it keeps the command's --scope and --for."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.env import Env
from skillshelf.install import install_skill
from skillshelf.install.many import install_all
from skillshelf.install.taken import SameNameError
from testkit import IsolatedHome


def _pack(tmp_path: Path) -> Path:
    pack = tmp_path / "src" / "pack"
    write_skill(pack / "a", "a")
    write_skill(pack / "b", "b")
    return pack


def _project_env(tmp_path: Path, home: Path) -> Env:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    return make_env(tmp_path, home, cwd=tmp_path / "proj")


@pytest.mark.parametrize("every", [False, True])
def test_the_same_skill_from_the_same_source_installs_at_the_other_scope_with_a_warning(
    tmp_path: Path, isolated_home: IsolatedHome, every: bool
) -> None:
    pack = _pack(tmp_path)
    env = _project_env(tmp_path, isolated_home.home)
    install_all(str(pack), env=env, target="codex")

    if every:
        result = install_all(str(pack), env=env, scope="project", target="codex")
        assert result.failed == () and [r.name for r in result.installed] == ["a", "b"]
        notes = [d for r in result.installed for d in r.diagnostics if d.code == "IS132"]
    else:
        one = install_skill(str(pack / "a"), env=env, scope="project", target="codex")
        notes = [d for d in one.diagnostics if d.code == "IS132"]
    assert notes and all("same skill" in d.message and "lists it twice" in d.message for d in notes)
    assert notes[0].path == isolated_home.home / ".agents" / "skills" / "a"


def test_another_skill_of_the_name_at_the_other_scope_is_still_refused(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    pack = _pack(tmp_path)
    env = _project_env(tmp_path, isolated_home.home)
    install_all(str(pack), env=env, target="codex")
    write_skill(pack / "a", "a", body="changed since the user installed it")

    with pytest.raises(SameNameError):
        install_skill(str(pack / "a"), env=env, scope="project", target="codex")


def test_the_fix_for_a_taken_name_in_install_all_keeps_scope_and_for_and_says_what_force_does(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    pack = _pack(tmp_path)
    env = _project_env(tmp_path, isolated_home.home)
    write_skill(isolated_home.home / ".agents" / "skills" / "my-a", "a")

    result = install_all(str(pack), env=env, scope="project", target="codex")

    (failed,) = result.failed
    assert failed.code == "IS305" and "--force --scope project --for codex`" in failed.fix
    assert "replaces" not in failed.fix and "--force" in failed.fix and "beside" in failed.fix
