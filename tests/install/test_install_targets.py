"""`install --for`: skills go where the chosen agents read them, recorded in the lock file, and
`list` says which agents see each installed skill."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from install_helpers import make_env, write_skill

from skillshelf.cli.main import cli
from skillshelf.env import Env
from skillshelf.errors import InstallError, UsageError
from skillshelf.install import install_skill, read_lock, remove_skill, update_skills
from skillshelf.install.manage import link_diagnostics
from skillshelf.install.targets import default_target
from skillshelf.install.visibility import Visibility, agents_seeing
from skillshelf.skills.discover import discover_in
from testkit import IsolatedHome


def test_for_all_puts_one_copy_where_codex_reads_and_links_it_where_claude_code_reads(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    src = write_skill(tmp_path / "src" / "weekly-report", "weekly-report", body="v1")
    result = install_skill(str(src), env=env, target="all")
    codex_copy = isolated_home.home / ".agents" / "skills" / "weekly-report"
    link = isolated_home.home / ".claude" / "skills" / "weekly-report"
    assert result.path == codex_copy and codex_copy.is_dir() and not codex_copy.is_symlink()
    assert link.is_symlink() and Path(os.readlink(link)) == codex_copy
    entry = read_lock(codex_copy.parent).get("weekly-report")
    assert entry is not None and entry.agents == ("codex", "claude") and entry.links == (str(link),)
    assert read_lock(link.parent).entries == {}

    write_skill(src, "weekly-report", body="v2")
    assert [r.status for r in update_skills(env=env)] == ["updated"]
    assert link.is_symlink() and "v2" in (link / "SKILL.md").read_text(encoding="utf-8")
    assert read_lock(codex_copy.parent).get("weekly-report").links == (str(link),)  # type: ignore[union-attr]

    remove_skill("weekly-report", env=env)
    assert not codex_copy.exists() and not link.is_symlink() and not link.exists()


def test_project_installs_link_relatively_so_the_pair_can_be_committed(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    env = make_env(tmp_path, isolated_home.home, cwd=project)
    src = write_skill(tmp_path / "src" / "release", "release")
    install_skill(str(src), env=env, scope="project", target="all")
    link = project / ".claude" / "skills" / "release"
    assert os.readlink(link) == os.path.join("..", "..", ".agents", "skills", "release")
    assert (link / "SKILL.md").is_file()


def _project_with_release_for_all(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    """A project with the skill ``release`` installed for every agent (one copy, one link)."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    src = write_skill(tmp_path / "src" / "release", "release")
    install_skill(
        str(src), env=make_env(tmp_path, isolated_home.home, cwd=project), scope="project", target="all"
    )
    return project


def test_a_committed_project_lock_still_names_its_links_in_a_clone_at_another_path(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = _project_with_release_for_all(tmp_path, isolated_home)
    stored = json.loads(
        (project / ".agents" / "skills" / ".skillshelf-lock.json").read_text(encoding="utf-8")
    )
    assert stored["skills"]["release"]["links"] == ["../../.claude/skills/release"]

    clone = tmp_path / "elsewhere" / "proj"
    clone.parent.mkdir()
    project.rename(clone)
    env = make_env(tmp_path, isolated_home.home, cwd=clone)
    assert link_diagnostics(env) == ()
    link = clone / ".claude" / "skills" / "release"
    assert read_lock(clone / ".agents" / "skills").get("release").links == (str(link),)  # type: ignore[union-attr]
    remove_skill("release", env=env, scope="project")
    assert not link.is_symlink() and not (clone / ".agents" / "skills" / "release").exists()


def test_an_older_lock_moved_with_its_project_names_the_links_where_the_project_is_now(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = _project_with_release_for_all(tmp_path, isolated_home)
    lock_file = project / ".agents" / "skills" / ".skillshelf-lock.json"
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    data["skills"]["release"]["links"] = [
        str(project / ".claude" / "skills" / "release")
    ]  # as written before
    lock_file.write_text(json.dumps(data), encoding="utf-8")

    moved = tmp_path / "moved"
    project.rename(moved)
    env = make_env(tmp_path, isolated_home.home, cwd=moved)
    assert link_diagnostics(env) == ()
    remove_skill("release", env=env, scope="project")
    assert not (moved / ".claude" / "skills" / "release").is_symlink()


def test_an_older_lock_with_absolute_links_works_and_a_relative_one_cannot_leave_the_agents_folders(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    src = write_skill(tmp_path / "src" / "notes", "notes")
    install_skill(str(src), env=env, target="all")
    root = isolated_home.home / ".agents" / "skills"
    link = isolated_home.home / ".claude" / "skills" / "notes"
    lock_file = root / ".skillshelf-lock.json"
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    data["skills"]["notes"]["links"] = [str(link)]  # as skillshelf wrote it before
    lock_file.write_text(json.dumps(data), encoding="utf-8")
    assert read_lock(root).get("notes").links == (str(link),)  # type: ignore[union-attr]

    outside = tmp_path / "victim"
    outside.mkdir()
    data["skills"]["notes"]["links"] = [os.path.relpath(outside, root)]
    lock_file.write_text(json.dumps(data), encoding="utf-8")
    remove_skill("notes", env=env)
    assert outside.is_dir() and link.is_symlink()  # named by no lock: left to the user


def test_for_claude_installs_one_level_deep_in_claude_codes_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    src = write_skill(tmp_path / "src" / "pdf-tools", "pdf-tools")
    result = install_skill(str(src), env=env, target="claude")
    assert result.path == isolated_home.home / ".claude" / "skills" / "pdf-tools"
    assert read_lock(result.path.parent).get("pdf-tools").agents == ("claude",)  # type: ignore[union-attr]
    assert not (isolated_home.home / ".agents").exists()


def test_a_folder_in_the_way_of_the_link_stops_the_install_before_anything_changes(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    write_skill(isolated_home.home / ".claude" / "skills" / "tool", "tool", body="the user's own")
    src = write_skill(tmp_path / "src" / "tool", "tool")
    with pytest.raises(InstallError) as caught:
        install_skill(str(src), env=env, target="all")
    assert caught.value.code == "IS308"
    assert not (isolated_home.home / ".agents" / "skills" / "tool").exists()
    assert "the user's own" in (isolated_home.home / ".claude" / "skills" / "tool" / "SKILL.md").read_text(
        encoding="utf-8"
    )


def test_skillshelfs_own_folder_has_no_project_scope(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    env = make_env(tmp_path, isolated_home.home)
    src = write_skill(tmp_path / "src" / "x-skill", "x-skill")
    with pytest.raises(UsageError):
        install_skill(str(src), env=env, scope="project", target="skillshelf")


def test_the_default_follows_the_config_then_the_agents_found_here(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = Env.for_test(cwd=tmp_path, home=isolated_home.home)
    empty_path = dataclasses.replace(env, environ={"PATH": str(tmp_path / "nobin")})
    assert default_target(empty_path) == "codex"
    (isolated_home.home / ".claude").mkdir()
    (isolated_home.home / ".claude" / "settings.json").write_text("{}", encoding="utf-8")
    assert default_target(empty_path) == "claude"
    env.codex_home.mkdir()
    (env.codex_home / "config.toml").write_text("", encoding="utf-8")
    assert default_target(empty_path) == "all"
    assert default_target(empty_path, "codex") == "codex"


def test_the_folders_skillshelf_made_itself_do_not_count_as_an_agent_found(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    no_agents = dataclasses.replace(env, environ={"PATH": str(tmp_path / "nobin")})
    install_skill(str(write_skill(tmp_path / "src" / "both", "both")), env=no_agents, target="all")
    env.codex_home.mkdir()  # left empty
    assert (isolated_home.home / ".claude" / "skills").is_dir()
    assert default_target(no_agents) == "codex"
    (isolated_home.home / ".claude" / ".skillshelf-tmp" / "install-x").mkdir(
        parents=True
    )  # a killed install's
    assert default_target(no_agents) == "codex"
    (isolated_home.home / ".claude.json").write_text("{}", encoding="utf-8")  # Claude Code's own file
    assert default_target(no_agents) == "claude"


def test_install_uses_install_agents_from_the_config(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    (isolated_home.config / "skillshelf").mkdir(parents=True)
    (isolated_home.config / "skillshelf" / "config.toml").write_text(
        '[install]\nagents = "claude"\n', encoding="utf-8"
    )
    env = make_env(tmp_path, isolated_home.home)
    result = install_skill(str(write_skill(tmp_path / "src" / "a-skill", "a-skill")), env=env)
    assert result.path.parent == isolated_home.home / ".claude" / "skills"


def _project_with_a_linked_skill(tmp_path: Path, home: Path, name: str) -> tuple[Path, Env]:
    """A project whose ``.agents/skills/NAME`` is linked into its ``.claude/skills``."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    skill = write_skill(project / ".agents" / "skills" / name, name)
    (project / ".claude" / "skills").mkdir(parents=True)
    (project / ".claude" / "skills" / name).symlink_to(skill, target_is_directory=True)
    return project, Env.for_test(cwd=project, home=home)


def test_which_agents_see_a_skill_follows_their_reading_rules(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project, env = _project_with_a_linked_skill(tmp_path, isolated_home.home, "both")
    write_skill(project / ".claude" / "skills" / "mine", "mine")
    write_skill(
        project / ".claude" / "skills" / "group" / "nested", "nested"
    )  # Claude Code reads one level only
    write_skill(tmp_path / "elsewhere" / "extra", "extra")
    skills = discover_in(
        [project / ".agents" / "skills", project / ".claude" / "skills", tmp_path / "elsewhere"]
    ).skills
    seen = {s.name: agents for s, agents in zip(skills, agents_seeing(env, skills).values(), strict=True)}
    assert seen == {"both": ("codex", "claude"), "mine": ("claude",), "nested": (), "extra": ()}


def test_the_name_claude_code_knows_a_skill_by_is_its_folder_or_plugin_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project, env = _project_with_a_linked_skill(tmp_path, isolated_home.home, "linked")
    codex_only = write_skill(project / ".agents" / "skills" / "codex-only", "codex-only")
    kit = isolated_home.home / ".claude" / "skills" / "kit"
    (kit / ".claude-plugin").mkdir(parents=True)
    (kit / ".claude-plugin" / "plugin.json").write_text('{"name": "kit"}', encoding="utf-8")
    write_skill(kit / "skills" / "tool", "tool")
    skills = {
        s.path.parent.name: s for s in discover_in([project / ".agents" / "skills", kit / "skills"]).skills
    }
    visibility = Visibility(env)
    assert visibility.claude_name(skills["linked"]) == "linked"
    assert visibility.claude_name(skills["tool"]) == "kit:tool"
    assert visibility.claude_name(skills["codex-only"]) is None and codex_only.is_dir()

    # a plugin installed in both agents: discovery keeps the other agent's copy, which Claude
    # Code lists by the same name with the same bytes
    twin = write_skill(tmp_path / "codex-cache" / "kit" / "skills" / "tool", "tool")
    (twin / "SKILL.md").write_bytes((kit / "skills" / "tool" / "SKILL.md").read_bytes())
    (copy,) = discover_in([twin.parent]).skills
    copy = dataclasses.replace(copy, name="kit:tool")
    assert visibility.claude_name(copy) is None
    assert visibility.claude_name(copy, copies=True) == "kit:tool"
    (twin / "SKILL.md").write_text("---\nname: tool\ndescription: another tool\n---\n", encoding="utf-8")
    assert visibility.claude_name(copy, copies=True) is None


def test_install_and_list_say_which_agents_read_the_skill(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write_skill(tmp_path / "pkg" / "weekly-report", "weekly-report")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["install", str(source), "--for", "all"])
    assert done.exit_code == 0, done.output
    assert f"-> {isolated_home.home / '.claude' / 'skills' / 'weekly-report'} (link)" in done.output
    assert "read by Codex and Claude Code" in done.output
    listed = json.loads(CliRunner().invoke(cli, ["list", "--json", "--no-builtin"]).output)
    (entry,) = [s for s in listed if s["name"] == "weekly-report"]
    assert entry["installed"]["agents"] == ["codex", "claude"]
    monkeypatch.setenv("COLUMNS", "2000")
    table = CliRunner().invoke(cli, ["list", "--no-builtin"]).output
    assert "seen by Codex, Claude Code" in table


def test_a_skill_of_the_same_name_in_a_nested_project_folder_codex_reads_is_refused(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    write_skill(repo / "a" / ".agents" / "skills" / "handpdf", "pdf")
    (repo / "a" / "b").mkdir()
    env = make_env(tmp_path, isolated_home.home, cwd=repo / "a" / "b")

    with pytest.raises(InstallError) as caught:
        install_skill(str(write_skill(tmp_path / "src" / "pdf", "pdf")), env=env, target="codex")

    assert caught.value.code == "IS305" and "handpdf" in caught.value.message


@pytest.mark.parametrize("where", ["system", "admin"])
def test_a_skill_named_like_one_of_codexs_bundled_or_admin_skills_is_installed_with_a_note(
    tmp_path: Path, isolated_home: IsolatedHome, where: str
) -> None:
    env = make_env(tmp_path, isolated_home.home)
    folder = env.codex_home / "skills" / ".system" if where == "system" else env.admin_skills_dir
    write_skill(folder / "skill-creator", "skill-creator")

    result = install_skill(
        str(write_skill(tmp_path / "src" / "skill-creator", "skill-creator")), env=env, target="codex"
    )

    assert result.path.is_dir()
    (note,) = [d for d in result.diagnostics if d.code == "IS133"]
    assert note.severity == "warning" and str(folder / "skill-creator") in note.message
    assert ".system" not in (note.fix or "") and "[$skill-creator](PATH)" in (note.fix or "")
