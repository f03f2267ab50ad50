"""Where skills are looked for: Codex's roots, Claude Code's roots, extra and built-in roots.

Codex 0.171.0 (checked with the oracle), in this order:

1. ``<cwd>/.codex/skills`` (repo). Codex 0.171.0 reads only the cwd's own ``.codex`` folder,
   not the ones of its ancestors, whatever the trust or config files say.
2. ``$CODEX_HOME/skills`` (user), ``~/.agents/skills`` (user),
   ``$CODEX_HOME/skills/.system`` (system, symlinks not followed), ``/etc/codex/skills`` (admin).
3. Extra roots (user), as Codex's runtime extra roots.
4. ``<dir>/.agents/skills`` for every folder from the project root down to the cwd (repo).

Then Claude Code's roots (``.claude/skills`` from the project root down to the cwd, then
``~/.claude/skills``) and skillshelf's built-in skills (system scope). Discovery keeps the first
root that yields a given ``SKILL.md``, so Codex's roots win over the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillshelf.env import Env
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot

__all__ = [
    "builtin_root",
    "claude_roots",
    "claude_user_dir",
    "codex_roots",
    "extra_roots",
    "is_claude_root",
    "skill_roots",
]

_CLAUDE = frozenset({RootOrigin.CLAUDE_PROJECT, RootOrigin.CLAUDE_USER})


def is_claude_root(root: SkillRoot) -> bool:
    """Roots read with Claude Code's rules (one level; folder name = skill name)."""
    return root.origin in _CLAUDE


def _root(path: Path, scope: Scope, origin: RootOrigin, *, follow: bool = True) -> SkillRoot:
    return SkillRoot(path=path, scope=scope, origin=origin, follow_symlinks=follow)


def _cwd_folder(env: Env) -> Path:
    return env.cwd if env.cwd.is_dir() or not env.cwd.exists() else env.cwd.parent


def codex_roots(env: Env, *, extra: Sequence[Path] = ()) -> list[SkillRoot]:
    """The roots Codex scans for ``env``, in Codex's order (extra roots at Codex's position)."""
    roots = [
        _root(_cwd_folder(env) / ".codex" / "skills", Scope.REPO, RootOrigin.CODEX_PROJECT),
        _root(env.codex_home / "skills", Scope.USER, RootOrigin.CODEX_USER),
        _root(env.home / ".agents" / "skills", Scope.USER, RootOrigin.AGENTS_USER),
        _root(env.codex_home / "skills" / ".system", Scope.SYSTEM, RootOrigin.CODEX_SYSTEM, follow=False),
        _root(env.admin_skills_dir, Scope.ADMIN, RootOrigin.CODEX_ADMIN),
    ]
    roots += extra_roots(extra)
    roots += [
        _root(folder / ".agents" / "skills", Scope.REPO, RootOrigin.AGENTS_REPO)
        for folder in env.folders_root_to_cwd()
    ]
    return roots


def claude_user_dir(env: Env) -> Path:
    """Claude Code's user folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    value = env.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else env.home / ".claude"


def claude_roots(env: Env) -> list[SkillRoot]:
    """Claude Code's roots: ``.claude/skills`` from the cwd up to the project root, then the user's."""
    project = [
        _root(folder / ".claude" / "skills", Scope.REPO, RootOrigin.CLAUDE_PROJECT)
        for folder in reversed(env.folders_root_to_cwd())
    ]
    return [*project, _root(claude_user_dir(env) / "skills", Scope.USER, RootOrigin.CLAUDE_USER)]


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
