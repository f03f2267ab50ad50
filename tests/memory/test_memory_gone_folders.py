"""The project a session is filed under once its folder is gone (a removed git worktree, a
deleted sub-folder), with real git worktrees."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from memory_helpers import write_claude_transcript

from skillshelf.env import Env
from skillshelf.memory.projects import session_project
from skillshelf.memory.service import RunOptions, run_memory
from skillshelf.memory.settings import MemorySettings
from skillshelf.memory.store import open_store
from testkit import git_worktrees

_NEVER_CALLED = MemorySettings().with_overrides(
    extract_model="openai:small", consolidation_model="openai:big", base_url="http://127.0.0.1:9/v1"
)


def _session(env: Env, session_id: str, cwd: Path) -> Path:
    return write_claude_transcript(
        env.home / ".claude" / "projects" / session_id / f"{session_id}.jsonl",
        session_id=session_id,
        cwd=cwd,
        turns=["remember: run make check", "ok"],
    )


def _filed(env: Env, *session_ids: str) -> list[str]:
    """The project each session is filed under after a run in ``env`` (one that claims nothing:
    the sessions are too recent)."""
    run_memory(env, _NEVER_CALLED, RunOptions(phase="1"))
    with open_store(None, data_dir=env.dirs.data) as store:
        rows = [store.session(s) for s in session_ids]
    return [row.project if row else "" for row in rows]


def _env(box: Any, cwd: Path) -> Env:
    return Env.for_test(cwd=cwd, home=box.home, codex_home=box.codex_home)


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True, timeout=60)


def test_a_session_of_a_worktree_deleted_without_git_is_filed_under_the_main_checkout_run_in(
    isolated_home: Any,
) -> None:
    main, worktree = isolated_home.home / "repo", isolated_home.home / "repo-task"
    git_worktrees(main, worktree)
    env = _env(isolated_home, main)
    _session(env, "s1", worktree / "src")
    shutil.rmtree(worktree)  # git keeps its record of the worktree until `git worktree prune`
    assert _filed(env, "s1") == [session_project(main)]


def test_a_session_of_a_deleted_worktree_is_filed_under_a_main_checkout_the_store_knows(
    isolated_home: Any,
) -> None:
    main, worktree = isolated_home.home / "repo", isolated_home.home / "repo-task"
    git_worktrees(main, worktree)
    elsewhere = _env(isolated_home, isolated_home.home)
    _session(elsewhere, "in-main", main)
    _filed(elsewhere, "in-main")
    _session(elsewhere, "in-worktree", worktree)
    shutil.rmtree(worktree)
    assert _filed(elsewhere, "in-worktree") == [session_project(main)]


def test_a_removed_worktree_made_inside_its_main_checkout_is_filed_under_the_main_checkout(
    isolated_home: Any,
) -> None:
    main = isolated_home.home / "repo"
    worktree = main / ".claude" / "worktrees" / "task"
    git_worktrees(main, worktree)
    env = _env(isolated_home, isolated_home.home)
    _session(env, "s1", worktree)
    _git("-C", str(main), "worktree", "remove", "--force", str(worktree))
    assert _filed(env, "s1") == [session_project(main)]


def test_a_worktree_deleted_inside_its_main_checkout_is_filed_under_it_by_gits_record(
    isolated_home: Any,
) -> None:
    main = isolated_home.home / "repo"
    worktree = main / "wt" / "task"
    git_worktrees(main, worktree)
    env = _env(isolated_home, isolated_home.home)
    _session(env, "s1", worktree / "src")
    shutil.rmtree(main / "wt")  # git keeps its record of the worktree until `git worktree prune`
    assert _filed(env, "s1") == [session_project(main)]


def test_a_deleted_standalone_clone_inside_another_repository_keeps_its_own_path(isolated_home: Any) -> None:
    outer = git_worktrees(isolated_home.home / "outer")
    clone = git_worktrees(outer / "scratch" / "otherlib")
    assert session_project(clone) == str(clone)
    shutil.rmtree(clone)
    assert session_project(clone) == str(clone)


def test_a_session_of_a_deleted_plain_sub_folder_keeps_its_own_path(isolated_home: Any) -> None:
    """Nothing left on disk tells a deleted sub-folder from a deleted clone of another
    repository that sat there, so neither is filed under the repository around it."""
    main = git_worktrees(isolated_home.home / "repo")
    sub = main / "tools" / "gen"
    sub.mkdir(parents=True)
    env = _env(isolated_home, isolated_home.home)
    _session(env, "s1", sub)
    shutil.rmtree(main / "tools")
    assert _filed(env, "s1") == [str(sub)]


def test_a_session_keeps_the_project_it_was_filed_under_when_it_changes_after_its_worktree_is_removed(
    isolated_home: Any,
) -> None:
    main, worktree = isolated_home.home / "repo", isolated_home.home / "repo-task"
    git_worktrees(main, worktree)
    env = _env(isolated_home, isolated_home.home)
    transcript = _session(env, "s1", worktree)
    assert _filed(env, "s1") == [session_project(main)]  # registered while the session went on
    _git("-C", str(main), "worktree", "remove", str(worktree))
    with transcript.open("a", encoding="utf-8") as more:
        more.write(transcript.read_text(encoding="utf-8").splitlines(keepends=True)[-1])
    assert _filed(env, "s1") == [session_project(main)]


def test_a_gone_folder_nothing_on_disk_tells_about_keeps_its_own_path(isolated_home: Any) -> None:
    gone = isolated_home.home / "scratch" / "clone"
    env = _env(isolated_home, isolated_home.home)
    _session(env, "s1", gone)
    assert _filed(env, "s1") == [str(gone)]
