"""`setup ... --project` writes only inside the project: a committed link from the project's
agent files to a file of the user's is refused (``CF114``) and that file is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from hooks_helpers import set_up

from skillshelf.env import Env
from skillshelf.errors import ConfigError
from testkit import IsolatedHome


@pytest.mark.parametrize(
    ("agent", "planted", "mcp"),
    [
        ("claude", ".claude/settings.local.json", False),
        ("claude", ".mcp.json", True),
        ("codex", ".codex/hooks.json", False),
        ("codex", ".codex", False),
    ],
)
def test_a_project_agent_file_linked_out_of_the_project_is_not_written(
    tmp_path: Path, isolated_home: IsolatedHome, agent: str, planted: str, mcp: bool
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    victim = tmp_path / "users-own"
    victim.mkdir()
    target = victim / "settings.json"
    target.write_text("{}\n", encoding="utf-8")
    link = repo / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim if planted == ".codex" else target)
    env = Env.for_test(cwd=repo, home=isolated_home.home, codex_home=isolated_home.codex_home)
    with pytest.raises(ConfigError) as caught:
        set_up(env, isolated_home, agent, "project", mcp=mcp)
    assert caught.value.code == "CF114" and str(victim) in caught.value.hint
    assert [p.name for p in victim.iterdir()] == ["settings.json"]
    assert target.read_text(encoding="utf-8") == "{}\n"
