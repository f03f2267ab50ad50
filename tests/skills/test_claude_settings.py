"""Where Claude Code reads a project's skills and commands from (the settings files themselves
are read in the listing and hook tests)."""

from __future__ import annotations

from pathlib import Path

from skillshelf.env import Env
from skillshelf.skills.claude_settings import claude_project_folders


def test_project_folders_stop_at_the_repository_root_or_before_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "w" / "app").mkdir(parents=True)
    assert claude_project_folders(Env.for_test(cwd=home / "w" / "app", home=home)) == [
        home / "w" / "app",
        home / "w",
    ]
    (home / "w" / ".git").mkdir()
    (home / "w" / "app" / "deep").mkdir()
    env = Env.for_test(cwd=home / "w" / "app" / "deep", home=home)
    assert claude_project_folders(env) == [home / "w" / "app" / "deep", home / "w" / "app", home / "w"]
    assert claude_project_folders(Env.for_test(cwd=home, home=home)) == []
