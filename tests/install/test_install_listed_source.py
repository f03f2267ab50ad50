"""`list` names where an installed skill came from once: the source with the ref it was asked
for, or, taken from a git repository's default branch, with the commit it was at."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from install_helpers import commit_all, git, init_repo, write_skill

from skillshelf.cli.main import cli
from testkit import IsolatedHome


def _tagged_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = init_repo(tmp_path / "repo")
    write_skill(repo / "skills" / "pdf-forms", "pdf-forms")
    commit = commit_all(repo, "v1")
    git(repo, "tag", "v1")
    return repo, commit


def _cli(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _installed_from(cwd: Path) -> str:
    """The last field of the installed skill's line of `list` into a pipe."""
    [line] = [
        line for line in _cli(cwd, "list", "--no-builtin").splitlines() if line.startswith("pdf-forms\t")
    ]
    return line.split("\t")[6]


def test_list_names_the_ref_of_a_source_once(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    repo, _ = _tagged_repo(tmp_path)
    source = f"{repo.as_uri()}@v1#skills/pdf-forms"
    _cli(isolated_home.home, "install", source, "--for", "codex")
    assert _installed_from(isolated_home.home) == f"{source}; seen by Codex"


def test_list_names_the_commit_of_a_source_taken_without_a_ref(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    repo, commit = _tagged_repo(tmp_path)
    source = f"{repo.as_uri()}#skills/pdf-forms"
    _cli(isolated_home.home, "install", source, "--for", "codex")
    assert _installed_from(isolated_home.home) == f"{source} at {commit[:12]}; seen by Codex"


def test_list_table_names_the_ref_of_a_source_once(
    tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.cli import skills_cmds

    repo, _ = _tagged_repo(tmp_path)
    _cli(isolated_home.home, "install", f"{repo.as_uri()}@v1#skills/pdf-forms", "--for", "codex")
    monkeypatch.setattr(skills_cmds, "stdout_is_terminal", lambda: True)
    table = _cli(isolated_home.home, "list", "--no-builtin", env={"COLUMNS": "2000"})  # no cell wraps
    assert "@v1#skills/pdf-forms;" in table and "@v1#skills/pdf-forms@v1" not in table
