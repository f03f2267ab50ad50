"""The settings files a workspace reads, and their stamps: the page opens its folder again when
one of them changed (an edit, a new file, a removed one, a link pointed elsewhere).

Skill folders are watched (:mod:`skillshelf.serve.watch`); these files are not, since most of
them sit in folders with unrelated traffic (``~/.codex``, ``~/.claude``, the project's root).
They are few, so the page looks at their stamps before each request and, while it watches, once
a second (:mod:`skillshelf.serve.ui.watcher`). The list is worked out from the
:class:`~skillshelf.env.Env` alone and is a superset of what :meth:`Workspace.open
<skillshelf.workspace.Workspace.open>` reads: skillshelf's system, Codex, user (the trust store)
and project config layers of every folder from the cwd up (the project root is wherever the
markers say), Codex's project ``.codex/config.toml`` files, and Claude Code's settings, managed
policy and plugin records.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillshelf.config.loader import CONFIG_NAME, PROJECT_DIR, system_config_dir
from skillshelf.env import Env
from skillshelf.fileio import file_identity, resolve_path
from skillshelf.skills.claude_settings import claude_user_dir, project_settings_dir

__all__ = ["Stamp", "settings_files", "stamps_of"]

Stamp = tuple[object, ...]
MAX_MANAGED_PARTS = 64
"""How many ``managed-settings.d/*.json`` files are stamped (Claude Code merges them all)."""


def settings_files(env: Env) -> tuple[Path, ...]:
    """Every settings file (or file-to-be) whose content can change what the page shows."""
    user_claude = claude_user_dir(env)
    claude_project = project_settings_dir(env)
    files = [
        system_config_dir(env) / CONFIG_NAME,
        env.codex_home / CONFIG_NAME,
        env.dirs.config / CONFIG_NAME,
        user_claude / "settings.json",
        user_claude / "plugins" / "installed_plugins.json",
        user_claude / "plugins" / "known_marketplaces.json",
        claude_project / "settings.json",
        claude_project / "settings.local.json",
        env.claude_managed_dir / "managed-settings.json",
        env.claude_managed_dir / "managed-settings.d",
    ]
    for folder in _folders_up(env.cwd):
        files += [folder / PROJECT_DIR / CONFIG_NAME, folder / ".codex" / CONFIG_NAME]
    return tuple(dict.fromkeys(files))


def _folders_up(cwd: Path) -> list[Path]:
    """``cwd`` and every folder above it, as written and with its links resolved."""
    start = [Path(os.path.abspath(cwd))]
    try:
        start.append(resolve_path(cwd))
    except OSError:
        pass
    return [folder for first in start for folder in (first, *first.parents)]


def stamps_of(files: tuple[Path, ...]) -> tuple[Stamp, ...]:
    """One stamp per file: its identity (device, inode, size, mtime, ctime, links followed) or
    why it cannot be looked at; a folder's stamp holds its ``*.json`` files' too."""
    return tuple(_stamp(path) for path in files)


def _stamp(path: Path) -> Stamp:
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:
        return ("missing", getattr(exc, "errno", None))
    stamp: Stamp = file_identity(info)
    if path.is_dir():
        try:
            parts = sorted(path.glob("*.json"))[:MAX_MANAGED_PARTS]
        except OSError:
            parts = []
        stamp += tuple(_stamp(part) for part in parts)
    return stamp
