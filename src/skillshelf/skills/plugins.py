"""Skills that Codex and Claude Code load from their installed plugins.

**Codex** 0.171.0 (checked with ``codex-oracle``, ``tests/skills/test_plugins_oracle.py``): a
plugin counts when ``$CODEX_HOME/config.toml`` has a ``[plugins."NAME@MARKETPLACE"]`` table
whose ``enabled`` is not ``false``; a trusted project's ``.codex/config.toml`` can turn one on
or off (:func:`codex_enabled_plugins`). Its files are in
``$CODEX_HOME/plugins/cache/MARKETPLACE/NAME/V``, where ``V`` is ``local`` when there is one,
else the newest version (:func:`newest_version`).
Its skills are under each folder the manifest's ``skills`` names (a path or a list of them,
each starting with ``./`` and staying inside the plugin; the others are ignored), in the order
of their paths, else under ``skills/``, and under ``.codex-plugin/migrated-command-skills``
(Codex's own copies of the plugin's commands) (:func:`codex_manifest_skill_folders`). They
are roots like any other Codex root, scanned after the admin root; the manifest gives them
their ``NAME:`` prefix (:mod:`skillshelf.skills.namespace`).

**Claude Code** 2.1.197 (checked with ``claude-oracle``): a plugin counts when a settings file
sets ``enabledPlugins["NAME@MARKETPLACE"]`` to ``true`` and
``~/.claude/plugins/installed_plugins.json`` has it installed for the user, or for this project
(``projectPath``). Its folder is the ``installPath`` recorded there; for a marketplace added
from a local folder, it is the plugin's folder in that marketplace, read live. Its skills are
the skill folders in ``skills/`` and in each folder the manifest's ``skills`` names, one level
deep (a named folder may also be a skill itself); its commands are the ``*.md`` files in
``commands/`` and the manifest's ``commands``. Each is named ``PLUGIN:NAME`` (the manifest's
``name``, else the plugin's). A folder of ``~/.claude/skills`` holding
``.claude-plugin/plugin.json`` is a plugin too, with no install (:func:`skills_dir_plugins`);
a project's ``.claude/skills`` gets no such plugins.

Every file read here is small JSON, read only when it is a regular file; one that is missing,
too big or malformed leaves its plugin (or only that part) out, never the rest.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skillshelf.env import Env
from skillshelf.skills.claude_settings import read_json
from skillshelf.skills.codex_config import read_codex_settings
from skillshelf.skills.codex_layers import (
    codex_project_layers,
    codex_trust,
    codex_trust_root,
    resolved,
)
from skillshelf.skills.namespace import MANIFESTS, first_manifest

__all__ = [
    "ClaudePlugin",
    "claude_plugins",
    "codex_enabled_plugins",
    "codex_manifest",
    "codex_manifest_skill_folders",
    "codex_plugin_folders",
    "codex_project_layers",
    "codex_trust",
    "codex_trust_root",
    "newest_version",
    "plugin_manifest",
    "resolved",
    "skills_dir_plugins",
]

MAX_PLUGINS = 500
_SEGMENT = re.compile(r"^[^/\\\x00]+$")
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[-+](.*))?$")


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudePlugin:
    """An enabled Claude Code plugin: its name, folder, skill folders (or a ``SKILL.md`` the
    manifest names as a skill of its own) and command folders."""

    name: str
    root: Path
    skill_folders: tuple[Path, ...]
    command_folders: tuple[Path, ...]


def plugin_manifest(folder: Path) -> Mapping[str, object]:
    """The first manifest of a plugin folder (``.codex-plugin``, ``.claude-plugin``,
    ``.cursor-plugin``), or ``{}``."""
    value = first_manifest(str(folder))
    return value if isinstance(value, dict) else {}


def manifest_folders(root: Path, value: object, default: str) -> list[Path]:
    """The folders a manifest field names (a path or a list), inside ``root`` only; ``default``
    when the field is not set."""
    named = [value] if isinstance(value, str) else value if isinstance(value, list) else None
    if named is None:
        named = [default]
    folders = []
    for item in named:
        if not isinstance(item, str) or not item.strip() or "\x00" in item:
            continue
        relative = PurePosixPath(item.replace("\\", "/"))
        if relative.is_absolute() or ".." in relative.parts:
            continue
        folders.append(root.joinpath(*relative.parts))
    return folders


def newest_version(names: Sequence[str]) -> str | None:
    """The version folder Codex reads: ``local``, else the newest. Versions compare by their
    numbers (``10.0.0`` after ``9.1``, a release after its pre-releases); a name that is not a
    version comes after every version, and such names compare as text."""

    def key(name: str) -> tuple[int, tuple[int, ...], int, str]:
        match = _VERSION.match(name)
        if match is None:
            return (1, (), 0, name)
        numbers = tuple(int(part) for part in match.group(1).split("."))
        return (0, numbers, 0 if match.group(2) else 1, name)

    if "local" in names:
        return "local"
    return max(names, key=key) if names else None


def codex_plugin_folders(env: Env, project_folders: Sequence[Path] = ()) -> list[Path]:
    """The folders whose skills Codex loads from its enabled plugins (see the module docstring).
    ``project_folders``: the folders whose ``.codex/config.toml`` Codex reads, nearest first,
    the project's root last (:func:`skillshelf.skills.roots.codex_config_folders`)."""
    cache = env.codex_home / "plugins" / "cache"
    folders: list[Path] = []
    for plugin_id in codex_enabled_plugins(env, project_folders)[:MAX_PLUGINS]:
        parts = _plugin_id(plugin_id)
        if parts is None:
            continue
        root = _codex_version_folder(cache / parts[1] / parts[0])
        manifest = None if root is None else codex_manifest(root)
        if root is None or manifest is None:
            continue
        folders.append(root / ".codex-plugin" / "migrated-command-skills")
        folders += codex_manifest_skill_folders(root, manifest.get("skills"))
    return folders


def codex_manifest_skill_folders(root: Path, value: object) -> list[Path]:
    """The skill folders a Codex plugin manifest's ``skills`` names (a path or a list), as
    Codex 0.171 reads them: only a path starting with ``./`` that names a folder inside
    ``root`` counts, the folders sorted by path, each once; ``skills/`` when none counts."""
    named = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    folders: set[Path] = set()
    for item in named:
        if not isinstance(item, str) or not item.startswith("./") or "\x00" in item:
            continue
        parts = [part for part in PurePosixPath(item[2:]).parts if part != "."]
        if parts and not PurePosixPath(item[2:]).is_absolute() and ".." not in parts:
            folders.add(root.joinpath(*parts))
    return sorted(folders) if folders else [root / "skills"]


def codex_enabled_plugins(env: Env, project_folders: Sequence[Path] = ()) -> list[str]:
    """The ids of the plugins Codex has on: the user's ``config.toml``, then each trusted
    project layer from the root down to the cwd (:func:`codex_project_layers`)."""
    user = read_codex_settings(env.codex_home)
    states = dict(user.plugins)
    for dot_codex in codex_project_layers(env, project_folders, user):
        states.update(read_codex_settings(dot_codex).plugins)
    return sorted((plugin_id for plugin_id, on in states.items() if on), key=_plugin_order)


def _plugin_order(plugin_id: str) -> tuple[str, str]:
    """Codex's plugin order: by plugin name, then marketplace (``demo@mk`` before ``demo2@mk``)."""
    name, _, marketplace = plugin_id.rpartition("@")
    return name, marketplace


def codex_manifest(root: Path) -> Mapping[str, object] | None:
    """The manifest of a Codex plugin's version folder, ``None`` when Codex 0.171 loads nothing
    from the plugin (measured with codex-oracle): the first of ``.codex-plugin``,
    ``.claude-plugin``, ``.cursor-plugin`` whose ``plugin.json`` exists (a folder too) must be a
    JSON object whose ``name`` is text when set and whose ``version``, ``description`` (text) and
    ``keywords`` (a list of text) have their types when set; a folder without one is no plugin."""
    paths = (root / marker / "plugin.json" for marker in MANIFESTS)
    found = next((path for path in paths if os.path.lexists(path)), None)
    if found is None or not found.is_file():
        return None
    value = first_manifest(str(root))
    if not isinstance(value, dict) or not isinstance(value.get("name", ""), str):
        return None
    if any(not isinstance(value.get(key), str | None) for key in ("version", "description")):
        return None
    keywords = value.get("keywords")
    listed = isinstance(keywords, list) and all(isinstance(k, str) for k in keywords)
    return value if keywords is None or listed else None


def _codex_version_folder(plugin: Path) -> Path | None:
    try:
        names = [entry.name for entry in os.scandir(plugin) if entry.is_dir()]
    except OSError:
        return None
    chosen = newest_version(names)
    return plugin / chosen if chosen is not None else None


def _plugin_id(plugin_id: object) -> tuple[str, str] | None:
    """``(name, marketplace)`` of ``NAME@MARKETPLACE``, each a plain folder name."""
    if not isinstance(plugin_id, str):
        return None
    name, at, marketplace = plugin_id.rpartition("@")
    if not at or not all(_SEGMENT.match(p) and p not in (".", "..") for p in (name, marketplace)):
        return None
    return name, marketplace


def claude_plugins(env: Env, enabled: Mapping[str, object], plugins_dir: Path) -> list[ClaudePlugin]:
    """The Claude Code plugins ``enabled`` (the merged ``enabledPlugins``) turns on that are
    installed for the user or this project (``plugins_dir``: ``~/.claude/plugins``)."""
    records = read_json(plugins_dir / "installed_plugins.json").get("plugins")
    if not isinstance(records, dict):
        return []
    marketplaces = read_json(plugins_dir / "known_marketplaces.json")
    here = {resolved(env.project_root), resolved(env.cwd)}
    found: list[ClaudePlugin] = []
    for plugin_id, on in list(enabled.items())[:MAX_PLUGINS]:
        parts = _plugin_id(plugin_id)
        if on is not True or parts is None:
            continue
        install = _installation(records.get(plugin_id), here)
        if install is None:
            continue
        root = _live_folder(marketplaces.get(parts[1]), parts[0]) or install
        if root.is_dir():
            found.append(_claude_plugin(root, parts[0]))
    return found


def skills_dir_plugins(user_skills: Path) -> list[ClaudePlugin]:
    """The plugins Claude Code finds in the user's skills folder: each subfolder holding
    ``.claude-plugin/plugin.json`` is loaded as a plugin without being installed."""
    try:
        folders = sorted(entry.name for entry in os.scandir(user_skills) if entry.is_dir())
    except OSError:
        return []
    found = []
    for folder in folders[:MAX_PLUGINS]:
        root = user_skills / folder
        if (root / ".claude-plugin" / "plugin.json").is_file():
            found.append(_claude_plugin(root, folder))
    return found


def _claude_plugin(root: Path, fallback_name: str) -> ClaudePlugin:
    manifest = plugin_manifest(root)
    name = manifest.get("name")
    extra_skills = [
        folder / "SKILL.md" if (folder / "SKILL.md").is_file() else folder
        for folder in manifest_folders(root, manifest.get("skills"), "")
    ]
    return ClaudePlugin(
        name=name if isinstance(name, str) and name.strip() else fallback_name,
        root=root,
        skill_folders=(root / "skills", *extra_skills),
        command_folders=tuple(manifest_folders(root, manifest.get("commands"), "commands")),
    )


def _installation(records: object, here: set[Path]) -> Path | None:
    """The ``installPath`` of the installation for the user, or for this project."""
    if not isinstance(records, list):
        return None
    for record in records:
        path = record.get("installPath") if isinstance(record, dict) else None
        if not isinstance(path, str) or not os.path.isabs(path) or "\x00" in path:
            continue
        scope, project = record.get("scope"), record.get("projectPath")
        if scope == "user" or (
            isinstance(project, str) and "\x00" not in project and resolved(Path(project)) in here
        ):
            return Path(path)
    return None


def _live_folder(marketplace: object, name: str) -> Path | None:
    """For a marketplace added from a local folder, the plugin's folder there."""
    if not isinstance(marketplace, dict):
        return None
    source, location = marketplace.get("source"), marketplace.get("installLocation")
    if not isinstance(source, dict) or source.get("source") != "directory" or not isinstance(location, str):
        return None
    if not os.path.isabs(location) or "\x00" in location:
        return None
    entries = read_json(Path(location) / ".claude-plugin" / "marketplace.json").get("plugins")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name and isinstance(entry.get("source"), str):
            folders = manifest_folders(Path(location), entry["source"], "")
            return folders[0] if folders else None
    return None
