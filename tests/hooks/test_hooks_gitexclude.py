"""`setup claude` at project scope keeps the personal settings file out of git in this clone,
and `--remove` takes the rule out again; real git repositories."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillshelf.env import Env
from skillshelf.hooks.gitexclude import git_standing, with_rule, without_rule
from skillshelf.hooks.setup import apply_setup, plan_setup

COMMAND = ["/opt/venv/bin/skillshelf"]
PERSONAL = ".claude/settings.local.json"

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None and not os.environ.get("CI"), reason="git is not installed"
)


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    return subprocess.run(
        ["git", *identity, *args], cwd=repo, capture_output=True, encoding="utf-8", check=False
    )


def _repo(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _setup(env: Env, *, remove: bool = False) -> Any:
    plan = plan_setup(env, "claude", "project", command=COMMAND, state_dir=env.dirs.state, remove=remove)
    apply_setup(plan, state_dir=env.dirs.state)
    return plan


def test_setup_has_git_ignore_the_personal_settings_and_remove_takes_the_rule_out(isolated_home: Any) -> None:
    repo, env = _repo(isolated_home)
    exclude = repo / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    plan = _setup(env)
    assert {c.path for c in plan.changed} == {repo / PERSONAL, exclude}
    assert _git(repo, "check-ignore", "-q", PERSONAL).returncode == 0
    assert _git(repo, "status", "--porcelain", "--untracked-files=all").stdout == ""
    assert any("git ignore that file in this clone" in n for n in plan.notes)
    assert not _setup(env).changed  # a second run changes nothing
    _setup(env, remove=True)
    assert exclude.read_bytes() == before and not (repo / ".claude").exists()


def test_a_repository_that_ignores_the_file_already_is_left_alone(isolated_home: Any) -> None:
    repo, env = _repo(isolated_home)
    (repo / ".gitignore").write_text("**/.claude/settings.local.json\n", encoding="utf-8")
    exclude = repo / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    plan = _setup(env)
    assert [c.path for c in plan.changed] == [repo / PERSONAL] and exclude.read_bytes() == before
    assert any("git ignores that file" in n for n in plan.notes)


def test_a_tracked_personal_file_gets_a_note_how_to_stop_sharing_it(isolated_home: Any) -> None:
    repo, env = _repo(isolated_home)
    (repo / ".claude").mkdir()
    (repo / PERSONAL).write_text("{}\n", encoding="utf-8")
    _git(repo, "add", PERSONAL)
    _git(repo, "commit", "-q", "-m", "settings")
    plan = _setup(env)
    assert [c.path for c in plan.changed] == [repo / PERSONAL]
    assert any(f"git rm --cached {PERSONAL}" in n for n in plan.notes)


def test_a_worktree_shares_the_repositorys_exclude_file(isolated_home: Any) -> None:
    repo, _ = _repo(isolated_home)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    tree = isolated_home.home / "tree"
    assert _git(repo, "worktree", "add", "-q", str(tree)).returncode == 0
    standing = git_standing(tree / PERSONAL, {"PATH": os.environ.get("PATH", os.defpath)})
    assert standing is not None
    assert standing.exclude.resolve() == (repo / ".git" / "info" / "exclude").resolve()
    assert (standing.rule, standing.ignored, standing.tracked) == ("/" + PERSONAL, False, False)


def test_the_exclude_file_is_named_without_dot_dot(isolated_home: Any) -> None:
    repo, _ = _repo(isolated_home)
    (repo / ".claude").mkdir(exist_ok=True)
    standing = git_standing(repo / PERSONAL, {"PATH": os.environ.get("PATH", os.defpath)})
    assert standing is not None
    assert ".." not in standing.exclude.parts
    assert standing.exclude == (repo / ".git" / "info" / "exclude").resolve()


def test_outside_a_repository_setup_only_writes_the_settings(isolated_home: Any) -> None:
    folder = isolated_home.home / "plain"
    folder.mkdir()
    env = Env.for_test(cwd=folder, home=isolated_home.home, codex_home=isolated_home.codex_home)
    ceiling = {**env.environ, "GIT_CEILING_DIRECTORIES": str(isolated_home.home)}  # even inside a checkout
    env = dataclasses.replace(env, environ=ceiling)
    assert git_standing(folder / PERSONAL, env.environ) is None
    plan = _setup(env)
    assert [c.path.name for c in plan.changed] == ["settings.local.json"]
    assert any("keep that file out of version control" in n for n in plan.notes)


@pytest.mark.parametrize("text", [None, "", "# git's own comment\n*.log", "a\n\nb\n"])
def test_the_rule_goes_in_and_out_leaving_the_rest_of_the_file(text: str | None) -> None:
    added = with_rule(text, "/x/y.json")
    assert added.endswith("\n/x/y.json\n") and added.startswith(text or "")
    assert without_rule(added, "/x/y.json").rstrip("\n") == (text or "").rstrip("\n")


def test_an_exclude_file_that_cannot_be_read_leaves_the_hooks_set_up_and_a_note(isolated_home: Any) -> None:
    repo, env = _repo(isolated_home)
    exclude = repo / ".git" / "info" / "exclude"
    exclude.unlink()
    exclude.mkdir()  # a folder where git's exclude file should be
    plan = _setup(env)
    assert [c.path for c in plan.changed] == [repo / PERSONAL] and exclude.is_dir()
    assert any("keep that file out of version control" in n for n in plan.notes)
