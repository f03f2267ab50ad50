"""The progress display for slow steps: on a terminal only, after a delay, on stderr."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from skillshelf.cli import progress
from skillshelf.cli.main import main
from skillshelf.cli.progress import working
from testkit import IsolatedHome


def _terminal(buffer: io.StringIO) -> Console:
    return Console(file=buffer, force_terminal=True, width=100)


def test_a_terminal_sees_the_step_and_each_update() -> None:
    buffer = io.StringIO()
    with working("Finding skills", console=_terminal(buffer), delay=0) as step:
        step("Ranking 3,000 skills")
    shown = buffer.getvalue()
    assert "Finding skills" in shown and "Ranking 3,000 skills" in shown


def test_a_step_quicker_than_the_delay_prints_nothing() -> None:
    buffer = io.StringIO()
    with working("Finding skills", console=_terminal(buffer), delay=60):
        pass
    assert buffer.getvalue() == ""


def test_without_a_terminal_nothing_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    with working("Finding skills", delay=0) as step:
        step("Ranking")
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["search", "alpha things", "--no-builtin", "--no-semantic"], "Ranking 1 skills"),
        (["context", "alpha things", "--no-builtin", "--raw"], "building the context"),
        (["catalog", "--no-builtin"], "rendering the catalog"),
        (["list", "--no-builtin"], "Finding skills"),
    ],
)
def test_slow_commands_show_their_step_on_a_terminal(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    expected: str,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skill = repo / ".agents" / "skills" / "alpha"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: does alpha things\n---\n", encoding="utf-8"
    )
    monkeypatch.chdir(repo)
    buffer = io.StringIO()
    terminal: Any = _terminal(buffer)
    monkeypatch.setattr(progress, "_terminal_console", lambda: terminal)
    monkeypatch.setattr(progress, "DELAY", 0)
    assert not main(args)
    assert expected in buffer.getvalue()
    assert expected not in capsys.readouterr().out
