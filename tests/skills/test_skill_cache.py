"""The parsed-skill cache: reused when unchanged, refreshed when changed, robust to corruption."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from skill_tree_helpers import repo_env, write, write_skill

import skillshelf.skills.cache as cache_module
import skillshelf.skills.cache_file as cache_file_module
import skillshelf.skills.parse as parse_module
import skillshelf.skills.skill_files as skill_files_module
from skillshelf.lastkept import LastKept
from skillshelf.skills.cache import CACHE_FILE
from skillshelf.skills.discover import DiscoveryOptions, discover_skills
from testkit import IsolatedHome, bound_by_file_modes, count_walks

CACHED = DiscoveryOptions(include_builtin=False, include_claude=False, use_cache=True)


def spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[object]:
    """The first argument of every call of ``owner.name`` from now on."""
    calls: list[object] = []
    real = getattr(owner, name)

    def counting(first: object, *args: object, **kw: object) -> object:
        calls.append(first)
        return real(first, *args, **kw)

    monkeypatch.setattr(owner, name, counting)
    return calls


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The ``SKILL.md`` files parsed from now on."""
    return spy(monkeypatch, parse_module, "read_skill")


def test_unchanged_skills_are_not_parsed_again(
    tmp_path: Path, isolated_home: IsolatedHome, counted: list[object]
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(
        env.cwd / ".agents/skills/a",
        "a",
        extra="allowed-tools: Read Grep\nmetadata:\n  short-description: short",
    )
    write(
        env.cwd / ".agents/skills/a/agents/openai.yaml",
        "interface:\n  display_name: A\npolicy:\n  products: [codex]\n",
    )
    write(env.cwd / ".agents/skills/bad/SKILL.md", "no frontmatter\n")
    first = discover_skills(env, CACHED)
    assert len(counted) == 2
    second = discover_skills(env, CACHED)
    assert len(counted) == 2
    assert second.skills == first.skills and second.diagnostics == first.diagnostics
    assert (isolated_home.cache / "skillshelf" / CACHE_FILE).exists()


def test_a_changed_file_is_parsed_again(
    tmp_path: Path, isolated_home: IsolatedHome, counted: list[object]
) -> None:
    env = repo_env(tmp_path, isolated_home)
    path = write_skill(env.cwd / ".agents/skills/a", "a", "old")
    discover_skills(env, CACHED)
    path.write_text(path.read_text(encoding="utf-8").replace("old", "new text"), encoding="utf-8")
    assert discover_skills(env, CACHED).skills[0].description == "new text"
    assert len(counted) == 2


def test_a_changed_openai_yaml_is_read_again(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a")
    meta = write(
        env.cwd / ".agents/skills/a/agents/openai.yaml", "policy:\n  allow_implicit_invocation: true\n"
    )
    assert discover_skills(env, CACHED).skills[0].policy.allow_implicit_invocation
    meta.write_text("policy:\n  allow_implicit_invocation: false\n", encoding="utf-8")
    os.utime(meta, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    assert not discover_skills(env, CACHED).skills[0].policy.allow_implicit_invocation


def test_a_corrupt_cache_is_ignored_and_rewritten(
    tmp_path: Path, isolated_home: IsolatedHome, counted: list[object]
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a")
    cache_file = isolated_home.cache / "skillshelf" / CACHE_FILE
    for garbage in (
        b"\x00\xff not marshal",
        marshal.dumps({"version": 1, "entries": {"x": [1]}}),
        marshal.dumps([]),
        b"[",
        os.urandom(4096),
    ):
        write(cache_file, garbage)
        assert [s.name for s in discover_skills(env, CACHED).skills] == ["a"]
    data = marshal.loads(cache_file.read_bytes())
    assert data["version"] == 1 and any(key.startswith(str(env.cwd)) for key in data["entries"])


def test_tampered_entries_are_treated_as_misses(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a")
    discover_skills(env, CACHED)
    cache_file = isolated_home.cache / "skillshelf" / CACHE_FILE
    data = marshal.loads(cache_file.read_bytes())
    for row in data["entries"].values():
        row[1]["nom"] = row[1].pop("name")
    cache_file.write_bytes(marshal.dumps(data))
    assert [s.name for s in discover_skills(env, CACHED).skills] == ["a"]


def test_the_cache_lives_in_the_envs_cache_folder_and_no_cache_writes_nothing(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a")
    moved = tmp_path / "elsewhere-cache"
    env = dataclasses.replace(env, dirs=dataclasses.replace(env.dirs, cache=moved / "skillshelf"))
    discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    assert not moved.exists()
    discover_skills(env, CACHED)
    assert (moved / "skillshelf" / CACHE_FILE).exists()


def test_a_cache_from_other_parsing_rules_is_not_used(
    tmp_path: Path, isolated_home: IsolatedHome, counted: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a")
    discover_skills(env, CACHED)
    monkeypatch.setattr(cache_module, "PARSE_RULES", cache_module.PARSE_RULES + 1)
    discover_skills(env, CACHED)
    discover_skills(env, CACHED)
    assert len(counted) == 2


def test_paths_from_the_cache_equal_the_paths_pathlib_builds() -> None:
    texts = [
        "/h/.agents/skills/a/SKILL.md",
        "/h/..x/.b/SKILL.md",
        "/a//b/SKILL.md",
        "/a/./b",
        "/a/../b",
        "/a/b/",
        "/",
        "rel/SKILL.md",
    ]
    for text in texts:
        built, real = cache_module.skill_path(text), Path(text)
        assert (built, str(built), built.parts, built.parent, hash(built)) == (
            real,
            str(real),
            real.parts,
            real.parent,
            hash(real),
        )


def test_skills_from_the_cache_equal_skills_built_by_their_constructor(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(
        env.cwd / ".agents/skills/a",
        "a",
        extra="allowed-tools: Read Grep\nmetadata:\n  short-description: short",
    )
    discover_skills(env, CACHED)
    (cached,) = discover_skills(env, CACHED).skills
    rebuilt = type(cached)(**{name: getattr(cached, name) for name in cache_module._SKILL_FIELDS})
    assert cached == rebuilt and hash(cached.path) == hash(rebuilt.path) and repr(cached) == repr(rebuilt)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The cache files unmarshalled from now on."""
    return spy(monkeypatch, marshal, "loads")


@pytest.fixture
def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache as a process that has not opened one yet sees it."""
    monkeypatch.setattr(cache_file_module, "_KEPT", LastKept())


def test_a_long_lived_process_keeps_the_cache_file_in_memory_while_it_is_unchanged(
    tmp_path: Path, isolated_home: IsolatedHome, loads: list[object], new_process: None
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a", "first words")
    first = discover_skills(env, CACHED)  # parses and writes the file; a first open keeps nothing
    second = discover_skills(env, CACHED)  # opened again: read, and kept from now on
    assert len(loads) == 1
    third = discover_skills(env, CACHED)
    fourth = discover_skills(env, CACHED)
    assert len(loads) == 1 and fourth.skills == third.skills == second.skills == first.skills
    assert fourth.skills[0] is third.skills[0]  # the same skill object, turn after turn


def test_the_cache_kept_in_memory_is_dropped_when_its_file_changes(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    loads: list[object],
    counted: list[object],
    new_process: None,
) -> None:
    env = repo_env(tmp_path, isolated_home)
    write_skill(env.cwd / ".agents/skills/a", "a", "first words")
    for _ in range(3):
        discover_skills(env, CACHED)
    assert len(loads) == 1
    cache_file = isolated_home.cache / "skillshelf" / CACHE_FILE
    data = marshal.loads(cache_file.read_bytes())
    for row in data["entries"].values():
        row[1]["description"] = "written by another process"
    other = cache_file.with_name("other-writer.tmp")
    other.write_bytes(marshal.dumps(data))
    other.replace(cache_file)  # how every writer replaces it
    loads.clear()
    assert discover_skills(env, CACHED).skills[0].description == "written by another process"
    assert discover_skills(env, CACHED).skills[0].description == "written by another process"
    assert len(loads) == 1 and len(counted) == 1  # read once, and nothing parsed again


def _unreadable_without_dac_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a file without read permission fails, as it does for a user without root's
    override of file modes (the tests may run as root)."""
    real = skill_files_module.open_regular

    def open_regular(path: Path | str, *args: Any, **kw: Any) -> Any:
        if not os.stat(path).st_mode & 0o444:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kw)

    monkeypatch.setattr(skill_files_module, "open_regular", open_regular)


@pytest.mark.parametrize("walk_kept", [False, True], ids=["walked-again", "walk-reused"])
def test_a_skill_made_unreadable_is_read_again_and_left_out(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch, walk_kept: bool
) -> None:
    _unreadable_without_dac_override(monkeypatch)
    walks = count_walks(monkeypatch) if walk_kept else None  # fresh folders' walks are kept too
    env = repo_env(tmp_path, isolated_home)
    path = write_skill(env.cwd / ".agents/skills/locked", "locked")
    write_skill(env.cwd / ".agents/skills/open", "open")
    time.sleep(0.01)  # a clock tick between the write and the chmod, as between two commands
    assert {s.name for s in discover_skills(env, CACHED).skills} == {"locked", "open"}
    before = path.stat()
    path.chmod(0)  # size and mtime stay; only the change time moves
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    found = discover_skills(env, CACHED)
    assert walks is None or len(walks) == 1  # the chmod left the folders' listing unchanged
    assert [s.name for s in found.skills] == ["open"]
    assert [d.code for d in found.diagnostics if d.path == path] == ["SK116"]
    path.chmod(0o644)
    assert {s.name for s in discover_skills(env, CACHED).skills} == {"locked", "open"}


def test_the_catalog_never_offers_a_skill_its_user_cannot_read(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    """As a process that file modes bind (root without its override capabilities)."""
    bound = bound_by_file_modes()
    script = str(Path(sys.executable).parent / "skillshelf")
    env = repo_env(tmp_path, isolated_home)
    path = write_skill(env.cwd / ".agents/skills/locked", "locked")

    def catalog() -> str:
        done = subprocess.run(
            [*bound, script, "catalog"],
            cwd=env.cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
            check=False,
        )
        return done.stdout

    assert "- locked:" in catalog()
    path.chmod(0)
    assert "- locked:" not in catalog()
    path.chmod(0o644)
    assert "- locked:" in catalog()
