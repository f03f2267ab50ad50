"""Reusing a root's walk: trusted only while the listed folders are unchanged."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from skill_tree_helpers import repo_env, write, write_skill

import skillshelf.skills.walk_cache as walk_cache
from skillshelf.env import Env
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from skillshelf.skills.walk import walk_root
from testkit import IsolatedHome, count_walks

CACHED = DiscoveryOptions(include_builtin=False, include_claude=False, use_cache=True)


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return count_walks(monkeypatch)


def settle() -> None:
    time.sleep(0.05)  # past the coarse kernel clock tick that stamps folder changes


def make_env(tmp_path: Path, box: IsolatedHome) -> tuple[Env, Path]:
    env = repo_env(tmp_path, box)
    return env, env.cwd / ".agents/skills"


def names(env: Env) -> list[str]:
    return [s.name for s in discover_skills(env, CACHED).skills]


def test_an_unchanged_tree_is_not_walked_again(
    tmp_path: Path, isolated_home: IsolatedHome, walks: list[str]
) -> None:
    env, root = make_env(tmp_path, isolated_home)
    write_skill(root / "a", "a")
    write_skill(root / "group/b", "b")
    settle()
    first = discover_skills(env, CACHED)
    second = discover_skills(env, CACHED)
    assert len(walks) == 1 and second.skills == first.skills and second.scans == first.scans


def test_added_removed_and_edited_skills_are_seen(
    tmp_path: Path, isolated_home: IsolatedHome, walks: list[str]
) -> None:
    env, root = make_env(tmp_path, isolated_home)
    write_skill(root / "a", "a", "old text")
    write_skill(root / "group/b", "b")
    settle()
    assert names(env) == ["a", "b"]
    settle()
    write_skill(root / "group/c", "c")
    settle()
    assert names(env) == ["a", "b", "c"]
    shutil.rmtree(root / "group/b")
    settle()
    assert names(env) == ["a", "c"]
    path = root / "a/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("old text", "new text!"), encoding="utf-8")
    assert discover_skills(env, CACHED).skills[0].description == "new text!"


def test_a_new_agents_folder_is_noticed(
    tmp_path: Path, isolated_home: IsolatedHome, walks: list[str]
) -> None:
    env, root = make_env(tmp_path, isolated_home)
    write_skill(root / "a", "a")
    settle()
    assert discover_skills(env, CACHED).skills[0].policy.allow_implicit_invocation
    settle()
    write(root / "a/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    settle()
    assert not discover_skills(env, CACHED).skills[0].policy.allow_implicit_invocation


def test_fresh_trees_and_broken_links_are_not_trusted(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, root = make_env(tmp_path, isolated_home)
    write_skill(root / "a", "a")
    walked = walk_root(str(root), follow_symlinks=True, record=True)
    assert walk_cache.snapshot_walk(walked) is None  # changed less than two seconds ago
    monkeypatch.setattr(walk_cache, "_RACY_NS", 0)
    settle()
    assert walk_cache.snapshot_walk(walk_root(str(root), follow_symlinks=True, record=True)) is not None
    (root / "dangling").symlink_to(tmp_path / "later")
    settle()
    assert walk_cache.snapshot_walk(walk_root(str(root), follow_symlinks=True, record=True)) is None
