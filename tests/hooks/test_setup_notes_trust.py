"""Setup's note on skillshelf's own project trust: the hooks mark the skills of a project
skillshelf does not trust ``[untrusted project]`` whatever the agent trusts, so setup in a
project says how to trust it (`skillshelf trust`), and says nothing once it is trusted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hooks_helpers import COMMAND

from skillshelf.env import Env
from skillshelf.hooks.setup import plan_setup


def _repo(box: Any, *, codex_trusts: bool) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    box.codex_home.mkdir()
    trusted = f'[projects."{repo}"]\ntrust_level = "trusted"\n' if codex_trusts else ""
    (box.codex_home / "config.toml").write_text(trusted, encoding="utf-8")
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _notes(env: Env, agent: str, scope: str = "project") -> list[str]:
    plan = plan_setup(env, agent, scope, command=COMMAND, state_dir=env.dirs.state)  # type: ignore[arg-type]
    return [n for n in plan.notes if "skillshelf trust" in n]


@pytest.mark.parametrize("agent", ["codex", "claude"])
@pytest.mark.parametrize("codex_trusts", [False, True])
def test_setup_in_a_project_skillshelf_does_not_trust_names_skillshelf_trust(
    isolated_home: Any, agent: str, codex_trusts: bool
) -> None:
    repo, env = _repo(isolated_home, codex_trusts=codex_trusts)
    (note,) = _notes(env, agent)
    assert f"skillshelf trust {repo}" in note and "[untrusted project]" in note


def test_no_trust_note_once_skillshelf_trusts_the_project_or_at_user_scope(isolated_home: Any) -> None:
    repo, env = _repo(isolated_home, codex_trusts=True)
    assert _notes(env, "codex", "user") == []
    env.dirs.config.mkdir(parents=True, exist_ok=True)
    (env.dirs.config / "config.toml").write_text(
        f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    assert _notes(env, "codex") == [] and _notes(env, "claude") == []


def test_the_trust_note_names_the_root_codexs_project_root_markers_find(isolated_home: Any) -> None:
    """The project root `skillshelf trust` acts on, which Codex's markers move, not the git root."""
    repo, env = _repo(isolated_home, codex_trusts=False)
    project = repo / "sub"
    (project / ".hg").mkdir(parents=True)
    codex_config = isolated_home.codex_home / "config.toml"
    codex_config.write_text('project_root_markers = [".hg"]\n', encoding="utf-8")
    env = Env.for_test(cwd=project, home=isolated_home.home, codex_home=isolated_home.codex_home)
    (note,) = _notes(env, "claude")
    assert f"skillshelf trust {project}`" in note and f"trust {repo}`" not in note
