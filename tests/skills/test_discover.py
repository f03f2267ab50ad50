"""Discovery across roots: dedupe, order, products, limits, extra roots, bodies."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from skill_tree_helpers import repo_env, write, write_skill

from skillshelf.diagnostics import Severity
from skillshelf.env import Env
from skillshelf.errors import FileAccessError
from skillshelf.skills.discover import (
    DiscoveryOptions,
    ScanLimits,
    discover_in,
    discover_skills,
    read_skill_body,
)
from skillshelf.skills.model import RootOrigin, Scope
from testkit import IsolatedHome

CODEX_ONLY = DiscoveryOptions(include_builtin=False, include_claude=False, use_cache=False)


@pytest.fixture
def env(tmp_path: Path, isolated_home: IsolatedHome) -> Env:
    return repo_env(tmp_path, isolated_home)


@pytest.fixture
def repo(env: Env) -> Path:
    return env.cwd


def test_same_folder_from_two_roots_is_kept_once_first_root_wins(
    env: Env, isolated_home: IsolatedHome
) -> None:
    write_skill(isolated_home.home / ".agents/skills/x", "dupe")
    (isolated_home.codex_home / "skills").mkdir(parents=True)
    os.symlink(isolated_home.home / ".agents/skills/x", isolated_home.codex_home / "skills/x")
    found = discover_skills(env, CODEX_ONLY)
    assert [(s.name, s.origin) for s in found.skills] == [("dupe", RootOrigin.CODEX_USER)]
    assert found.skills[0].path == isolated_home.codex_home / "skills/x/SKILL.md"


def test_same_names_at_different_paths_are_kept_and_reported(
    repo: Path, env: Env, isolated_home: IsolatedHome
) -> None:
    write_skill(repo / ".agents/skills/a", "dupe-skill", "from repo")
    write_skill(isolated_home.codex_home / "skills/b", "dupe-skill", "from user")
    found = discover_skills(env, CODEX_ONLY)
    assert [(s.description, s.scope) for s in found.skills] == [
        ("from repo", Scope.REPO),
        ("from user", Scope.USER),
    ]
    assert [d.code for d in found.diagnostics] == ["SK220"]


def test_names_that_differ_only_in_unicode_form_are_kept_and_warned_about(
    repo: Path, env: Env, isolated_home: IsolatedHome
) -> None:
    composed, decomposed = "caf\u00e9-notes", "cafe\u0301-notes"
    write_skill(repo / ".agents/skills/a", composed, "typed on Linux")
    write_skill(isolated_home.codex_home / "skills/b", decomposed, "written by a macOS tool")
    write_skill(isolated_home.codex_home / "skills/c", "plain-notes", "nothing alike")
    found = discover_skills(env, CODEX_ONLY)
    assert sorted(s.name for s in found.skills) == sorted([composed, decomposed, "plain-notes"])
    (warning,) = found.diagnostics
    assert warning.code == "SK224" and warning.severity is Severity.WARNING
    assert "\\u0301" in warning.message and "a/SKILL.md" in warning.message  # both named, told apart


def test_a_builtin_skill_steps_aside_for_a_skill_of_the_same_name(
    repo: Path, env: Env, isolated_home: IsolatedHome, tmp_path: Path
) -> None:
    builtin = tmp_path / "builtin"
    write_skill(builtin / "writing-skills", "writing-skills", "skillshelf's own")
    write_skill(builtin / "using-skillshelf", "using-skillshelf", "skillshelf's other one")
    write_skill(isolated_home.home / ".agents/skills/writing-skills", "writing-skills", "the user's")
    options = dataclasses.replace(CODEX_ONLY, include_builtin=True, builtin_dir=builtin)
    found = discover_skills(env, options)
    assert sorted((s.name, s.description) for s in found.skills) == [
        ("using-skillshelf", "skillshelf's other one"),
        ("writing-skills", "the user's"),
    ]
    (note,) = found.diagnostics
    assert note.code == "SK222" and note.path == isolated_home.home / ".agents/skills/writing-skills/SKILL.md"
    write_skill(repo / ".agents/skills/again", "writing-skills", "the project's")
    found = discover_skills(env, options)
    assert [d.code for d in found.diagnostics] == ["SK222", "SK220"]  # two of the user's own remain
    assert {s.description for s in found.skills if s.name == "writing-skills"} == {
        "the user's",
        "the project's",
    }


def test_order_is_scope_then_name_then_path(repo: Path, env: Env, isolated_home: IsolatedHome) -> None:
    write_skill(isolated_home.codex_home / "skills/z", "alpha")
    write_skill(repo / ".agents/skills/b", "beta")
    write_skill(repo / ".agents/skills/a", "gamma")
    write_skill(isolated_home.codex_home / "skills/.system/s", "aaa-system")
    names = [s.name for s in discover_skills(env, CODEX_ONLY).skills]
    assert names == ["beta", "gamma", "alpha", "aaa-system"]


def test_with_an_empty_git_folder_only_the_cwd_codex_folder_is_read(repo: Path, env: Env) -> None:
    write_skill(repo / ".codex/skills/root", "root-skill")
    write_skill(repo / "sub/.codex/skills/sub", "sub-skill")
    found = discover_skills(dataclasses.replace(env, cwd=repo / "sub"), CODEX_ONLY)
    assert [s.name for s in found.skills] == ["sub-skill"]


def test_in_a_real_repository_every_codex_folder_up_to_the_root_is_read(repo: Path, env: Env) -> None:
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    write_skill(repo / ".codex/skills/root", "root-skill")
    write_skill(repo / "sub/.codex/skills/sub", "sub-skill")
    found = discover_skills(dataclasses.replace(env, cwd=repo / "sub"), CODEX_ONLY)
    assert sorted(s.name for s in found.skills) == ["root-skill", "sub-skill"]


def test_project_root_markers_come_from_codex_s_config(
    repo: Path, env: Env, isolated_home: IsolatedHome
) -> None:
    (repo / ".hg").mkdir()
    write_skill(repo / ".agents/skills/top", "top-skill")
    write_skill(repo / "pkg/.agents/skills/inner", "inner-skill")
    (repo / "pkg/.git").mkdir()
    inner = dataclasses.replace(env, cwd=repo / "pkg")
    assert [s.name for s in discover_skills(inner, CODEX_ONLY).skills] == ["inner-skill"]
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    (isolated_home.codex_home / "config.toml").write_text(
        'project_root_markers = [".hg"]\n', encoding="utf-8"
    )
    assert sorted(s.name for s in discover_skills(inner, CODEX_ONLY).skills) == ["inner-skill", "top-skill"]


def test_skillshelf_s_own_project_root_markers_win_over_codex_s_config(
    repo: Path, env: Env, isolated_home: IsolatedHome
) -> None:
    (repo / ".hg").mkdir()
    write_skill(repo / ".agents/skills/top", "top-skill")
    write_skill(repo / "pkg/.agents/skills/inner", "inner-skill")
    (repo / "pkg/.git").mkdir()
    inner = dataclasses.replace(env, cwd=repo / "pkg")
    own = dataclasses.replace(CODEX_ONLY, project_root_markers=(".hg",))
    assert sorted(s.name for s in discover_skills(inner, own).skills) == ["inner-skill", "top-skill"]
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    (isolated_home.codex_home / "config.toml").write_text(
        'project_root_markers = [".hg"]\n', encoding="utf-8"
    )
    own = dataclasses.replace(CODEX_ONLY, project_root_markers=(".git",))
    assert [s.name for s in discover_skills(inner, own).skills] == ["inner-skill"]


def test_skills_for_other_products_are_dropped_like_codex(repo: Path, env: Env) -> None:
    write_skill(repo / ".agents/skills/web", "web-only")
    write(repo / ".agents/skills/web/agents/openai.yaml", "policy:\n  products: [chatgpt]\n")
    write_skill(repo / ".agents/skills/both", "both")
    write(repo / ".agents/skills/both/agents/openai.yaml", "policy:\n  products: [chatgpt, codex]\n")
    found = discover_skills(env, CODEX_ONLY)
    assert [s.name for s in found.skills] == ["both"]
    assert [d.code for d in found.diagnostics] == ["SK221"]


def test_hitting_a_limit_is_never_silent(repo: Path, env: Env) -> None:
    for i in range(6):
        write_skill(repo / f".agents/skills/s{i}", f"s{i}")
    found = discover_skills(
        env, DiscoveryOptions(include_builtin=False, use_cache=False, limits=ScanLimits(max_dirs=4))
    )
    assert len(found.skills) == 3
    (scan,) = found.truncated_scans
    assert scan.root.path == repo / ".agents/skills" and scan.limit == "max_dirs" and scan.unvisited_dirs == 3
    warning = next(d for d in found.diagnostics if d.code == "SK212")
    assert "SKILLSHELF_SCAN_MAX_DIRS" in warning.fix and warning.path == repo / ".agents/skills"
    assert "Codex reads no more of it" in warning.fix and "Codex does not follow" in warning.fix


def test_scan_limits_can_be_raised_from_the_environment(repo: Path, env: Env) -> None:
    for i in range(6):
        write_skill(repo / f".agents/skills/s{i}", f"s{i}")
    env = dataclasses.replace(
        env, environ={"SKILLSHELF_SCAN_MAX_DIRS": "3", "SKILLSHELF_SCAN_MAX_DEPTH": "lots"}
    )
    found = discover_skills(env, CODEX_ONLY)
    assert len(found.skills) == 2 and found.truncated_scans[0].limit == "max_dirs"
    assert [d.code for d in found.diagnostics if d.code == "SK209"] == ["SK209"]


def test_missing_extra_roots_warn_and_missing_default_roots_do_not(repo: Path, env: Env) -> None:
    found = discover_skills(
        env, DiscoveryOptions(include_builtin=False, use_cache=False, extra_roots=(repo / "nope",))
    )
    assert found.skills == () and [d.code for d in found.diagnostics] == ["SK202"]
    assert all(not s.exists for s in found.scans)


def test_a_root_that_is_a_symlink_is_canonicalised(
    env: Env, isolated_home: IsolatedHome, tmp_path: Path
) -> None:
    write_skill(tmp_path / "elsewhere/s", "linked-root")
    (isolated_home.home / ".agents").mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere", isolated_home.home / ".agents/skills")
    found = discover_skills(env, CODEX_ONLY)
    assert found.skills[0].root == tmp_path / "elsewhere"
    assert found.skills[0].path == tmp_path / "elsewhere/s/SKILL.md"
    assert tmp_path / "elsewhere" in [r.path for r in found.roots]


def test_claude_roots_are_included_unless_switched_off(
    repo: Path, env: Env, isolated_home: IsolatedHome
) -> None:
    write_skill(repo / ".claude/skills/helper", "helper")
    write_skill(isolated_home.home / ".claude/skills/mine", "mine")
    with_claude = discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False))
    assert [(s.name, s.origin) for s in with_claude.skills] == [
        ("helper", RootOrigin.CLAUDE_PROJECT),
        ("mine", RootOrigin.CLAUDE_USER),
    ]
    assert discover_skills(env, CODEX_ONLY).skills == ()


def test_parse_problems_become_diagnostics_not_exceptions(repo: Path, env: Env) -> None:
    write(
        repo / ".agents/skills/bad/SKILL.md",
        "---\nname: bad\ndescription: a\nnot: valid: [yaml\n  - x\n---\n",
    )
    write(repo / ".agents/skills/bin/SKILL.md", b"\x00\x01\x02")
    write_skill(repo / ".agents/skills/good", "good")
    found = discover_skills(env, CODEX_ONLY)
    assert [s.name for s in found.skills] == ["good"]
    assert sorted(d.code for d in found.diagnostics) == ["SK104", "SK114"]


def test_discover_in_accepts_folders_skill_folders_and_files(tmp_path: Path) -> None:
    write_skill(tmp_path / "tree/a", "a")
    write_skill(tmp_path / "tree/group/b", "b")
    single = write_skill(tmp_path / "single", "single")
    found = discover_in([tmp_path / "tree", tmp_path / "single", single])
    assert sorted(s.name for s in found.skills) == ["a", "b", "single"]
    assert all(s.origin is RootOrigin.EXTRA and s.scope is Scope.USER for s in found.skills)


def test_discover_in_reads_a_lone_skill_file(tmp_path: Path) -> None:
    single = write_skill(tmp_path / "only", "only")
    found = discover_in([single])
    assert [s.path for s in found.skills] == [single]


def test_read_skill_body_returns_the_markdown(tmp_path: Path) -> None:
    path = write(tmp_path / "s/SKILL.md", "---\nname: s\ndescription: d\n---\n# Title\nstep\n")
    (skill,) = discover_in([tmp_path / "s"]).skills
    assert read_skill_body(skill) == "# Title\nstep\n"
    path.unlink()
    with pytest.raises(FileAccessError) as info:
        read_skill_body(skill)
    assert info.value.code == "SS005"
