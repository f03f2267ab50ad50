"""A repository's root and a worktree's main checkout, read from git's files; planted ``.git``
files and FIFOs included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.gitrepo import git_root, main_checkout
from testkit import git_worktrees


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_worktree_names_its_main_checkout_and_a_plain_repository_itself(tmp_path: Path) -> None:
    main = git_worktrees(tmp_path / "main", tmp_path / "wt")
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
