"""`catalog` and `context` print their warnings as every command prints a finding, with its code
and a fix: the catalog over its budget (SK380), no catalog under `skills.include_instructions =
false` (SK381), and each mention that loads nothing (SK420..SK423, SK405); `--json` carries the
catalog's among its ``diagnostics``, as an object with code, message and fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli

NO_CATALOG = ["-c", "skills.include_instructions=false"]


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the skill pdf-forms; the cwd for the test."""
    repo = tmp_path / "repo"
    folder = repo / ".agents" / "skills" / "pdf-forms"
    folder.mkdir(parents=True)
    (repo / ".git").mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-forms\ndescription: Fill, flatten and extract fields of PDF forms.\n---\nb\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    ("options", "code", "fix"),
    [
        (["--budget-chars", "20"], "SK380", "raise the budget"),
        (NO_CATALOG, "SK381", "set skills.include_instructions = true"),
    ],
)
def test_catalog_prints_its_warning_with_a_code_and_a_fix_and_carries_it_in_json(
    project: Path, capsys: pytest.CaptureFixture[str], options: list[str], code: str, fix: str
) -> None:
    status, _, err = cli(["catalog", "--no-builtin", *options], capsys)
    assert status == 0 and f"skillshelf: warning {code}: " in err
    assert f"\n  fix: {fix}" in err.split(f"warning {code}: ", 1)[1]
    status, out, _ = cli(["catalog", "--no-builtin", "--json", *options], capsys)
    [found] = json.loads(out)["diagnostics"]
    assert found["code"] == code and fix in found["fix"] and found["message"]


@pytest.mark.parametrize(("options", "code"), [(["--budget-chars", "20"], "SK380"), (NO_CATALOG, "SK381")])
def test_context_prints_the_catalogs_warning_with_its_code_and_carries_it_in_json(
    project: Path, capsys: pytest.CaptureFixture[str], options: list[str], code: str
) -> None:
    status, _, err = cli(["context", "fill a form", "--no-builtin", *options], capsys)
    assert status == 0 and f"skillshelf: warning {code}: " in err and "\n  fix: " in err
    status, out, _ = cli(["context", "fill a form", "--no-builtin", "--json", *options], capsys)
    assert code in [d["code"] for d in json.loads(out)["diagnostics"]]


def test_context_prints_a_mention_that_loads_nothing_with_its_code_and_fix(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = cli(["context", "$pdf-formz fill it", "--no-builtin"], capsys)
    assert status == 0
    assert "skillshelf: warning SK420: the task mentions $pdf-formz" in err
    assert "\n  fix: did you mean $pdf-forms?" in err


def test_context_prints_a_mention_of_a_disabled_skill_as_sk405(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["disable", "pdf-forms"], capsys)
    status, _, err = cli(["context", "use $pdf-forms", "--no-builtin"], capsys)
    assert status == 0 and "warning SK405: " in err and "skillshelf enable pdf-forms" in err


def test_catalog_shows_a_codex_budget_value_codex_refuses_as_sk232_not_as_a_skill_file_problem(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    config = isolated_home.codex_home / "config.toml"
    config.write_text("[skills]\nmax_context_tokens = 0\n", encoding="utf-8")
    status, _, err = cli(["catalog", "--no-builtin"], capsys)
    assert status == 0 and "warning SK232: " in err and "problem(s) in skill files" not in err
    status, out, _ = cli(["catalog", "--no-builtin", "--json"], capsys)
    assert "SK232" in [d["code"] for d in json.loads(out)["diagnostics"]]
