"""skillshelf's built-in skills: shipped, installed with a fingerprint, valid, switchable."""

from __future__ import annotations

from pathlib import Path

from skillshelf.diagnostics import Severity
from skillshelf.env import Env
from skillshelf.skills.builtin import MARKER, builtin_fingerprint, ensure_builtin_skills, packaged_skills_dir
from skillshelf.skills.discover import DiscoveryOptions, discover_in, discover_skills
from skillshelf.skills.model import RootOrigin, Scope
from skillshelf.skills.parse import read_skill
from skillshelf.skills.roots import builtin_root
from skillshelf.workspace import Workspace, WorkspaceOptions
from testkit import IsolatedHome

SPEC_NAME = __import__("re").compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def test_builtin_skills_install_into_the_user_data_folder(isolated_home: IsolatedHome) -> None:
    root = ensure_builtin_skills(Env.from_os().dirs.data)
    assert root == isolated_home.data / "skillshelf" / "builtin-skills"
    assert (root / MARKER).read_text(encoding="utf-8").strip() == builtin_fingerprint()
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == ["using-skillshelf", "writing-skills"]


def test_unchanged_builtin_skills_are_not_rewritten(tmp_path: Path) -> None:
    root = ensure_builtin_skills(tmp_path)
    stamp = (root / "writing-skills" / "SKILL.md").stat().st_mtime_ns
    inode = root.stat().st_ino
    assert ensure_builtin_skills(tmp_path) == root
    assert (root / "writing-skills" / "SKILL.md").stat().st_mtime_ns == stamp and root.stat().st_ino == inode


def test_changed_or_damaged_builtin_skills_are_rewritten(tmp_path: Path) -> None:
    root = ensure_builtin_skills(tmp_path)
    (root / MARKER).write_text("stale\n", encoding="utf-8")
    (root / "writing-skills" / "SKILL.md").write_text("broken", encoding="utf-8")
    (root / "leftover").mkdir()
    ensure_builtin_skills(tmp_path)
    packaged = (packaged_skills_dir() / "writing-skills" / "SKILL.md").read_text(encoding="utf-8")
    assert (root / "writing-skills" / "SKILL.md").read_text(encoding="utf-8") == packaged
    assert not (root / "leftover").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["builtin-skills"]


def test_an_unwritable_data_folder_falls_back_to_the_package(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert ensure_builtin_skills(blocker) == packaged_skills_dir()


def test_builtin_skills_pass_the_spec_without_findings() -> None:
    found = discover_in([packaged_skills_dir()])
    assert len(found.skills) >= 2
    for skill in found.skills:
        parsed = read_skill(skill.path, builtin_root(packaged_skills_dir()))
        assert [d for d in parsed.diagnostics if d.severity is not Severity.INFO] == []
        assert SPEC_NAME.match(skill.name) and skill.name == skill.folder.name
        assert 50 <= len(skill.description) <= 1024 and "Use when" in skill.description
        assert skill.short_description and skill.interface is not None
        assert len(parsed.body.splitlines()) < 500


def test_discovery_lists_builtin_skills_unless_switched_off(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    with_builtin = discover_skills(env, DiscoveryOptions(use_cache=False))
    assert {(s.name, s.origin, s.scope) for s in with_builtin.skills} == {
        ("using-skillshelf", RootOrigin.BUILTIN, Scope.SYSTEM),
        ("writing-skills", RootOrigin.BUILTIN, Scope.SYSTEM),
    }
    assert discover_skills(env, DiscoveryOptions(include_builtin=False, use_cache=False)).skills == ()


def test_discovery_reads_builtin_skills_without_writing_them(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    found = discover_skills(env, DiscoveryOptions(use_cache=False))
    assert {s.folder.parent for s in found.skills} == {packaged_skills_dir()}
    assert not (env.dirs.data / "builtin-skills").exists()
    installed = ensure_builtin_skills(env.dirs.data)
    again = discover_skills(env, DiscoveryOptions(use_cache=False))
    assert {s.folder.parent for s in again.skills} == {installed}
    (installed / MARKER).write_text("stale\n", encoding="utf-8")  # an old copy is not read
    stale = discover_skills(env, DiscoveryOptions(use_cache=False))
    assert {s.folder.parent for s in stale.skills} == {packaged_skills_dir()}


def test_opening_a_workspace_installs_the_builtin_skills(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home, codex_home=isolated_home.codex_home)
    opened = Workspace.open(env, WorkspaceOptions(use_cache=False))
    root = env.dirs.data / "builtin-skills"
    assert {s.folder.parent for s in opened.discovery.skills} == {root}
    assert (root / MARKER).read_text(encoding="utf-8").strip() == builtin_fingerprint()
