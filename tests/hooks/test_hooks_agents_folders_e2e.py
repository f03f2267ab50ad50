"""skillshelf inside the real Codex 0.171.0 and Claude Code 2.1.197 when the agent does not start
at a repository's root: in a subfolder, or in a linked git worktree, where each agent reads its
project files from a folder of its own choosing (see :mod:`skillshelf.hooks.agents`)."""

from __future__ import annotations

import subprocess
from typing import Any

from agent_cli_helpers import (
    E2E_MARKS,
    run_claude,
    run_codex,
    run_skillshelf,
    small_repo,
    standin_codex_home,
    suggestion_fragments,
)

from testkit import git_worktrees

pytestmark = E2E_MARKS


def test_codex_started_in_a_subfolder_runs_the_hooks_set_up_at_the_project_root(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """Codex reads the ``.codex`` folders from the project root down to its cwd: hooks set up at
    the root answer a session started in ``repo/app`` (a real repository: Codex finds the root
    whose trust counts with git)."""
    repo, _skill_file, _marker = small_repo(isolated_home, ".agents/skills")
    (repo / ".git").rmdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    app = repo / "app"
    app.mkdir()
    standin = model_standin([{"text": "OK"}])
    standin_codex_home(isolated_home, standin.url, repo)
    run_skillshelf("setup", "codex", "--scope", "project", cwd=repo)
    run_codex(agent_clis.codex, app, "make me a gif for the team chat")
    assert "gif-maker" in suggestion_fragments(standin.requests())[0]


def test_codex_in_a_git_worktree_runs_the_hooks_set_up_there(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """In a linked worktree Codex runs the main checkout's project hooks, and only when the
    worktree has a ``.codex`` folder: set up from the worktree, the hooks go to both, Codex
    answers the worktree's prompts, and ``--remove`` takes both out again."""
    repo, _skill_file, _marker = small_repo(isolated_home, ".agents/skills")
    (repo / ".git").rmdir()
    worktree = repo.parent / "small-wt"
    git_worktrees(repo, worktree)
    standin = model_standin([{"text": "OK"}])
    config = standin_codex_home(isolated_home, standin.url, repo)
    before = config.read_bytes()
    done = run_skillshelf("setup", "codex", "--scope", "project", cwd=worktree)
    assert b"is a git worktree of" in done.stdout + done.stderr
    assert (repo / ".codex" / "hooks.json").is_file() and (worktree / ".codex" / "hooks.json").is_file()
    run_codex(agent_clis.codex, worktree, "make me a gif for the team chat")
    assert "gif-maker" in suggestion_fragments(standin.requests())[0]

    run_skillshelf("setup", "codex", "--scope", "project", "--remove", cwd=worktree)
    assert not (repo / ".codex").exists() and not (worktree / ".codex").exists()
    assert config.read_bytes() == before


def test_claude_code_started_in_a_subfolder_runs_the_hooks_set_up_there(
    agent_clis: Any, isolated_home: Any, model_standin: Any
) -> None:
    """Claude Code reads the ``.claude`` settings of the folder it starts in, not the repository
    root's: set up from ``repo/app``, the hooks land where Claude Code started there runs them."""
    repo, _skill_file, _marker = small_repo(isolated_home, ".claude/skills")
    app = repo / "app"
    app.mkdir()
    standin = model_standin([{"text": "OK"}])
    done = run_skillshelf("setup", "claude", "--scope", "project", cwd=app)
    assert b"only in the folder it starts in" in done.stdout + done.stderr
    assert (app / ".claude" / "settings.local.json").is_file()
    assert not (repo / ".claude" / "settings.local.json").exists()
    run_claude(agent_clis.claude, app, standin.url, "make me a gif for the team chat")
    assert (
        "- gif-maker: [untrusted project] Make GIFs for chat." in suggestion_fragments(standin.requests())[0]
    )
