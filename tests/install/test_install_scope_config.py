"""`install.scope` in the config: the scope `install` uses when --scope is not given (--scope
wins; a project's own config counts once the project is trusted); `update` and `remove` keep
looking in both scopes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from install_helpers import write_skill

from skillshelf.cli.main import cli
from skillshelf.install.targets import default_scope
from testkit import IsolatedHome


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project as the cwd."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    return project


def _user_config(box: IsolatedHome, text: str) -> None:
    (box.config / "skillshelf").mkdir(parents=True, exist_ok=True)
    (box.config / "skillshelf" / "config.toml").write_text(text, encoding="utf-8")


def _install(tmp_path: Path, *args: str, name: str = "weekly-report") -> Result:
    source = write_skill(tmp_path / "src" / name, name)
    return CliRunner().invoke(cli, ["install", str(source), "--for", "codex", "--json", *args])


def _installed_at(done: Result) -> Path:
    assert done.exit_code == 0, done.output
    return Path(json.loads(done.stdout)["path"])


def test_install_without_scope_uses_install_scope_from_the_config(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, monkeypatch)
    _user_config(isolated_home, '[install]\nscope = "project"\n')
    assert _installed_at(_install(tmp_path)) == project / ".agents" / "skills" / "weekly-report"


def test_scope_on_the_command_line_wins_over_install_scope(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    _user_config(isolated_home, '[install]\nscope = "project"\n')
    done = _install(tmp_path, "--scope", "user")
    assert _installed_at(done) == isolated_home.home / ".agents" / "skills" / "weekly-report"


def test_without_install_scope_install_goes_to_the_user_scope(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    assert _installed_at(_install(tmp_path)) == isolated_home.home / ".agents" / "skills" / "weekly-report"


@pytest.mark.parametrize("trusted", [False, True])
def test_a_projects_install_scope_counts_only_once_the_project_is_trusted(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    project = _project(tmp_path, monkeypatch)
    (project / ".skillshelf").mkdir()
    (project / ".skillshelf" / "config.toml").write_text('[install]\nscope = "project"\n', encoding="utf-8")
    if trusted:
        _user_config(isolated_home, f'[projects."{project}"]\ntrust_level = "trusted"\n')
    where = project if trusted else isolated_home.home
    assert _installed_at(_install(tmp_path)) == where / ".agents" / "skills" / "weekly-report"


def test_install_all_without_scope_uses_install_scope(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, monkeypatch)
    _user_config(isolated_home, '[install]\nscope = "project"\n')
    for name in ("weekly-report", "release-notes"):
        write_skill(tmp_path / "pack" / name, name)
    done = CliRunner().invoke(cli, ["install", str(tmp_path / "pack"), "--all", "--for", "codex"])
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in (project / ".agents" / "skills").iterdir() if p.is_dir()) == [
        "release-notes",
        "weekly-report",
    ]


def test_for_skillshelf_installs_in_the_user_scope_whatever_install_scope_says(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    _user_config(isolated_home, '[install]\nscope = "project"\n')
    source = write_skill(tmp_path / "src" / "weekly-report", "weekly-report")
    done = CliRunner().invoke(cli, ["install", str(source), "--for", "skillshelf", "--json"])
    assert _installed_at(done) == isolated_home.data / "skillshelf" / "skills" / "weekly-report"
    assert default_scope("project", "skillshelf") == "user"
    assert (default_scope("project"), default_scope(None), default_scope("user", "all")) == (
        "project",
        "user",
        "user",
    )


def test_a_wrong_install_scope_is_reported_and_the_user_scope_applies(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    _user_config(isolated_home, '[install]\nscope = "projet"\n')
    done = _install(tmp_path)
    assert _installed_at(done) == isolated_home.home / ".agents" / "skills" / "weekly-report"
    assert (
        "CF102" in done.stderr and "install.scope" in done.stderr and 'did you mean "project"' in done.stderr
    )


def test_a_wrong_install_scope_is_a_diagnostic_in_the_json_result(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    _user_config(isolated_home, '[install]\nscope = "projcet"\n')
    done = _install(tmp_path, "--dry-run")
    assert done.exit_code == 0, done.output
    found = [d for d in json.loads(done.stdout)["diagnostics"] if d["code"] == "CF102"]
    assert [d["field"] for d in found] == ["install.scope"]
    assert 'did you mean "project"' in found[0]["fix"]


def test_update_and_remove_still_look_in_both_scopes_under_install_scope(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, monkeypatch)
    user_copy = _installed_at(_install(tmp_path, "--scope", "user"))
    _user_config(isolated_home, '[install]\nscope = "project"\n')
    updated = CliRunner().invoke(cli, ["update", "--json"])
    assert updated.exit_code == 0, updated.output
    assert [(r["name"], r["scope"]) for r in json.loads(updated.stdout)["results"]] == [
        ("weekly-report", "user")
    ]
    removed = CliRunner().invoke(cli, ["remove", "weekly-report"])
    assert removed.exit_code == 0, removed.output
    assert not user_copy.exists()
