"""A git repository's layout as the agents read it, from its files alone (git is not run).

:func:`git_root`: the nearest folder holding a ``.git`` file or folder (Claude Code's rule; a
FIFO is not one). :func:`main_checkout`: the main checkout of a linked worktree, which Claude
Code reads for a nested worktree's instructions and commands and Codex for a worktree's
project hooks and trust.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skillshelf.fileio import read_regular_text

__all__ = ["git_root", "main_checkout"]

_GIT_LINK_BYTES = 4096  # a worktree's .git, gitdir or commondir file: one path


def git_root(folder: Path) -> Path | None:
    """Claude Code's repository root for ``folder``: the nearest folder (itself included)
    holding a ``.git`` file or folder, whatever it holds."""
    for candidate in (folder, *folder.parents):
        try:
            mode = os.stat(candidate / ".git").st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            return candidate
    return None


def main_checkout(root: Path) -> Path:
    """The main checkout of the repository whose root is ``root`` when ``root`` is a linked
    worktree (its ``.git`` file names ``<main>/.git/worktrees/<name>``, which names it back),
    else ``root``; read as Claude Code reads it (a bare repository's folder for a worktree of
    one)."""
    try:
        link = read_regular_text(root / ".git", limit=_GIT_LINK_BYTES).strip()
        if not link.startswith("gitdir:"):
            return root
        git_dir = Path(os.path.normpath(root / link[len("gitdir:") :].strip()))
        common = Path(
            os.path.normpath(
                git_dir / read_regular_text(git_dir / "commondir", limit=_GIT_LINK_BYTES).strip()
            )
        )
        if git_dir.parent != common / "worktrees":
            return root
        back = read_regular_text(git_dir / "gitdir", limit=_GIT_LINK_BYTES).strip()
        if os.path.realpath(back) != os.path.join(os.path.realpath(root), ".git"):
            return root
    except (OSError, UnicodeDecodeError, ValueError):
        return root
    return Path(os.path.realpath(common if common.name != ".git" else common.parent))
