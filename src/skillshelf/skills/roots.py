"""Where skills are looked for: Codex's roots, Claude Code's roots, extra and built-in roots.

Codex 0.171.0, measured with ``codex-oracle`` (``tests/skills/test_codex_roots_oracle.py``
pins each rule), scans in this order:

1. ``<dir>/.codex/skills`` for every folder from the cwd *up* to the project's *config root*
   (repo scope, nearest first). The config root is the nearest ancestor of the canonical cwd
   (itself included) holding a ``project_root_markers`` entry (default ``.git``), where a
   ``.git`` entry counts only when Git could use it: a file (a worktree's or submodule's
   ``gitdir:`` link, whatever it says) or a folder holding ``HEAD``. An empty ``.git``
   folder, or a link to a missing one, does not count and the search goes on upwards. With
   no config root, or ``project_root_markers = []``, only the cwd's ``.codex`` is read. A
   ``.codex`` folder that *is* ``$CODEX_HOME`` is the user's, not a project layer.
2. ``$CODEX_HOME/skills`` (user), ``~/.agents/skills`` (user),
   ``$CODEX_HOME/skills/.system`` (system, symlinks not followed), ``/etc/codex/skills`` (admin).
3. The skill folders of the plugins Codex has enabled (user;
   :func:`skillshelf.skills.plugins.codex_plugin_folders`), then extra roots (user), as
   Codex's runtime extra roots.
4. ``<dir>/.agents/skills`` for every folder from the *project root* down to the cwd (repo).
   Here any marker that exists counts, an empty ``.git`` folder too, as for AGENTS.md.

``project_root_markers`` is read from Codex's ``config.toml`` by discovery
(:mod:`skillshelf.skills.codex_config`) and reaches this module through ``Env``. Then Claude
Code's roots (``.claude/skills`` from the cwd up to the repository root, ``~/.claude/skills``,
then the skill folders of its enabled plugins) and skillshelf's built-in skills (system
scope). Discovery keeps the first root that yields a given ``SKILL.md``, so Codex's roots win
over the others.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from skillshelf.env import Env, find_project_root
from skillshelf.skills.claude_settings import (
    claude_flag,
    claude_project_folders,
    claude_user_dir,
    merged_settings,
)
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.plugins import ClaudePlugin, claude_plugins, codex_plugin_folders, skills_dir_plugins

__all__ = [
    "builtin_root",
    "claude_roots",
    "claude_user_dir",
    "codex_config_folders",
    "codex_roots",
    "enabled_claude_plugins",
    "extra_roots",
    "is_claude_root",
    "skill_roots",
]


def is_claude_root(root: SkillRoot) -> bool:
    """Roots read with Claude Code's rules (one level; folder name = skill name)."""
    return root.origin.is_claude


def _root(path: Path, scope: Scope, origin: RootOrigin, *, follow: bool = True) -> SkillRoot:
    return SkillRoot(path=path, scope=scope, origin=origin, follow_symlinks=follow)


def _canonical_cwd(env: Env) -> Path:
    """The cwd folder as Codex walks it: symlinks resolved (the cwd's folder when it is a file)."""
    cwd = Path(os.path.realpath(env.cwd))
    return cwd if cwd.is_dir() or not cwd.exists() else cwd.parent


def _git_usable(marker: str) -> bool:
    """A ``.git`` entry Codex takes as a repository: a file, or a folder holding ``HEAD``."""
    if os.path.isfile(marker):
        return True
    return os.path.isdir(marker) and os.path.exists(os.path.join(marker, "HEAD"))


def _marks_config_root(folder: str, markers: Sequence[str]) -> bool:
    for marker in markers:
        path = os.path.join(folder, marker)
        if os.path.basename(os.path.normpath(marker)) == ".git":
            if _git_usable(path):
                return True
        elif os.path.exists(path):
            return True
    return False


def codex_config_folders(env: Env) -> list[Path]:
    """Folders whose ``.codex`` Codex reads, nearest first: the cwd up to the config root.

    See the module docstring for what makes a config root; only the cwd when there is none.
    """
    cwd = _canonical_cwd(env)
    markers = [m for m in env.project_root_markers if "\x00" not in m]
    chain: list[Path] = []
    for folder in (cwd, *cwd.parents):
        chain.append(folder)
        if markers and _marks_config_root(str(folder), markers):
            return chain
    return [cwd]


def _project_folders(env: Env) -> list[Path]:
    """Every folder from the project root (any existing marker) down to the canonical cwd."""
    cwd = _canonical_cwd(env)
    root = find_project_root(cwd, env.project_root_markers)
    chain = [cwd]
    while chain[-1] != root and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def codex_roots(env: Env, *, extra: Sequence[Path] = ()) -> list[SkillRoot]:
    """The roots Codex scans for ``env``, in Codex's order (extra roots at Codex's position)."""
    user_config = os.path.realpath(env.codex_home)
    config_folders = codex_config_folders(env)
    roots = [
        _root(folder / ".codex" / "skills", Scope.REPO, RootOrigin.CODEX_PROJECT)
        for folder in config_folders
        if os.path.realpath(folder / ".codex") != user_config
    ]
    roots += [
        _root(env.codex_home / "skills", Scope.USER, RootOrigin.CODEX_USER),
        _root(env.home / ".agents" / "skills", Scope.USER, RootOrigin.AGENTS_USER),
        _root(env.codex_home / "skills" / ".system", Scope.SYSTEM, RootOrigin.CODEX_SYSTEM, follow=False),
        _root(env.admin_skills_dir, Scope.ADMIN, RootOrigin.CODEX_ADMIN),
    ]
    plugins = codex_plugin_folders(env, config_folders)
    roots += [_root(folder, Scope.USER, RootOrigin.CODEX_PLUGIN) for folder in plugins]
    roots += extra_roots(extra)
    roots += [
        _root(folder / ".agents" / "skills", Scope.REPO, RootOrigin.AGENTS_REPO)
        for folder in _project_folders(env)
    ]
    return roots


def claude_roots(env: Env) -> list[SkillRoot]:
    """Claude Code's roots: ``.claude/skills`` of each :func:`claude_project_folders`, the user's,
    the managed policy's (``/etc/claude-code/.claude/skills`` on Linux; not with
    ``CLAUDE_CODE_DISABLE_POLICY_SKILLS`` set to 1, true, yes or on), then the skill folders of
    each enabled plugin (their skills named ``PLUGIN:NAME``)."""
    project = [
        _root(folder / ".claude" / "skills", Scope.REPO, RootOrigin.CLAUDE_PROJECT)
        for folder in claude_project_folders(env)
    ]
    policy_off = claude_flag(env.environ, "CLAUDE_CODE_DISABLE_POLICY_SKILLS")
    managed = [] if policy_off else [env.claude_managed_dir / ".claude" / "skills"]
    return [
        *project,
        _root(claude_user_dir(env) / "skills", Scope.USER, RootOrigin.CLAUDE_USER),
        *(_root(folder, Scope.ADMIN, RootOrigin.CLAUDE_MANAGED) for folder in managed),
        *(
            SkillRoot(path=folder, scope=Scope.USER, origin=RootOrigin.CLAUDE_PLUGIN, namespace=plugin.name)
            for plugin in enabled_claude_plugins(env)
            for folder in plugin.skill_folders
        ),
    ]


def enabled_claude_plugins(env: Env) -> list[ClaudePlugin]:
    """Claude Code's plugins, in its order: the enabled and installed ones, then those in the
    user's skills folder (:mod:`skillshelf.skills.plugins`)."""
    enabled = merged_settings(env).get("enabledPlugins")
    installed = (
        claude_plugins(env, enabled, claude_user_dir(env) / "plugins") if isinstance(enabled, dict) else []
    )
    return [*installed, *skills_dir_plugins(claude_user_dir(env) / "skills")]


def extra_roots(paths: Sequence[Path]) -> list[SkillRoot]:
    """Roots given by the user (``--root DIR``): user scope, symlinks followed."""
    return [_root(Path(p).expanduser().absolute(), Scope.USER, RootOrigin.EXTRA) for p in paths]


def builtin_root(path: Path) -> SkillRoot:
    """skillshelf's own skills, installed under the user data folder (system scope)."""
    return _root(path, Scope.SYSTEM, RootOrigin.BUILTIN, follow=False)


def installed_root(path: Path) -> SkillRoot:
    """Skills put there by ``skillshelf install --scope user`` (user scope, symlinks followed)."""
    return _root(path, Scope.USER, RootOrigin.INSTALLED)


def skill_roots(
    env: Env,
    *,
    extra: Sequence[Path] = (),
    include_claude: bool = True,
    builtin: Path | None = None,
    installed: Path | None = None,
) -> list[SkillRoot]:
    """Every root to scan, in precedence order: Codex's, skillshelf's installed skills, Claude
    Code's, then the built-in skills."""
    roots = codex_roots(env, extra=extra)
    if installed is not None:
        roots.append(installed_root(installed))
    if include_claude:
        roots += claude_roots(env)
    if builtin is not None:
        roots.append(builtin_root(builtin))
    return roots
