"""`trust`, `untrust` and `enable/disable --project` act on the project root the config loader
finds, `project_root_markers` of the user config included: the project trusted is the one whose
config is then read, and `--project` writes the file that is then in effect."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture(autouse=True)
def _no_system_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))


def _show(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, _ = cli(["config", "show", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def _git_init(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def _marked_above_git(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    """``mono`` holding a ``.repo-root`` marker the user config names, with a git repository in
    ``mono/pkg`` (and ``pkg/src``); ``mono``."""
    mono = tmp_path / "mono"
    _git_init(mono / "pkg")
    (mono / ".repo-root").touch()
    (mono / "pkg" / "src").mkdir()
    isolated_home.write_user_config('project_root_markers = [".repo-root"]\n')
    return mono


def test_trust_trusts_the_root_a_configured_marker_names_above_the_git_root(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mono = _marked_above_git(tmp_path, isolated_home)
    monkeypatch.chdir(mono / "pkg" / "src")
    code, out, _ = cli(["trust"], capsys)
    assert code == 0 and out.startswith(f"{mono} is trusted")
    trust = _show(capsys)["trust"]
    assert trust == {**trust, "root": str(mono), "trusted": True}  # type: ignore[dict-item]
    code, out, _ = cli(["untrust", "--json"], capsys)
    assert code == 0 and json.loads(out)["project"] == str(mono)
    assert _show(capsys)["trust"]["trusted"] is False  # type: ignore[index]


def test_trust_of_a_named_folder_uses_the_configured_markers(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mono = _marked_above_git(tmp_path, isolated_home)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli(["trust", os.path.relpath(mono / "pkg" / "src"), "--json"], capsys)
    assert code == 0 and json.loads(out)["project"] == str(mono)


def test_disable_project_writes_the_config_of_the_root_the_loader_reads(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mono = tmp_path / "mono2"
    _git_init(mono)
    (mono / "pkg" / "src").mkdir(parents=True)
    (mono / "pkg" / "pyproject.toml").touch()
    isolated_home.write_user_config('project_root_markers = ["pyproject.toml"]\n')
    monkeypatch.chdir(mono / "pkg" / "src")
    assert cli(["trust"], capsys)[0] == 0
    code, out, err = cli(["disable", "--project", "some-skill"], capsys)
    written = mono / "pkg" / ".skillshelf" / "config.toml"
    assert code == 0 and f"in {written}" in out and "not in effect" not in err
    assert not (mono / ".skillshelf").exists()
    data = _show(capsys)
    assert data["trust"]["trusted"] is True  # type: ignore[index]
    rules = data["skill_rules"]
    assert isinstance(rules, list) and [(r["name"], r["mode"], r["file"]) for r in rules] == [
        ("some-skill", "disabled", str(written))
    ]
