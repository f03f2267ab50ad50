"""Which roots are scanned, in which order and scope (Codex 0.171.0 as the oracle shows it)."""

from __future__ import annotations

from pathlib import Path

from skillshelf.env import Env
from skillshelf.skills.model import RootOrigin, Scope
from skillshelf.skills.roots import claude_roots, codex_roots, skill_roots


def make_env(tmp_path: Path) -> tuple[Env, Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "a" / "b"
    cwd.mkdir(parents=True)
    return Env.for_test(cwd=cwd, home=tmp_path / "home"), repo


def test_codex_roots_come_in_codex_order(tmp_path: Path) -> None:
    env, repo = make_env(tmp_path)
    roots = codex_roots(env, extra=[tmp_path / "extra"])
    assert [(r.path, r.scope, r.origin) for r in roots] == [
        (env.cwd / ".codex/skills", Scope.REPO, RootOrigin.CODEX_PROJECT),
        (env.codex_home / "skills", Scope.USER, RootOrigin.CODEX_USER),
        (env.home / ".agents/skills", Scope.USER, RootOrigin.AGENTS_USER),
        (env.codex_home / "skills/.system", Scope.SYSTEM, RootOrigin.CODEX_SYSTEM),
        (env.admin_skills_dir, Scope.ADMIN, RootOrigin.CODEX_ADMIN),
        (tmp_path / "extra", Scope.USER, RootOrigin.EXTRA),
        (repo / ".agents/skills", Scope.REPO, RootOrigin.AGENTS_REPO),
        (repo / "a/.agents/skills", Scope.REPO, RootOrigin.AGENTS_REPO),
        (repo / "a/b/.agents/skills", Scope.REPO, RootOrigin.AGENTS_REPO),
    ]


def test_only_the_system_root_does_not_follow_symlinks(tmp_path: Path) -> None:
    env, _ = make_env(tmp_path)
    assert [r.origin for r in codex_roots(env) if not r.follow_symlinks] == [RootOrigin.CODEX_SYSTEM]


def test_without_a_marker_the_cwd_is_the_project_root(tmp_path: Path) -> None:
    cwd = tmp_path / "plain" / "dir"
    cwd.mkdir(parents=True)
    env = Env.for_test(cwd=cwd, home=tmp_path / "home")
    agents = [r.path for r in codex_roots(env) if r.origin is RootOrigin.AGENTS_REPO]
    assert agents == [cwd / ".agents/skills"]


def test_claude_roots_go_from_cwd_to_project_root_then_home(tmp_path: Path) -> None:
    env, repo = make_env(tmp_path)
    assert [r.path for r in claude_roots(env)] == [
        repo / "a/b/.claude/skills",
        repo / "a/.claude/skills",
        repo / ".claude/skills",
        env.home / ".claude/skills",
    ]


def test_builtin_and_claude_roots_are_optional(tmp_path: Path) -> None:
    env, _ = make_env(tmp_path)
    everything = skill_roots(env, builtin=tmp_path / "builtin")
    assert everything[-1].origin is RootOrigin.BUILTIN and everything[-1].scope is Scope.SYSTEM
    codex_only = skill_roots(env, include_claude=False)
    assert all(r.origin.is_codex for r in codex_only)


def test_codex_home_and_home_are_honoured(tmp_path: Path) -> None:
    env = Env.for_test(cwd=tmp_path, home=tmp_path / "h", codex_home=tmp_path / "ch")
    paths = [r.path for r in codex_roots(env)]
    assert tmp_path / "ch/skills" in paths and tmp_path / "h/.agents/skills" in paths
