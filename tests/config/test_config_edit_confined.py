"""A project's config is edited only inside the project: a committed symlink that leads out of
it (to the user's Codex config, a dotfile) is refused with ``CF114``; a user's own symlinked
config is still edited where it points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillshelf.config import SkillMode
from skillshelf.config.edit import set_skill_mode
from skillshelf.config.edit_text import outside_of, write_user_file
from skillshelf.errors import ConfigError
from testkit import IsolatedHome
from testkit import run_cli as cli


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".skillshelf").mkdir()
    return project


@pytest.mark.parametrize("target_text", ['model = "gpt-5"\n', ""])
def test_a_project_config_linked_out_of_the_project_is_neither_read_nor_written(
    tmp_path: Path, target_text: str
) -> None:
    project = _project(tmp_path)
    outside = tmp_path / "home" / ".codex" / "config.toml"
    outside.parent.mkdir(parents=True)
    outside.write_text(target_text, encoding="utf-8")
    link = project / ".skillshelf" / "config.toml"
    link.symlink_to(outside)
    with pytest.raises(ConfigError) as caught:
        set_skill_mode(link, "esc", SkillMode.DISABLED, within=project)
    assert caught.value.code == "CF114" and str(outside) in caught.value.hint
    assert outside.read_text(encoding="utf-8") == target_text and link.is_symlink()


def test_a_symlinked_project_config_folder_leading_out_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / ".skillshelf").rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".skillshelf").symlink_to(elsewhere)
    with pytest.raises(ConfigError) as caught:
        set_skill_mode(project / ".skillshelf" / "config.toml", "esc", SkillMode.DISABLED, within=project)
    assert caught.value.code == "CF114"
    assert not any(elsewhere.iterdir())


def test_a_link_that_stays_inside_the_project_is_edited_where_it_points(tmp_path: Path) -> None:
    project = _project(tmp_path)
    real = project / "settings" / "skills.toml"
    real.parent.mkdir()
    real.write_text("# ours\n", encoding="utf-8")
    link = project / ".skillshelf" / "config.toml"
    link.symlink_to(Path("..") / "settings" / "skills.toml")
    set_skill_mode(link, "esc", SkillMode.DISABLED, within=project)
    assert link.is_symlink() and 'name = "esc"' in real.read_text(encoding="utf-8")


def test_the_write_checks_again_and_outside_of_names_the_real_place(tmp_path: Path) -> None:
    project = _project(tmp_path)
    outside = tmp_path / "victim.txt"
    outside.write_text("keep\n", encoding="utf-8")
    link = project / ".skillshelf" / "config.toml"
    link.symlink_to(outside)
    assert outside_of(link, project) == outside.resolve()
    assert outside_of(project / ".skillshelf" / "new.toml", project) is None
    with pytest.raises(ConfigError, match="CF114|leads out") as caught:
        write_user_file(link, "x = 1\n", within=project)
    assert caught.value.code == "CF114" and outside.read_text(encoding="utf-8") == "keep\n"


def test_disable_project_refuses_a_planted_link_and_a_linked_user_config_still_works(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path)
    codex = isolated_home.codex_home / "config.toml"
    codex.parent.mkdir(parents=True, exist_ok=True)
    codex.write_text('model = "gpt-5"\n', encoding="utf-8")
    (project / ".skillshelf" / "config.toml").symlink_to(codex)
    monkeypatch.chdir(project)
    code, out, err = cli(["disable", "esc", "--project"], capsys)
    assert code == 1 and "CF114" in err and str(codex) in err and out == ""
    assert codex.read_text(encoding="utf-8") == 'model = "gpt-5"\n'

    dotfile = tmp_path / "dotfiles" / "skillshelf.toml"
    dotfile.parent.mkdir()
    dotfile.write_text("# mine\n", encoding="utf-8")
    user = isolated_home.config / "skillshelf" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.symlink_to(dotfile)
    code, out, _ = cli(["disable", "esc", "--json"], capsys)
    assert code == 0 and json.loads(out)["changed"] and 'name = "esc"' in dotfile.read_text(encoding="utf-8")
