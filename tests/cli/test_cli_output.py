"""What reaches stdout: model-bound text byte for byte into a pipe, made safe on a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from skillshelf.cli.main import cli
from skillshelf.cli.output import echo_text, printable
from testkit import IsolatedHome

ESC = "\x1b"
DESCRIPTION = f"red {ESC}[31mRED{ESC}[0m text"
BODY = f"body {ESC}[1mBOLD{ESC}[0m end"
AGENTS = f"Use {ESC}[31mred{ESC}[0m here"


@pytest.fixture
def escapes(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    """A project whose skill description, skill body and AGENTS.md hold ANSI colour sequences."""
    project = tmp_path / "p"
    skill = project / ".agents" / "skills" / "esc"
    skill.mkdir(parents=True)
    (project / ".git").mkdir()
    (skill / "SKILL.md").write_text(
        f'---\nname: esc\ndescription: "red \\e[31mRED\\e[0m text"\n---\n{BODY}\n', encoding="utf-8"
    )
    (project / "AGENTS.md").write_text(AGENTS + "\n", encoding="utf-8")
    return project


def piped(args: list[str], cwd: Path) -> str:
    """The command's stdout as a program reading a pipe gets it (a real process, a real pipe)."""
    script = Path(sys.executable).parent / "skillshelf"
    done = subprocess.run(
        [str(script), *args], cwd=cwd, env=dict(os.environ), capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["catalog"], [f"- esc: {DESCRIPTION} (file: "]),
        (["load", "esc"], [BODY]),
        (["instructions", "--raw"], [AGENTS]),
        (["context", "--raw"], [f"- esc: {DESCRIPTION} (file: ", AGENTS]),
    ],
    ids=["catalog", "load", "instructions", "context"],
)
def test_model_bound_text_keeps_its_escape_sequences_in_a_pipe(
    escapes: Path, args: list[str], expected: list[str]
) -> None:
    out = piped(args, escapes)
    for text in expected:
        assert text in out


def test_model_bound_text_keeps_its_escape_sequences_through_click_runner(
    escapes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(escapes)
    result = CliRunner().invoke(cli, ["load", "esc"], catch_exceptions=False)
    assert BODY in result.stdout


def test_model_bound_text_on_a_terminal_shows_escape_sequences_as_text(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    echo_text(BODY)
    out = capsys.readouterr().out
    assert ESC not in out and out == printable(BODY) + "\n"
    assert "\\x1b[1mBOLD" in out


@pytest.mark.oracle
def test_piped_catalog_line_and_agents_block_are_codexs_bytes(
    escapes: Path, isolated_home: IsolatedHome, codex_oracle: Callable[..., dict[str, Any]]
) -> None:
    codex = codex_oracle(escapes, home=isolated_home.home, codex_home=isolated_home.codex_home)
    ours = piped(["catalog", "--no-builtin"], escapes)
    want = [line for line in codex["skills_instructions"].split("\n") if line.startswith("- esc:")]
    assert want and want == [line for line in ours.split("\n") if line.startswith("- esc:")]
    assert piped(["instructions", "--raw"], escapes) == codex["agents_md"] + "\n"


def test_a_finding_without_a_file_is_printed_as_the_programs_own(capsys: pytest.CaptureFixture[str]) -> None:
    from skillshelf.cli.output import print_diagnostics
    from skillshelf.diagnostics import Diagnostic, Severity

    found = Diagnostic(code="CF108", severity=Severity.WARNING, message="bad -c value", fix="fix it", line=3)
    print_diagnostics([found])
    assert capsys.readouterr().err.splitlines()[0] == "skillshelf: warning CF108: bad -c value"
    assert found.format().splitlines()[0] == "skillshelf: warning CF108: bad -c value"


def test_json_on_a_terminal_escapes_what_would_reorder_or_drive_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from skillshelf.cli.output import echo_json

    value = {"description": "safe\u202egnp.exe \x85 \x9b31m \x1b[2J"}
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    echo_json(value)
    out = capsys.readouterr().out
    assert not any(c in out for c in "\u202e\x85\x9b\x1b") and "\\u202e" in out
    assert json.loads(out) == value
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    echo_json(value)
    assert "\u202e" in capsys.readouterr().out  # a program reading a pipe gets the characters
