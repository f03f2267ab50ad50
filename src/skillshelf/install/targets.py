"""Where ``install --for`` puts a skill so that the chosen agents read it.

- ``codex``: ``~/.agents/skills`` (user) or the project's ``.agents/skills``: Codex scans
  both (and so does skillshelf);
- ``claude``: ``~/.claude/skills`` (``$CLAUDE_CONFIG_DIR/skills``) or the project's
  ``.claude/skills``, one level deep as Claude Code reads them;
- ``all``: the skill goes in the Codex folder and Claude Code's folder gets a symbolic link
  to it (relative inside a project, so the pair can be committed); Claude Code 2.1.197 lists a
  linked skill folder like any other (checked with the pinned CLI);
- ``skillshelf``: skillshelf's own data folder (user scope only), which no agent reads.

Without ``--for``, ``install.agents`` in the config decides; else the agents found on this
machine (Codex: ``$CODEX_HOME`` or ``codex`` on the PATH; Claude Code: ``~/.claude`` or
``claude`` on the PATH): both gives ``all``, one gives that one, none gives ``codex`` (the
shared ``.agents/skills`` folder). The choice is recorded in the lock entry (``agents``,
``links``), so ``update`` keeps it and ``remove`` takes the links away too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.config.edit_text import outside_of
from skillshelf.env import Env
from skillshelf.errors import InstallError, UsageError
from skillshelf.install.visibility import agent_roots

__all__ = [
    "TARGETS",
    "InstallTarget",
    "Placement",
    "default_target",
    "drop_links",
    "inside_project",
    "links_not_kept",
    "make_links",
    "placement",
    "unlink_links",
]

InstallTarget = Literal["codex", "claude", "all", "skillshelf"]
TARGETS: tuple[InstallTarget, ...] = ("codex", "claude", "all", "skillshelf")


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """The folder a skill is installed into, the folders that get a link to it, and for whom."""

    root: Path
    link_roots: tuple[Path, ...] = ()
    agents: tuple[str, ...] = ()


def placement(scope: Literal["user", "project"], target: InstallTarget, env: Env) -> Placement:
    if target == "skillshelf":
        if scope != "user":
            raise UsageError(
                "--for skillshelf installs into skillshelf's own data folder, which has no project scope",
                hint="use --scope user with --for skillshelf, or --for codex|claude|all in a project",
            )
        return Placement(root=env.dirs.data / "skills")
    roots = agent_roots(scope, env)
    if target == "all":
        return Placement(root=roots["codex"], link_roots=(roots["claude"],), agents=("codex", "claude"))
    return Placement(root=roots[target], agents=(target,))


def inside_project(scope: Literal["user", "project"], env: Env, folders: Sequence[Path]) -> None:
    """Refuse, before anything is written, a project's skills folder (or links folder) that a
    symlink leads out of the project: a cloned repository can commit ``.claude -> ~/.claude``,
    and skills, links and the lock file would land in the user's own folders.

    Raises:
        InstallError: ``IS314``, naming the folder and where it really is.
    """
    if scope != "project":
        return
    for folder in folders:
        real = outside_of(folder, env.project_root)
        if real is not None:
            raise InstallError(
                f"{folder} leads out of the project through a symlink, to {real}; nothing was changed",
                hint=f"remove the symlink in {folder} (never what it points to) so the project's own "
                f"folder is used, or install with --scope user",
                code="IS314",
            )


def default_target(env: Env, configured: object = None) -> InstallTarget:
    """``install.agents`` from the config when set, else the agents installed here."""
    if configured in ("codex", "claude", "all"):
        return configured
    path = env.environ.get("PATH", os.defpath)
    codex = env.codex_home.is_dir() or shutil.which("codex", path=path) is not None
    claude = (env.home / ".claude").is_dir() or shutil.which("claude", path=path) is not None
    if codex and claude:
        return "all"
    return "claude" if claude else "codex"


def _points_to(link: Path, target: Path) -> bool:
    return link.is_symlink() and os.path.realpath(link) == os.path.realpath(target)


def check_links(links: Sequence[Path], target: Path) -> None:
    """Refuse before anything changes when a link's place holds something else."""
    for link in links:
        if (link.exists() or link.is_symlink()) and not _points_to(link, target):
            raise InstallError(
                f"{link} already exists and is not a link to {target}",
                hint="move it away (it may be another skill of the same name), or install with --name",
                code="IS308",
            )


def make_links(links: Sequence[Path], target: Path, *, relative: bool) -> None:
    """Link each of ``links`` to ``target`` (relative links for a project's folders)."""
    for link in links:
        if _points_to(link, target):
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        to = os.path.relpath(target, link.parent) if relative else str(target)
        os.symlink(to, link, target_is_directory=True)


def drop_links(links: Sequence[str], target: Path) -> None:
    """Take away the links that still point to ``target`` (others are left alone)."""
    for link in map(Path, links):
        if _points_to(link, target) or (link.is_symlink() and not link.exists()):
            link.unlink()


def links_not_kept(old: Sequence[str], links: Sequence[Path], root: Path, target: Path) -> list[Path]:
    """The links ``old`` (a replaced lock entry's) that ``links`` no longer has: only symlinks
    that lead to ``target`` (a lock names any path; nothing else is ever taken away). A
    relative one is read from ``root``."""
    kept = {str(link) for link in links}
    places = (root / link for link in old)  # an absolute link stays as it is
    return [place for place in places if str(place) not in kept and _points_to(place, target)]


def unlink_links(links: Sequence[Path]) -> None:
    """Take away each of ``links`` that is a symlink (what cannot be removed is left)."""
    for link in links:
        with contextlib.suppress(OSError):
            if link.is_symlink():
                link.unlink()
