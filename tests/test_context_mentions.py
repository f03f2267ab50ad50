"""What `build_context` loads for a task's mentions and what it says when one loads nothing:
names counted over the skills the profile's agent reads, notes for unknown, shared and
environment-variable names, and a disabled skill that Codex still loads by itself."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from skillshelf.context import ContextOptions, build_context
from skillshelf.dirs import UserDirs
from skillshelf.env import Env
from skillshelf.skills.discover import discover_skills
from testkit import IsolatedHome

OPTIONS = ContextOptions(include_builtin=False, use_cache=False, suggestions=False, instructions=False)
CLAUDE = dataclasses.replace(OPTIONS, profile="claude", skill_tool=None)  # as `context --profile claude`


def _skill(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {name} for {body}\n---\n{body}\n", encoding="utf-8")
    return path


def _project(tmp_path: Path, home: Path) -> tuple[Env, Path]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    return Env.for_test(cwd=project, home=home), project


def test_a_name_shared_with_a_claude_only_skill_selects_the_profiles_own(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, project = _project(tmp_path, isolated_home.home)
    codex_lint = _skill(project / ".agents" / "skills" / "lint", "lint", "RUN-RUFF")
    claude_lint = _skill(project / ".claude" / "skills" / "lint", "lint", "RUN-ESLINT")
    codex = build_context(env, "use $lint now", OPTIONS)
    assert [s.path for s in codex.mentioned] == [codex_lint]
    assert "RUN-RUFF" in codex.part("mentioned").text  # type: ignore[union-attr]
    claude = build_context(env, "use $lint now", CLAUDE)
    assert [s.path for s in claude.mentioned] == [claude_lint]
    assert not codex.warnings and not claude.warnings
    [note] = [d for d in discover_skills(env).diagnostics if d.code == "SK220"]
    assert f"`$lint` selects {codex_lint} for Codex and {claude_lint} for Claude Code" in note.message


def test_a_mention_that_loads_nothing_is_a_warning_and_a_diagnostic(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, project = _project(tmp_path, isolated_home.home)
    _skill(project / ".agents" / "skills" / "dupe", "dupe", "ONE")
    _skill(project / ".agents" / "skills" / "more" / "dupe", "dupe", "TWO")
    _skill(project / ".agents" / "skills" / "home", "home", "HOME-PAGE")
    result = build_context(env, "use $dupe, $no-such-skill and fix $home for $5", OPTIONS)
    assert result.mentioned == ()
    codes = [d.code for d in result.diagnostics if d.code.startswith("SK42")]
    assert codes == ["SK421", "SK420", "SK422"]
    assert [w.split(",")[0] for w in result.warnings] == [
        "the task mentions $dupe",
        "the task mentions $no-such-skill",
        "the task mentions $home",
    ]


def test_a_skill_folder_linked_into_a_root_is_injected_and_linked_by_its_real_path_as_codex_does(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, project = _project(tmp_path, isolated_home.home)
    real = _skill(tmp_path / "real" / "lnk", "lnk", "LINKED-BODY")
    (project / ".agents" / "skills").mkdir(parents=True)
    (project / ".agents" / "skills" / "lnk").symlink_to(real.parent, target_is_directory=True)
    linked = project / ".agents" / "skills" / "lnk" / "SKILL.md"
    for task in (
        "use $lnk",
        f"use [$lnk]({real})",
        f"use [$lnk]({linked})",
        f"use [$x]({real.parent}/./SKILL.md)",
    ):
        result = build_context(env, task, OPTIONS)
        assert [s.name for s in result.mentioned] == ["lnk"] and not result.warnings, task
        text = result.part("mentioned").text  # type: ignore[union-attr]
        assert f"<path>{real}</path>" in text and "LINKED-BODY" in text
    [warning] = build_context(env, f"use [$lnk]({real.parent})", OPTIONS).warnings
    assert f"link [$lnk]({linked})" in warning


def _disable_beta(tmp_path: Path, isolated_home: IsolatedHome) -> tuple[Env, Path]:
    env, project = _project(tmp_path, isolated_home.home)
    beta = _skill(project / ".agents" / "skills" / "beta", "beta", "BETA")
    config = UserDirs.under(isolated_home.home).config
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        '[[skills.config]]\nname = "beta"\nenabled = false\n', encoding="utf-8"
    )
    return env, beta


def test_a_skill_disabled_in_skillshelf_only_is_still_loaded_by_codex_and_the_warning_says_so(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, beta = _disable_beta(tmp_path, isolated_home)
    [warning] = build_context(env, "use $beta", OPTIONS).warnings
    assert "skillshelf enable beta" in warning and "Codex itself still loads it on `$beta`" in warning
    assert f'[[skills.config]] path = "{beta}" enabled = false' in warning
    assert str(env.codex_home / "config.toml") in warning
    claude = build_context(env, "use $beta", CLAUDE)
    assert len(claude.warnings) == 1 and "Codex" not in claude.warnings[0]


def test_a_skill_codex_disables_as_well_gets_no_codex_note(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, beta = _disable_beta(tmp_path, isolated_home)
    env.codex_home.mkdir(parents=True, exist_ok=True)
    (env.codex_home / "config.toml").write_text(
        f'[[skills.config]]\npath = "{beta}"\nenabled = false\n', encoding="utf-8"
    )
    [warning] = build_context(env, "use $beta", OPTIONS).warnings
    assert "the task mentions $beta" in warning and "Codex itself" not in warning


def _disable_shared_dupe(tmp_path: Path, isolated_home: IsolatedHome) -> tuple[Env, Path, Path]:
    env, project = _project(tmp_path, isolated_home.home)
    repo = _skill(project / ".agents" / "skills" / "dupe", "dupe", "REPO-COPY")
    user = _skill(isolated_home.home / ".agents" / "skills" / "dupe", "dupe", "USER-COPY")
    config = UserDirs.under(isolated_home.home).config
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        '[[skills.config]]\nname = "dupe"\nenabled = false\n', encoding="utf-8"
    )
    return env, repo, user


def test_a_disabled_name_codex_reads_twice_is_one_codex_loads_no_skill_on_and_the_hint_names_them_all(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, _, _ = _disable_shared_dupe(tmp_path, isolated_home)
    result = build_context(env, "use $dupe", OPTIONS)
    [note] = [d for d in result.diagnostics if d.code.startswith("SK4")]
    assert note.code == "SK405" and result.mentioned == ()
    assert "Codex itself loads no skill on `$dupe` either, as 2 skills it reads are named 'dupe'" in note.fix
    assert "still loads" not in note.fix and "path =" not in note.fix  # one path would leave the other
    assert (
        f'add [[skills.config]] name = "dupe" enabled = false to {env.codex_home / "config.toml"}' in note.fix
    )


def test_a_disabled_name_whose_other_copy_codex_turns_off_is_the_copy_codex_still_loads(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    env, repo, user = _disable_shared_dupe(tmp_path, isolated_home)
    env.codex_home.mkdir(parents=True, exist_ok=True)
    (env.codex_home / "config.toml").write_text(
        f'[[skills.config]]\npath = "{repo}"\nenabled = false\n', encoding="utf-8"
    )
    [warning] = build_context(env, "use $dupe", OPTIONS).warnings
    assert "Codex itself still loads it on `$dupe`" in warning
    assert f'[[skills.config]] path = "{user}" enabled = false' in warning and str(repo) not in warning
