"""A system config that cannot be read withholds every skill from everything the model is shown:
the workspace, ``context``, the prompt hook's suggestions, the MCP server's tools; each says why
with the config's code (``CF118``) and fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillshelf.context import ContextOptions, build_context
from skillshelf.env import Env
from skillshelf.errors import ConfigError
from skillshelf.serve.loading import open_library
from skillshelf.workspace import Workspace
from testkit import IsolatedHome

BROKEN = '[requirements]\ndisabled_skills = ["alpha"]\n# a typo below\nmax_catalog_tokens = \n'


@pytest.fixture
def env(isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Env:
    """A project with the user skill ``alpha`` and AGENTS.md; the system config folder
    ``tmp_path/etc`` holds a config.toml that does not parse."""
    skill = isolated_home.home / ".agents" / "skills" / "alpha" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: alpha\ndescription: alpha skill desc\n---\nbody\n", encoding="utf-8")
    system = tmp_path / "etc"
    system.mkdir()
    (system / "config.toml").write_text(BROKEN, encoding="utf-8")
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(system))
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    monkeypatch.chdir(project)
    return Env.from_os()


def test_a_workspace_under_an_unreadable_system_config_has_no_skills(env: Env) -> None:
    workspace = Workspace.open(env)
    assert workspace.discovery.skills == () and workspace.skills.loadable == ()
    assert workspace.skills.catalog == () and workspace.index.skills == ()
    assert any(d.code == "CF118" for d in workspace.diagnostics)
    with pytest.raises(ConfigError) as info:
        workspace.check_required()
    assert info.value.code == "CF118" and "withheld" in info.value.message and info.value.hint


def test_context_refuses_under_an_unreadable_system_config(env: Env) -> None:
    with pytest.raises(ConfigError) as info:
        build_context(env, "use the alpha skill desc", ContextOptions())
    assert info.value.code == "CF118"


def test_the_prompt_hook_suggests_nothing_under_an_unreadable_system_config(env: Env) -> None:
    from skillshelf.hooks.turn import prompt_turn

    with pytest.raises(ConfigError) as info:
        prompt_turn(env, "use the alpha skill desc")
    assert info.value.code == "CF118"


def test_the_mcp_server_serves_no_skill_under_an_unreadable_system_config(env: Env) -> None:
    with pytest.raises(ConfigError) as info:
        open_library(env)
    assert info.value.code == "CF118"
