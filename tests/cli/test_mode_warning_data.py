"""The code of an `enable` / `disable` warning is the one it was made with, whatever its words:
a skill whose name reads like the start of another warning keeps its own code and fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


def test_a_skill_named_like_codexs_warning_still_gets_cf123_for_its_requirement(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    repo = tmp_path / "repo"
    folder = repo / ".agents" / "skills" / "ci"
    folder.mkdir(parents=True)
    (repo / ".git").mkdir()
    (folder / "SKILL.md").write_text("---\nname: Codex itself\ndescription: d\n---\nb\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    user = isolated_home.write_user_config('[requirements]\ndisabled_skills = ["Codex itself"]\n')
    code, out, _ = cli(["enable", "Codex itself", "--json"], capsys)
    assert code == 0
    [warning] = json.loads(out)["warnings"]
    assert (warning["code"], warning["path"]) == ("CF123", str(user))
    assert str(warning["message"]).startswith(
        "Codex itself is still disabled: `requirements.disabled_skills`"
    )
    assert warning["fix"] == "remove it from that list there (an administrator's file needs its owner)"
