"""Keeping a personal settings file out of git, the way Claude Code keeps its own out.

``setup`` puts Claude Code's project hooks in ``.claude/settings.local.json``: they name this
machine's skillshelf, so a commit of that file breaks every prompt of everyone else who opens
the project. Claude Code, when it first writes that file itself, adds an ignore rule for it to
the user's global git ignore file. ``setup`` adds one to the repository's own
``info/exclude`` instead (this clone only, never committed, nothing global touched), and only
when git does not ignore the file yet; ``setup --remove`` takes that rule out again, unless
another work tree of the repository (they share ``info/exclude``) still has skillshelf's hooks
in the file the same rule ignores there.

:func:`git_standing` asks git itself (``rev-parse``, ``check-ignore``, ``ls-files``), so every
ignore file, worktree and ``core.excludesFile`` counts. Without git, or outside a repository,
there is nothing to do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf.errors import SkillshelfError
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text, resolve_path
from skillshelf.hooks.jsonfile import our_hooks

__all__ = [
    "EXCLUDE_NOTE",
    "GitStanding",
    "git_standing",
    "needed_elsewhere",
    "other_worktrees",
    "with_rule",
    "without_rule",
]

EXCLUDE_NOTE = "# skillshelf setup: personal Claude Code settings, they name this machine's skillshelf"
GIT_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class GitStanding:
    """How git sees one file of a repository's work tree."""

    exclude: Path  # the repository's info/exclude (shared by its worktrees)
    rule: str  # the ignore line for the file, anchored at the top of the work tree
    top: Path  # the top of the work tree the file is in
    ignored: bool
    tracked: bool


def git_standing(path: Path, environ: Mapping[str, str]) -> GitStanding | None:
    """How git sees ``path`` (which need not exist yet); None without git or a repository."""
    folder = next((p for p in path.parents if p.is_dir()), None)
    found = _git(folder, environ, "rev-parse", "--show-toplevel", "--git-common-dir") if folder else None
    if found is None or found[0] != 0 or len(found[1].splitlines()) != 2:
        return None
    top, common = (Path(line) for line in found[1].splitlines())
    try:
        relative = resolve_path(path).relative_to(resolve_path(top)).as_posix()
    except (OSError, ValueError):
        return None
    ignored = _git(top, environ, "check-ignore", "-q", "--", relative)
    tracked = _git(top, environ, "ls-files", "--error-unmatch", "--", relative)
    if ignored is None or tracked is None:
        return None
    return GitStanding(
        exclude=_physical(folder / common if folder else common) / "info" / "exclude",
        rule="/" + relative,
        top=top,
        ignored=ignored[0] == 0,
        tracked=tracked[0] == 0,
    )


def other_worktrees(git: GitStanding, environ: Mapping[str, str]) -> list[Path] | None:
    """The tops of the repository's other work trees (its main checkout and linked worktrees,
    which share its exclude file), from ``git worktree list``; None when git cannot say."""
    found = _git(git.top, environ, "worktree", "list", "--porcelain")
    if found is None or found[0] != 0:
        return None
    tops = [
        Path(line.removeprefix("worktree ")) for line in found[1].splitlines() if line.startswith("worktree ")
    ]
    here = _physical(git.top)
    return [top for top in tops if _physical(top) != here]


def needed_elsewhere(git: GitStanding, environ: Mapping[str, str]) -> bool:
    """Whether another work tree of the repository (sharing the exclude file) has skillshelf's
    hooks in the file ``git.rule`` ignores there; when git or that file cannot say, True (the
    rule is kept)."""
    tops = other_worktrees(git, environ)
    if tops is None:
        return True
    for top in tops:
        try:
            text = read_regular_text(top / git.rule.lstrip("/"), limit=MAX_SETTINGS_BYTES)
            if our_hooks(text):
                return True
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, SkillshelfError):
            return True
    return False


def _physical(path: Path) -> Path:
    """``path`` without ``..`` (git names the common folder relative to the folder it ran in,
    as ``../.git``), resolved as the file system does; as given when that fails."""
    try:
        return resolve_path(path)
    except OSError:
        return path


def with_rule(text: str | None, rule: str) -> str:
    """``text`` (an exclude file, None: missing) with the commented ``rule`` appended."""
    current = text or ""
    separator = "" if not current or current.endswith("\n") else "\n"
    return f"{current}{separator}{EXCLUDE_NOTE}\n{rule}\n"


def without_rule(text: str, rule: str) -> str:
    """``text`` without the commented ``rule`` :func:`with_rule` appended (the last one)."""
    block = f"{EXCLUDE_NOTE}\n{rule}\n"
    at = text.rfind(block)
    return text if at < 0 else text[:at] + text[at + len(block) :]


def _git(cwd: Path, environ: Mapping[str, str], *args: str) -> tuple[int, str] | None:
    """``git ARGS`` in ``cwd``: its exit code and output; None when git cannot be run."""
    env = {**environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    env.setdefault("PATH", os.defpath)
    git = shutil.which("git", path=env["PATH"])
    if git is None:
        return None
    try:
        proc = subprocess.run(
            [git, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            encoding="utf-8",
            errors="surrogateescape",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.returncode, proc.stdout
