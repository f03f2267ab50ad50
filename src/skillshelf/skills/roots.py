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
   ``$CODEX_HOME/skills/.system`` (system, symlinks not followed; not with ``[skills.bundled]
   enabled = false`` in Codex's config, the user's or a trusted project's, see
   :func:`codex_skill_switches`), ``/etc/codex/skills`` (admin).
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from skillshelf.env import Env, find_project_root
from skillshelf.skills.claude_settings import (
    claude_flag,
    claude_project_folders,
    claude_user_dir,
    merged_settings,
)
from skillshelf.skills.codex_config import CodexSettings, read_codex_settings
from skillshelf.skills.codex_layers import canonical_cwd, codex_config_folders, codex_project_layers
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.plugins import (
    ClaudePlugin,
    claude_plugins,
    codex_plugin_folders,
    skills_dir_plugins,
)

__all__ = [
    "CodexSwitch",
    "CodexSwitches",
    "builtin_root",
    "claude_roots",
    "claude_user_dir",
    "codex_config_folders",
    "codex_roots",
    "codex_skill_switches",
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


def _project_folders(env: Env) -> list[Path]:
    """Every folder from the project root (any existing marker) down to the canonical cwd."""
    cwd = canonical_cwd(env)
    root = find_project_root(cwd, env.project_root_markers)
    chain = [cwd]
    while chain[-1] != root and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


@dataclass(frozen=True, slots=True, kw_only=True)
class CodexSwitch:
    """One on/off setting of Codex's skills and the ``config.toml`` that set it (``None``: no
    file sets it, Codex's default, on)."""

    on: bool = True
    file: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CodexSwitches:
    """``[skills.bundled] enabled`` (the system skills of ``$CODEX_HOME/skills/.system``) and
    ``skills.include_instructions`` (the skills list the model gets), as Codex decides them."""

    bundled: CodexSwitch = CodexSwitch()
    instructions: CodexSwitch = CodexSwitch()


def _switch(layers: Sequence[CodexSettings], value: Callable[[CodexSettings], bool | None]) -> CodexSwitch:
    found = CodexSwitch()
    for layer in layers:
        setting = value(layer)
        if setting is not None:
            found = CodexSwitch(on=setting, file=layer.path)
    return found


def codex_skill_switches(env: Env, config_folders: Sequence[Path] | None = None) -> CodexSwitches:
    """Codex's two skills switches here: the user's ``config.toml``, overridden by each trusted
    project layer from the project's root down to the cwd (measured with codex-oracle: a trusted
    project's ``.codex/config.toml`` turns either off too). ``config_folders`` are
    :func:`codex_config_folders` (nearest first); without them, they are found here with the
    ``project_root_markers`` of Codex's config."""
    user = read_codex_settings(env.codex_home)
    if config_folders is None:
        markers = user.project_root_markers
        config_folders = codex_config_folders(
            env if markers is None else replace(env, project_root_markers=markers)
        )
    projects = [
        read_codex_settings(dot_codex) for dot_codex in codex_project_layers(env, config_folders, user)
    ]
    layers = [user, *projects]
    return CodexSwitches(
        bundled=_switch(layers, lambda layer: layer.bundled_skills),
        instructions=_switch(layers, lambda layer: layer.skills_instructions),
    )


def codex_roots(env: Env, *, extra: Sequence[Path] = (), bundled: bool | None = None) -> list[SkillRoot]:
    """The roots Codex scans for ``env``, in Codex's order (extra roots at Codex's position).

    ``bundled`` says whether Codex's system skills (``$CODEX_HOME/skills/.system``) are scanned;
    ``None``: as Codex's config says (:func:`codex_skill_switches`)."""
    user_config = os.path.realpath(env.codex_home)
    config_folders = codex_config_folders(env)
    if bundled is None:
        bundled = codex_skill_switches(env, config_folders).bundled.on
    roots = [
        _root(folder / ".codex" / "skills", Scope.REPO, RootOrigin.CODEX_PROJECT)
        for folder in config_folders
        if os.path.realpath(folder / ".codex") != user_config
    ]
    system = env.codex_home / "skills" / ".system"
    roots += [
        _root(env.codex_home / "skills", Scope.USER, RootOrigin.CODEX_USER),
        _root(env.home / ".agents" / "skills", Scope.USER, RootOrigin.AGENTS_USER),
        *([_root(system, Scope.SYSTEM, RootOrigin.CODEX_SYSTEM, follow=False)] if bundled else []),
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
    bundled: bool | None = None,
) -> list[SkillRoot]:
    """Every root to scan, in precedence order: Codex's (``bundled``: see :func:`codex_roots`),
    skillshelf's installed skills, Claude Code's, then the built-in skills."""
    roots = codex_roots(env, extra=extra, bundled=bundled)
    if installed is not None:
        roots.append(installed_root(installed))
    if include_claude:
        roots += claude_roots(env)
    if builtin is not None:
        roots.append(builtin_root(builtin))
    return roots
