"""`skillshelf lint-arch`: people output with FIX lines, JSON, exit codes; skillshelf itself passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from archlint_helpers import make_project, write
from click.testing import CliRunner

from skillshelf.archlint import lint_path
from skillshelf.cli.archlint_cmd import lint_arch

REPO = Path(__file__).resolve().parents[2]


def test_violation_prints_error_and_fix_lines_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "adapters" / "cache.py", "")
    write(pkg / "types.py", "from shop.adapters import cache\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(lint_arch, [])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].endswith(
        "types.py:1: ERROR AR101: types in layer 1 (errors, types) imports adapters.cache from the "
        "higher layer 3 (adapters)"
    )
    assert lines[1].startswith("  FIX: do not import adapters.cache from types.")
    assert "1 errors, 0 warnings in 10 files" in result.stderr


def test_json_and_strict_mode(tmp_path: Path) -> None:
    pkg = make_project(tmp_path)
    write(pkg / "core" / "lazy.py", "def f() -> None:\n    from shop.cli import main\n")
    runner = CliRunner()
    as_json = runner.invoke(lint_arch, [str(pkg), "--lazy-imports", "warning", "--json"])
    assert as_json.exit_code == 0
    data = json.loads(as_json.stdout)
    assert (data["errors"], data["warnings"]) == (0, 1)
    assert data["diagnostics"][0]["code"] == "AR102" and data["diagnostics"][0]["fix"]
    strict = runner.invoke(lint_arch, [str(pkg), "--lazy-imports", "warning", "--strict"])
    assert strict.exit_code == 1


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    make_project(tmp_path)
    result = CliRunner().invoke(lint_arch, [str(tmp_path / "src" / "nope")])
    assert result.exit_code == 1
    assert getattr(result.exception, "code", None) == "AR012"


def test_skillshelf_itself_respects_its_layers() -> None:
    report = lint_path(None, cwd=REPO)
    errors = [d.format() for d in report.diagnostics if d.severity.value == "error"]
    assert errors == [], "\n".join(errors)
    assert report.files > 50
