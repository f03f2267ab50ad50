"""skillshelf's own ``project_root_markers`` (its system or user config, ``-c``) find the
project whose skills the context lists, over those of Codex's ``config.toml``; Codex's apply when
skillshelf's config sets none."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from skillshelf.context import ContextOptions, prepare_context
from skillshelf.dirs import UserDirs
from skillshelf.env import Env
from testkit import IsolatedHome

OPTIONS = ContextOptions(include_builtin=False, use_cache=False, suggestions=False, instructions=False)
HG = 'project_root_markers = [".hg"]\n'


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} here\n---\n", encoding="utf-8")


@pytest.fixture
def sub(tmp_path: Path, isolated_home: IsolatedHome) -> Env:
    """``repo`` (a git root) holding a skill, and ``repo/sub`` (an ``.hg`` root) the cwd."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub" / ".hg").mkdir(parents=True)
    _skill(repo / ".agents" / "skills" / "top", "top")
    return Env.for_test(cwd=repo / "sub", home=isolated_home.home)


def _listed(env: Env, *overrides: str) -> list[str]:
    """The skills the context of ``env`` reads, with ``-c`` ``overrides``."""
    options = dataclasses.replace(OPTIONS, config_overrides=overrides)
    return [s.name for s in prepare_context(env, options).skills.loadable]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_project_root_markers_given_with_c_move_the_project_root_of_skill_discovery(sub: Env) -> None:
    assert _listed(sub) == ["top"]
    assert _listed(sub, 'project_root_markers=[".hg"]') == []


def test_project_root_markers_of_the_user_and_system_config_move_it_too(
    sub: Env, isolated_home: IsolatedHome
) -> None:
    _write(sub.system_config_dir / "config.toml", HG)
    assert _listed(sub) == []
    _write(UserDirs.under(isolated_home.home).config / "config.toml", 'project_root_markers = [".git"]\n')
    assert _listed(sub) == ["top"]  # the user layer over the system one
    assert _listed(sub, 'project_root_markers=[".hg"]') == []  # -c over both


def test_skillshelf_s_own_markers_win_over_codex_s_and_codex_s_apply_alone(sub: Env) -> None:
    _write(sub.codex_home / "config.toml", HG)
    assert _listed(sub) == []
    assert _listed(sub, 'project_root_markers=[".git"]') == ["top"]
