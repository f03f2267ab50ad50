"""``install --all --json`` carries the config's findings in its JSON, as ``install --json`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from install_helpers import write_skill

from testkit import IsolatedHome, run_cli

BROKEN = '[install]\nscope = "everywhere"\n[ui\n'  # CF100: the layer is skipped


def _pack(tmp_path: Path) -> Path:
    write_skill(tmp_path / "pack" / "alpha", "alpha")
    write_skill(tmp_path / "pack" / "beta", "beta")
    return tmp_path / "pack"


def test_install_all_json_carries_the_findings_of_an_unread_config_layer(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    config = isolated_home.write_user_config(BROKEN)
    pack = _pack(tmp_path)
    code, out, err = run_cli(["install", str(pack), "--all", "--json", "--for", "codex"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert [s["skill_name"] for s in data["installed"]] == ["alpha", "beta"]
    assert [(d["code"], d["path"], d["line"]) for d in data["diagnostics"]] == [("CF100", str(config), 3)]
    assert "CF100" in err  # still on stderr, as with one source
    one_code, one_out, _ = run_cli(
        ["install", str(pack / "alpha"), "--json", "--dry-run", "--force", "--for", "codex"], capsys
    )
    assert one_code == 0
    assert json.loads(one_out)["diagnostics"] == data["diagnostics"]  # the same shape as one source's


def test_install_all_json_carries_a_dropped_install_key_and_an_empty_list_when_all_is_well(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    isolated_home.write_user_config('[install]\nscope = "everywhere"\n')
    pack = _pack(tmp_path)
    code, out, err = run_cli(["install", str(pack), "--all", "--json", "--dry-run", "--for", "codex"], capsys)
    assert code == 0, err
    diagnostics = json.loads(out)["diagnostics"]
    assert [(d["code"], d["field"]) for d in diagnostics] == [("CF102", "install.scope")]
    isolated_home.write_user_config("")
    code, out, err = run_cli(["install", str(pack), "--all", "--json", "--dry-run", "--for", "codex"], capsys)
    assert code == 0 and json.loads(out)["diagnostics"] == [] and err == ""
