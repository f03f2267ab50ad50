"""Claude Code's settings files and its state file, as Claude Code 2.1.197 reads them.

- Settings layers, lowest first: user (``~/.claude/settings.json``, or ``$CLAUDE_CONFIG_DIR``),
  project (``.claude/settings.json``), local (``.claude/settings.local.json``), the command
  line, and managed policy (``/etc/claude-code/managed-settings.json`` plus
  ``managed-settings.d/*.json`` on Linux). A key set in a higher layer wins.
- The project and local files are those of the folder Claude Code starts in, not of the
  repository's root: started in ``repo/app``, it reads neither the skill overrides nor the hooks
  of ``repo/.claude/settings.json`` (checked with ``claude-oracle``; its ``.mcp.json`` files, by
  contrast, are read from every folder up to the root).
- Its own state (user-scope MCP servers, folder trust, how often each skill was used):
  ``~/.claude.json``, or ``$CLAUDE_CONFIG_DIR/.claude.json``.

Every file is read as untrusted data: missing, unreadable, too big or not a JSON object reads as
empty. A leading UTF-8 byte-order mark is skipped, as Claude Code skips it (checked with the real
CLI: a ``settings.local.json`` saved with one has its hooks run and its ``skillOverrides`` kept).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skillshelf.env import Env
from skillshelf.fileio import BYTE_ORDER_MARK, MAX_SETTINGS_BYTES, read_regular_text
from skillshelf.gitrepo import git_root, main_checkout

__all__ = [
    "claude_flag",
    "claude_state_file",
    "claude_project_folders",
    "claude_project_key",
    "claude_user_dir",
    "every_layer",
    "managed_settings",
    "merged_settings",
    "project_settings_dir",
    "read_json",
    "settings_layers",
    "skill_overrides",
    "unlisted_by_override",
]


def read_json(path: Path) -> dict[str, Any]:
    """A JSON settings file as data (a leading byte-order mark skipped); missing, unreadable or
    not an object reads as empty."""
    try:
        data = json.loads(read_regular_text(path, limit=MAX_SETTINGS_BYTES).removeprefix(BYTE_ORDER_MARK))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def claude_flag(environ: Mapping[str, str], name: str) -> bool:
    """Whether the variable ``name`` is on as Claude Code reads a yes/no variable: 1, true, yes
    or on, in any case, spaces around ignored (0, false, anything else: off)."""
    return environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def claude_state_file(env: Env) -> Path:
    """Claude Code's own state (user-scope MCP servers, folder trust): ``~/.claude.json``, or
    ``$CLAUDE_CONFIG_DIR/.claude.json``."""
    value = env.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() / ".claude.json" if value else env.home / ".claude.json"


def claude_project_key(cwd: Path) -> str:
    """The key of the project at ``cwd`` among the ``projects`` of Claude Code's state file: the
    repository root (a worktree's main checkout), else ``cwd`` itself."""
    root = git_root(cwd)
    return str(main_checkout(root)) if root is not None else str(cwd)


def claude_user_dir(env: Env) -> Path:
    """Claude Code's user folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    value = env.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else env.home / ".claude"


def settings_layers(env: Env) -> Iterator[tuple[str, dict[str, Any]]]:
    """(layer, settings) of the user, project and local settings files, lowest first; the
    project and local files are the cwd's (:func:`project_settings_dir`)."""
    root = project_settings_dir(env)
    yield "user", read_json(claude_user_dir(env) / "settings.json")
    yield "project", read_json(root / "settings.json")
    yield "local", read_json(root / "settings.local.json")


def project_settings_dir(env: Env) -> Path:
    """The ``.claude`` folder whose ``settings.json`` and ``settings.local.json`` Claude Code
    started in ``env.cwd`` reads: the cwd's own, never a parent's."""
    return env.cwd / ".claude"


def claude_project_folders(env: Env) -> list[Path]:
    """The folders whose ``.claude/skills`` and ``.claude/commands`` Claude Code reads, nearest
    first: from the cwd up to the repository root (the nearest folder holding a ``.git`` file or
    folder, whatever it holds; Codex's ``project_root_markers`` play no part), else up to the
    filesystem root; a walk that reaches the home folder stops before it (its ``.claude`` is
    the user's). Checked with ``claude-oracle``: outside a repository, ``.claude/skills`` of
    every folder above the cwd up to the home folder (or ``/``) are listed."""
    home = os.path.abspath(env.home)
    folder = Path(os.path.abspath(env.cwd))
    root = git_root(folder)
    chain: list[Path] = []
    while str(folder) != home:
        chain.append(folder)
        if folder == root or folder.parent == folder:
            break
        folder = folder.parent
    return chain


def managed_settings(managed_dir: Path) -> dict[str, Any]:
    """The managed policy: ``managed-settings.json``, then each ``managed-settings.d/*.json``."""
    merged = read_json(managed_dir / "managed-settings.json")
    try:
        extra = sorted((managed_dir / "managed-settings.d").glob("*.json"))
    except OSError:
        extra = []
    for path in extra:
        merged |= read_json(path)
    return merged


def every_layer(env: Env) -> list[dict[str, Any]]:
    """The settings of every layer, lowest first, the managed policy (``env.claude_managed_dir``)
    last."""
    return [settings for _, settings in settings_layers(env)] + [managed_settings(env.claude_managed_dir)]


def merged_settings(env: Env) -> dict[str, Any]:
    """Every layer's keys, the highest layer's value for each (objects merged key by key, lists
    joined without repeats, as Claude Code does for ``claudeMdExcludes``); the managed policy is
    the one in ``env.claude_managed_dir``."""
    merged: dict[str, Any] = {}
    for settings in every_layer(env):
        for key, value in settings.items():
            merged[key] = _merged_value(merged.get(key), value)
    return merged


def _merged_value(below: Any, value: Any) -> Any:
    if isinstance(below, dict) and isinstance(value, dict):
        return below | value
    if isinstance(below, list) and isinstance(value, list):
        joined, seen = [], set()
        for item in [*below, *value]:
            key = json.dumps(item, sort_keys=True)
            if key not in seen:
                seen.add(key)
                joined.append(item)
        return joined
    return value


def skill_overrides(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``skillOverrides`` of (merged) ``settings``, name -> mode; empty when malformed."""
    overrides = settings.get("skillOverrides")
    return overrides if isinstance(overrides, Mapping) else {}


def unlisted_by_override(overrides: Mapping[str, Any], name: str) -> bool:
    """Whether ``skillOverrides`` keeps ``name`` out of Claude Code's listing (``off`` or
    ``user-invocable-only``; ``name-only`` keeps it in, by name alone)."""
    return overrides.get(name) in ("off", "user-invocable-only")
