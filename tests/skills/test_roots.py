"""Which roots are scanned, in which order and scope (Codex 0.171.0 as the oracle shows it)."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

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


def test_claude_roots_go_from_cwd_to_project_root_then_home_then_the_managed_policy(tmp_path: Path) -> None:
    env, repo = make_env(tmp_path)
    roots = claude_roots(env)
    assert [r.path for r in roots] == [
        repo / "a/b/.claude/skills",
        repo / "a/.claude/skills",
        repo / ".claude/skills",
        env.home / ".claude/skills",
        env.claude_managed_dir / ".claude/skills",
    ]
    assert (roots[-1].scope, roots[-1].origin) == (Scope.ADMIN, RootOrigin.CLAUDE_MANAGED)
    assert all(r.origin.is_claude for r in roots)


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


def git_repo(path: Path) -> Path:
    """A real repository made by ``git init``."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    return path


def codex_project_paths(env: Env) -> list[Path]:
    return [r.path for r in codex_roots(env) if r.origin is RootOrigin.CODEX_PROJECT]


def test_in_a_git_repository_codex_reads_every_dot_codex_from_the_cwd_up_to_the_root(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    cwd = repo / "a" / "b"
    cwd.mkdir(parents=True)
    env = Env.for_test(cwd=cwd, home=tmp_path / "home")
    assert codex_project_paths(env) == [
        cwd / ".codex/skills",
        repo / "a/.codex/skills",
        repo / ".codex/skills",
    ]
    agents = [r.path for r in codex_roots(env) if r.origin is RootOrigin.AGENTS_REPO]
    assert agents == [repo / ".agents/skills", repo / "a/.agents/skills", cwd / ".agents/skills"]


def test_an_empty_git_folder_is_a_project_root_for_agents_but_not_for_dot_codex(tmp_path: Path) -> None:
    env, repo = make_env(tmp_path)  # repo/.git is an empty folder
    assert codex_project_paths(env) == [env.cwd / ".codex/skills"]
    assert [r.path for r in codex_roots(env) if r.origin is RootOrigin.AGENTS_REPO][
        0
    ] == repo / ".agents/skills"


def test_an_empty_git_folder_does_not_stop_the_search_for_a_real_repository(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "a" / ".git").mkdir(parents=True)
    cwd = repo / "a" / "b"
    cwd.mkdir()
    env = Env.for_test(cwd=cwd, home=tmp_path / "home")
    assert codex_project_paths(env)[-1] == repo / ".codex/skills"


@pytest.mark.parametrize("git_entry", ["worktree-file", "empty-file", "folder-with-head"])
def test_a_git_file_or_a_folder_with_head_makes_a_repository(tmp_path: Path, git_entry: str) -> None:
    repo = tmp_path / "repo"
    cwd = repo / "sub"
    cwd.mkdir(parents=True)
    if git_entry == "worktree-file":
        (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n", encoding="utf-8")
    elif git_entry == "empty-file":
        (repo / ".git").write_text("", encoding="utf-8")
    else:
        (repo / ".git").mkdir()
        (repo / ".git" / "HEAD").write_text("", encoding="utf-8")
    env = Env.for_test(cwd=cwd, home=tmp_path / "home")
    assert codex_project_paths(env) == [cwd / ".codex/skills", repo / ".codex/skills"]


def test_other_markers_count_when_they_exist(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "a").mkdir(parents=True)
    (repo / ".hg").write_text("", encoding="utf-8")
    git_repo(repo / "a")
    env = dataclasses.replace(
        Env.for_test(cwd=repo / "a", home=tmp_path / "home"), project_root_markers=(".hg",)
    )
    assert codex_project_paths(env) == [repo / "a/.codex/skills", repo / ".codex/skills"]
    no_markers = dataclasses.replace(env, project_root_markers=())
    assert codex_project_paths(no_markers) == [repo / "a/.codex/skills"]


def test_a_dot_codex_that_is_codex_home_is_the_users_root_not_a_project_one(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "a").mkdir()
    env = Env.for_test(cwd=repo / "a", home=repo, codex_home=repo / ".codex")
    roots = codex_roots(env)
    assert codex_project_paths(env) == [repo / "a/.codex/skills"]
    assert [r.origin for r in roots if r.path == repo / ".codex/skills"] == [RootOrigin.CODEX_USER]


def test_a_symlinked_cwd_is_walked_from_its_real_folder(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "a").mkdir()
    link = tmp_path / "link"
    link.symlink_to(repo / "a")
    env = Env.for_test(cwd=link, home=tmp_path / "home")
    assert codex_project_paths(env) == [repo / "a/.codex/skills", repo / ".codex/skills"]
