"""``update`` acts on a skill as its lock says when the skill's turn comes: one removed or
installed again by another command while the update ran (fetching its packs) is left alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from install_helpers import commit_all, init_repo, make_env, write_skill

from skillshelf.env import Env
from skillshelf.install import install_skill, read_lock, remove_skill, update_skills
from skillshelf.install import manage as manage_module
from skillshelf.install.many import install_all
from testkit import IsolatedHome


def _installed_pack_and_folder_skill(tmp_path: Path, env: Env) -> Path:
    """A git pack ``gg`` (``install --all``) and a folder skill ``zz``; returns zz's source."""
    repo = init_repo(tmp_path / "repo")
    write_skill(repo, "gg")
    commit_all(repo, "one")
    install_all(repo.as_uri(), env=env, target="codex")
    source = write_skill(tmp_path / "src" / "zz", "zz", body="v1")
    install_skill(str(source), env=env, target="codex")
    return source


def _after_the_survey(monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], object]) -> None:
    """Run ``meanwhile`` once the packs are surveyed, before any skill is updated."""
    survey = manage_module.survey_packs

    def surveyed_then(*args: Any, **kwargs: Any) -> Any:
        found = survey(*args, **kwargs)
        meanwhile()
        return found

    monkeypatch.setattr(manage_module, "survey_packs", surveyed_then)


@pytest.mark.parametrize("check", [False, True])
def test_update_leaves_out_a_skill_removed_while_it_ran(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch, check: bool
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = _installed_pack_and_folder_skill(tmp_path, env)
    write_skill(source, "zz", body="v2")
    root = isolated_home.home / ".agents" / "skills"
    _after_the_survey(monkeypatch, lambda: remove_skill("zz", env=env))

    results = {r.name: r for r in update_skills(env=env, check=check)}

    assert results["zz"].status == "skipped" and "removed while update ran" in results["zz"].message
    assert results["gg"].status == "up-to-date"
    assert not (root / "zz").exists() and read_lock(root).get("zz") is None


def test_update_leaves_out_a_skill_installed_again_while_it_ran(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    source = _installed_pack_and_folder_skill(tmp_path, env)
    other = write_skill(tmp_path / "elsewhere" / "zz", "zz", body="from elsewhere")
    root = isolated_home.home / ".agents" / "skills"
    _after_the_survey(monkeypatch, lambda: install_skill(str(other), env=env, target="codex", force=True))
    write_skill(source, "zz", body="v2")

    results = {r.name: r for r in update_skills(env=env)}

    assert results["zz"].status == "skipped" and "another command" in results["zz"].message
    assert "from elsewhere" in (root / "zz" / "SKILL.md").read_text(encoding="utf-8")
    entry = read_lock(root).get("zz")
    assert entry is not None and entry.location == str(other.resolve())
