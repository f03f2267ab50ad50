"""Which agents see a skill where it is, and where each agent reads installed skills.

- Codex (0.171.0) scans its roots recursively (:func:`skillshelf.skills.roots.codex_roots`):
  a skill is Codex's when its ``SKILL.md`` lies under one of them (symlinks resolved).
- Claude Code (2.1.197) reads only ``<root>/<name>/SKILL.md`` one level down in
  ``.claude/skills`` (project, from the project root down to the cwd) and ``~/.claude/skills``,
  following a symlinked skill folder: a skill is Claude Code's when such a file is the same
  file as the skill's.

:func:`agent_roots` names the folders ``install --for`` puts skills in: ``~/.agents/skills`` and
``~/.claude/skills`` (user scope) or the project's ``.agents/skills`` and ``.claude/skills``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from skillshelf.env import Env
from skillshelf.skills.model import Skill
from skillshelf.skills.roots import claude_roots, claude_user_dir, codex_roots
from skillshelf.skills.same_names import same_bytes

__all__ = [
    "AGENT_NAMES",
    "AgentName",
    "FolderOwner",
    "Visibility",
    "agent_roots",
    "agents_seeing",
    "folder_owner",
]

AgentName = Literal["codex", "claude"]
AGENT_NAMES: tuple[AgentName, ...] = ("codex", "claude")


def agent_roots(scope: Literal["user", "project"], env: Env) -> dict[AgentName, Path]:
    """The folder each agent reads installed skills from, for ``scope``."""
    if scope == "user":
        return {"codex": env.home / ".agents" / "skills", "claude": claude_user_dir(env) / "skills"}
    root = env.project_root
    return {"codex": root / ".agents" / "skills", "claude": root / ".claude" / "skills"}


FolderOwner = Literal["codex", "claude", "skillshelf"]


def folder_owner(scope: Literal["user", "project"], root: Path, env: Env) -> FolderOwner:
    """Whose skills folder ``root`` is (``install --for``'s word for it): an agent's, else
    skillshelf's own."""
    owners: dict[Path, FolderOwner] = {path: agent for agent, path in agent_roots(scope, env).items()}
    return owners.get(root, "skillshelf")


def _real(path: Path) -> str:
    return os.path.realpath(path)


class Visibility:
    """Answers :meth:`agents` for many skills with the roots resolved once."""

    def __init__(self, env: Env) -> None:
        self._codex = [_real(r.path) for r in codex_roots(env)]
        self._claude = claude_roots(env)

    def agents(self, skill: Skill) -> tuple[AgentName, ...]:
        """The agents that list ``skill`` as it is installed now."""
        seen: list[AgentName] = []
        if skill.origin.is_codex or any(_under(_real(skill.path), root) for root in self._codex):
            seen.append("codex")
        if self.claude_name(skill) is not None:
            seen.append("claude")
        return tuple(seen)

    def claude_name(self, skill: Skill, *, copies: bool = False) -> str | None:
        """The name Claude Code knows ``skill`` by (its folder's name in one of Claude Code's
        roots, ``PLUGIN:FOLDER`` in a plugin's), or None when Claude Code does not see it. With
        ``copies``, a copy Claude Code lists counts too: same name, same bytes, as discovery
        keeps the original for it (a plugin installed in both agents,
        :func:`~skillshelf.skills.same_names.copied_from`)."""
        real = _real(skill.path)
        for root in self._claude:
            candidate = root.path / skill.folder.name / "SKILL.md"
            name = f"{root.namespace}:{skill.folder.name}" if root.namespace else skill.folder.name
            if _same(candidate, real):
                return name
            if copies and name == skill.name and same_bytes(candidate, skill.path):
                return name
        return None


def agents_seeing(env: Env, skills: Sequence[Skill]) -> dict[Path, tuple[AgentName, ...]]:
    """``skill.path`` -> the agents that see it, for each of ``skills``."""
    visibility = Visibility(env)
    return {s.path: visibility.agents(s) for s in skills}


def _under(path: str, root: str) -> bool:
    return path.startswith(root.rstrip(os.sep) + os.sep)


def _same(candidate: Path, real: str) -> bool:
    try:
        return candidate.is_file() and _real(candidate) == real
    except OSError:
        return False
