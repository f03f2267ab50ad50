"""`skillshelf list` into a pipe or a file: one tab-separated line per skill, never a table; on a
terminal, the table."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from testkit import IsolatedHome

LONG = "Turns merged pull requests into release notes, grouped by label and linked to each pull. " * 4


def _list(cwd: Path, env: dict[str, str] | None = None) -> str:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(cli, ["list", "--no-builtin"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _skill(folder: Path, name: str, description: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nbody\n", "utf-8")
    return folder / "SKILL.md"


@pytest.fixture
def repo(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def test_list_into_a_pipe_prints_one_tab_separated_line_per_skill_and_no_table(repo: Path) -> None:
    deep = repo / ".agents" / "skills" / "platform" / "shared" / "teams" / "release-notes-for-merged-prs"
    path = _skill(deep, "release-notes-for-merged-prs", LONG.strip())
    _skill(repo / ".agents" / "skills" / "k8s", "k8s", "Deploys to Kubernetes.")
    out = _list(repo, env={"COLUMNS": "80"})  # a width says nothing about a pipe
    assert not any(mark in out for mark in "│┃┏━")
    lines = out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["k8s", "release-notes-for-merged-prs"]
    fields = lines[1].split("\t")
    assert fields == [
        "release-notes-for-merged-prs",
        "enabled",
        "repo!",
        "agents-repo",
        LONG.strip(),
        str(path),
        "",
    ]


def test_rows_for_a_program_write_a_tab_or_line_break_in_a_field_as_an_escape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from skillshelf.cli.output import echo_rows

    echo_rows([("a\tb", "c\nd", "e\x1bf"), ("g", "", "h")])
    assert capsys.readouterr().out == "a\\tb\tc\\nd\te\\x1bf\ng\t\th\n"


def test_a_backslash_of_a_field_is_written_twice_so_it_differs_from_an_escaped_tab(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from skillshelf.cli.output import echo_rows

    echo_rows([("real\ttab", "two chars \\t")])
    assert capsys.readouterr().out == "real\\ttab\ttwo chars \\\\t\n"


def test_no_skill_into_a_pipe_is_no_line_on_stdout(repo: Path) -> None:
    with contextlib.chdir(repo):
        result = CliRunner().invoke(cli, ["list", "--no-builtin"], catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout == "" and "No skills found" in result.stderr


def test_list_on_a_terminal_prints_the_table(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillshelf.cli import skills_cmds

    _skill(repo / ".agents" / "skills" / "k8s", "k8s", "Deploys to Kubernetes.")
    monkeypatch.setattr(skills_cmds, "stdout_is_terminal", lambda: True)
    out = _list(repo, env={"COLUMNS": "120"})
    assert out.startswith("1 skill(s)") and "┃ name" in out and "\t" not in out
