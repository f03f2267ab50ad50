"""`setup claude --remove` in one work tree of a repository keeps the git-exclude rule (the
worktrees share `.git/info/exclude`) while another work tree's setup still needs it; the last
`--remove` takes it out. Real git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND

from skillshelf.env import Env
from skillshelf.hooks.setup import apply_setup, plan_setup
from testkit import git_worktrees

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None and not os.environ.get("CI"), reason="git is not installed"
)


def _setup(env: Env, *, remove: bool = False) -> None:
    plan = plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state, remove=remove)
    apply_setup(plan, state_dir=env.dirs.state)


def _status(folder: Path) -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=folder,
        capture_output=True,
        encoding="utf-8",
        check=True,
        timeout=60,
    )
    return done.stdout


@pytest.mark.parametrize("first_out", ["worktree", "main"])
def test_remove_in_one_work_tree_keeps_the_rule_the_other_still_needs(
    isolated_home: Any, first_out: str
) -> None:
    main = isolated_home.home / "main"
    tree = isolated_home.home / "tree"
    git_worktrees(main, tree)
    exclude = main / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    envs = {
        name: Env.for_test(cwd=folder, home=isolated_home.home, codex_home=isolated_home.codex_home)
        for name, folder in (("main", main), ("worktree", tree))
    }
    for env in envs.values():
        _setup(env)
    assert _status(main) == "" and _status(tree) == ""

    _setup(envs[first_out], remove=True)
    assert _status(main) == "" and _status(tree) == ""  # the other's settings.local.json stays ignored
    _setup(envs["main" if first_out == "worktree" else "worktree"], remove=True)
    assert exclude.read_bytes() == before
