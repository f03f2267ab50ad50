"""`skillshelf context` for people: the table's title for a long task, and the warnings for
mentions that load nothing (on stderr, not counted as problems in skill files)."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    folder = repo / ".agents" / "skills" / "alpha"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: does alpha\n---\nbody\n", encoding="utf-8"
    )
    monkeypatch.chdir(repo)
    monkeypatch.setenv("COLUMNS", "200")
    return repo


def test_a_long_task_from_stdin_is_cut_to_a_line_in_the_title(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    task = "fix the flaky test in the parser module " * 5 + "\n" + "LATER-LINE " * 10_000
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(task.encode()), encoding="utf-8"))
    code, out, _ = cli(["context", "-", "--no-builtin", "--no-suggestions", "--no-memory"], capsys)
    assert code == 0 and "LATER-LINE" not in out and len(out) < 20_000
    title = next(line.rstrip() for line in out.splitlines() if line.startswith("Context for"))
    assert title == f"Context for {task[:80].rstrip() + '…'!r}"
    _, short, _ = cli(["context", "use alpha", "--no-builtin", "--no-suggestions"], capsys)
    assert "Context for 'use alpha'" in short


def test_a_mention_that_loads_nothing_warns_on_stderr_only(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["context", "use $alphaa now", "--no-builtin", "--no-suggestions"], capsys)
    assert code == 0
    assert "warning SK420: the task mentions $alphaa" in err and "  fix: did you mean $alpha?" in err
    assert "problem(s) in skill files" not in err


@pytest.mark.parametrize("task", ["-v flag is ignored", "--json"])
def test_the_search_hint_for_a_task_that_starts_with_a_dash_runs_that_search(
    project: Path, task: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(["context", "--no-builtin", "--", task], capsys)
    assert code == 0
    hint = out.split("no skill suggested for this task: `", 1)[1].split("`", 1)[0]
    assert hint == f"skillshelf search -- {shlex.quote(task)}"
    searched, listed, err = cli(["search", "--no-builtin", "--json", *shlex.split(hint)[2:]], capsys)
    assert searched == 0 and json.loads(listed)["query"] == task, err
