"""`skillshelf setup --status`: a Codex config.toml that is not TOML (Codex stops at start on it)
is reported, and `--status` refuses the options that would change something."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hooks_helpers import COMMAND

from skillshelf.cli.main import cli
from skillshelf.env import Env
from skillshelf.hooks.status import setup_status
from testkit import run_cli

BROKEN = "this is = = not toml\n"


def _project(box: Any) -> tuple[Path, Env]:
    repo = box.home / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo, Env.for_test(cwd=repo, home=box.home, codex_home=box.codex_home)


def _codex_rows(env: Env) -> dict[str, Any]:
    return {row.scope: row for row in setup_status(env, command=COMMAND) if row.agent == "codex"}


def test_a_user_config_toml_that_is_not_toml_is_named_for_both_scopes(isolated_home: Any) -> None:
    _, env = _project(isolated_home)
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    config = isolated_home.codex_home / "config.toml"
    config.write_text(BROKEN, encoding="utf-8")
    rows = _codex_rows(env)
    for scope in ("project", "user"):
        assert not rows[scope].runs
        (problem,) = rows[scope].reasons
        assert problem.startswith(f"{config} is not valid TOML (") and "Codex stops at start" in problem


def test_a_project_config_toml_that_is_not_toml_is_named_for_the_project(isolated_home: Any) -> None:
    repo, env = _project(isolated_home)
    (repo / ".codex").mkdir()
    (repo / ".codex" / "config.toml").write_text(BROKEN, encoding="utf-8")
    rows = _codex_rows(env)
    assert any(str(repo / ".codex" / "config.toml") in r for r in rows["project"].reasons)
    assert rows["user"].reasons == ()


def test_the_status_command_prints_the_broken_config(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = _project(isolated_home)
    monkeypatch.chdir(repo)
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    (isolated_home.codex_home / "config.toml").write_text(BROKEN, encoding="utf-8")
    result = CliRunner().invoke(cli, ["setup", "--status"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("Codex (project): not set up")
    assert lines[1].startswith("  - ") and "is not valid TOML" in lines[1]


@pytest.mark.parametrize("option", ["--remove", "--dry-run", "--mcp"])
def test_status_with_an_option_that_changes_something_is_a_usage_error(
    isolated_home: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    repo, _ = _project(isolated_home)
    monkeypatch.chdir(repo)
    code, out, err = run_cli(["setup", "codex", "--status", option], capsys)
    assert (code, out) == (2, "")
    assert "error HK140" in err and option in err
    assert not (repo / ".codex").exists()
