"""Per-skill modes for a skill folder reached through a symlink: a path entry selects it by the
link's path or by the target's, as Codex 0.171.0's ``[[skills.config]]`` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.config import SkillMode, SkillRule, apply_skill_modes
from skillshelf.env import Env
from skillshelf.skills.model import RootOrigin, Scope, Skill
from skillshelf.workspace import Workspace, WorkspaceOptions
from testkit import IsolatedHome

OPTIONS = WorkspaceOptions(include_builtin=False, use_cache=False, memory=False)


def _linked_skill() -> Skill:
    return Skill(
        name="via-link",
        description="reached through a link",
        path=Path("/repo/.agents/skills/via-link/SKILL.md"),
        root=Path("/repo/.agents/skills"),
        scope=Scope.REPO,
        origin=RootOrigin.AGENTS_REPO,
        real_path=Path("/outside/real/SKILL.md"),
    )


@pytest.mark.parametrize("selected", ["/outside/real/SKILL.md", "/outside/real"])
def test_a_path_entry_selects_a_linked_skill_by_its_resolved_file_or_folder(selected: str) -> None:
    rule = SkillRule(mode=SkillMode.DISABLED, path=Path(selected))
    moded = apply_skill_modes([_linked_skill()], [rule])
    assert [s.name for s in moded.disabled] == ["via-link"] and moded.visible == ()
    assert moded.disabled_error("via-link") is not None


def test_a_path_entry_for_another_folder_leaves_a_linked_skill_alone() -> None:
    rule = SkillRule(mode=SkillMode.DISABLED, path=Path("/outside"))
    assert [s.name for s in apply_skill_modes([_linked_skill()], [rule]).visible] == ["via-link"]


class LinkedTree:
    """A project whose ``.agents/skills/via-link`` is a symlink to a folder outside it."""

    def __init__(self, home: IsolatedHome) -> None:
        self.home = home
        self.repo = home.home / "proj"
        self.target = home.home / "outside" / "real"
        (self.repo / ".git").mkdir(parents=True)
        skills = self.repo / ".agents" / "skills"
        for folder, name in ((skills / "plain", "plain"), (self.target, "via-link")):
            folder.mkdir(parents=True)
            text = f"---\nname: {name}\ndescription: the {name} skill\n---\nbody\n"
            (folder / "SKILL.md").write_text(text, encoding="utf-8")
        (skills / "via-link").symlink_to(self.target, target_is_directory=True)
        self.link = skills / "via-link" / "SKILL.md"

    def codex_config(self, disabled: Path) -> None:
        self.home.codex_home.mkdir(parents=True, exist_ok=True)
        text = f'[skills.bundled]\nenabled = false\n[[skills.config]]\npath = "{disabled}"\nenabled = false\n'
        (self.home.codex_home / "config.toml").write_text(text, encoding="utf-8")

    def env(self) -> Env:
        return Env.for_test(cwd=self.repo, home=self.home.home, codex_home=self.home.codex_home)

    def modes(self) -> dict[str, SkillMode]:
        workspace = Workspace.open(self.env(), OPTIONS)
        return {skill.name: workspace.modes.mode_of(skill) for skill in workspace.discovery.skills}


@pytest.fixture
def linked(isolated_home: IsolatedHome) -> LinkedTree:
    return LinkedTree(isolated_home)


@pytest.mark.parametrize("which", ["link", "target"])
def test_codex_config_disables_a_linked_skill_by_the_link_or_the_target_path(
    linked: LinkedTree, which: str
) -> None:
    linked.codex_config(linked.link if which == "link" else linked.target / "SKILL.md")
    assert linked.modes() == {"plain": SkillMode.ENABLED, "via-link": SkillMode.DISABLED}


def test_disable_by_the_link_path_from_the_command_line_takes_effect(
    linked: LinkedTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(linked.repo)
    result = CliRunner().invoke(cli, ["disable", ".agents/skills/via-link/SKILL.md"])
    assert result.exit_code == 0, result.output
    assert linked.modes()["via-link"] is SkillMode.DISABLED
    result = CliRunner().invoke(cli, ["enable", str(linked.target)])
    assert result.exit_code == 0, result.output
    assert linked.modes()["via-link"] is SkillMode.ENABLED


@pytest.mark.oracle
@pytest.mark.parametrize("which", ["link", "target"])
def test_codex_disables_a_linked_skill_by_either_path_as_we_do(
    linked: LinkedTree, codex_oracle: Any, which: str
) -> None:
    linked.codex_config(linked.link if which == "link" else linked.target / "SKILL.md")
    result = codex_oracle(linked.repo, home=linked.home.home, codex_home=linked.home.codex_home)
    listing = result["skills_instructions"] or ""
    assert "- plain: " in listing and "via-link" not in listing
    assert linked.modes()["via-link"] is SkillMode.DISABLED


@pytest.mark.parametrize("which", ["link", "target"])
def test_codex_config_naming_a_linked_skills_folder_leaves_it_enabled(linked: LinkedTree, which: str) -> None:
    linked.codex_config(linked.link.parent if which == "link" else linked.target)
    assert linked.modes() == {"plain": SkillMode.ENABLED, "via-link": SkillMode.ENABLED}


@pytest.mark.oracle
@pytest.mark.parametrize("which", ["link", "target"])
def test_codex_ignores_an_entry_naming_a_skill_folder_as_we_do(
    linked: LinkedTree, codex_oracle: Any, which: str
) -> None:
    linked.codex_config(linked.link.parent if which == "link" else linked.target)
    result = codex_oracle(linked.repo, home=linked.home.home, codex_home=linked.home.codex_home)
    assert "- via-link: " in (result["skills_instructions"] or "")
    assert linked.modes()["via-link"] is SkillMode.ENABLED
