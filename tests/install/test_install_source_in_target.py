"""A skill folder already in the skills folder is never installed from itself: it is the user's
own, and taking it over would let ``remove`` delete the only copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from install_helpers import make_env, write_skill

from skillshelf.errors import InstallError
from skillshelf.install import install_skill, read_lock, remove_skill
from skillshelf.install.installed import NotInstalledError
from testkit import IsolatedHome


def _refused(source: Path, tmp_path: Path, isolated_home: IsolatedHome, target: str) -> None:
    env = make_env(tmp_path, isolated_home.home)
    with pytest.raises(InstallError) as caught:
        install_skill(str(source), env=env, target=target)  # type: ignore[arg-type]
    assert caught.value.code == "IS317"
    assert caught.value.hint
    with pytest.raises(NotInstalledError) as not_ours:
        remove_skill("dev", env=env)
    assert not_ours.value.code == "IS404"


def test_installing_a_folder_from_where_it_already_is_is_refused_and_keeps_it(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    dev = write_skill(isolated_home.home / ".agents" / "skills" / "dev", "dev")
    (dev / "draft.md").write_text("my draft notes\n", encoding="utf-8")
    _refused(dev, tmp_path, isolated_home, "codex")
    assert (dev / "draft.md").read_text(encoding="utf-8") == "my draft notes\n"
    assert read_lock(dev.parent).get("dev") is None


def test_a_source_inside_the_target_folder_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    inner = write_skill(isolated_home.home / ".agents" / "skills" / "dev" / "copy", "dev")
    (inner.parent / "mine.md").write_text("mine\n", encoding="utf-8")
    _refused(inner, tmp_path, isolated_home, "codex")
    assert (inner.parent / "mine.md").is_file() and (inner / "SKILL.md").is_file()


def test_a_source_that_holds_the_target_folder_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    outer = write_skill(isolated_home.home / ".agents", "dev")
    _refused(outer, tmp_path, isolated_home, "codex")
    assert (outer / "SKILL.md").is_file()


def test_a_link_to_a_folder_in_the_skills_folder_is_refused_by_its_real_path(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    dev = write_skill(isolated_home.home / ".agents" / "skills" / "dev", "dev")
    os.symlink(dev, tmp_path / "dev-link")
    _refused(tmp_path / "dev-link", tmp_path, isolated_home, "codex")
    assert (dev / "SKILL.md").is_file()


def test_a_source_where_another_agent_reads_the_skill_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    dev = write_skill(isolated_home.home / ".claude" / "skills" / "dev", "dev")
    _refused(dev, tmp_path, isolated_home, "all")
    assert (dev / "SKILL.md").is_file() and not dev.is_symlink()
