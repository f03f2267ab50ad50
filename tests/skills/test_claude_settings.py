"""Where Claude Code reads a project's things: its repository root, a worktree's main checkout,
the folders it takes skills and commands from; planted ``.git`` files and FIFOs included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skill_tree_helpers import git, git_init, write

from skillshelf.env import Env
from skillshelf.skills.claude_settings import claude_project_folders, git_root, main_checkout


def test_a_worktree_names_its_main_checkout_and_a_plain_repository_itself(tmp_path: Path) -> None:
    main = git_init(tmp_path / "main")
    write(main / "a.txt", "a\n")
    git("add", "a.txt", cwd=main)
    git("commit", "-qm", "a", cwd=main)
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=main)
    assert git_root(tmp_path / "wt") == tmp_path / "wt"
    assert main_checkout(tmp_path / "wt") == Path(os.path.realpath(main))
    assert main_checkout(main) == main


@pytest.mark.parametrize(
    "planted",
    [
        "gitdir: ../elsewhere",  # names nothing
        "gitdir: /dev/zero",  # not a folder
        "gitdir: .",  # itself
        "not a link at all",
        "gitdir: " + "x/" * 3000,  # longer than a link can be
    ],
)
def test_a_planted_git_file_leaves_the_folder_its_own_checkout(tmp_path: Path, planted: str) -> None:
    root = tmp_path / "repo"
    write(root / ".git", planted)
    assert git_root(root / "sub") == root
    assert main_checkout(root) == root


def test_a_worktree_link_that_is_not_named_back_is_not_followed(tmp_path: Path) -> None:
    """``<main>/.git/worktrees/x/gitdir`` must name the worktree's ``.git``, as git writes it."""
    main, wt = tmp_path / "main", tmp_path / "wt"
    write(main / ".git" / "worktrees" / "x" / "commondir", "../..\n")
    write(main / ".git" / "worktrees" / "x" / "gitdir", str(tmp_path / "other" / ".git") + "\n")
    write(wt / ".git", f"gitdir: {main / '.git' / 'worktrees' / 'x'}\n")
    assert main_checkout(wt) == wt
    write(main / ".git" / "worktrees" / "x" / "gitdir", str(wt / ".git") + "\n")
    assert main_checkout(wt) == Path(os.path.realpath(main))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_named_git_is_no_repository_root_and_never_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    os.mkfifo(repo / ".git")
    assert git_root(repo / "sub") is None
    assert main_checkout(repo) == repo  # open_regular refuses the FIFO: no hang


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
