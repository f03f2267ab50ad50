"""`enable` / `disable` warnings are coded findings with a fix, on stderr as every command prints
them and in `--json` as objects: a name no skill here has (CF122), a project config not in effect
(CF109, as `list` says it), another entry that still decides (CF123), Codex's own entry (CF124)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An untrusted repository with the skill pdf-forms; the cwd for the test."""
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    repo = tmp_path / "repo"
    folder = repo / ".agents" / "skills" / "pdf-forms"
    folder.mkdir(parents=True)
    (repo / ".git").mkdir()
    (folder / "SKILL.md").write_text("---\nname: pdf-forms\ndescription: forms\n---\nb\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    return repo


def _warnings(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    code, out, err = cli([*args, "--json"], capsys)
    assert code == 0, err
    return list(json.loads(out)["warnings"])


@pytest.mark.parametrize("command", ["enable", "disable"])
def test_a_name_no_skill_here_has_is_cf122_with_the_closest_names_in_its_fix(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    user = isolated_home.config / "skillshelf" / "config.toml"
    code, _, err = cli([command, "pdf-formz"], capsys)
    assert code == 0
    assert f"{user}: warning CF122: no skill named 'pdf-formz' is visible from here" in err
    assert "\n  fix: did you mean 'pdf-forms'?" in err
    [warning] = _warnings(capsys, command, "pdf-formz")
    assert warning == {**warning, "code": "CF122", "severity": "warning", "path": str(user)}
    assert "'pdf-formz'" in str(warning["message"]) and "did you mean 'pdf-forms'?" in str(warning["fix"])


def test_disable_project_in_an_untrusted_project_is_cf109_with_the_trust_command_as_list_has_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = project / ".skillshelf" / "config.toml"
    code, _, err = cli(["disable", "--project", "pdf-forms"], capsys)
    assert code == 0 and f"{written}: warning CF109: {written} is not in effect: " in err
    [warning] = _warnings(capsys, "disable", "--project", "pdf-forms")
    assert warning["code"] == "CF109" and f"skillshelf trust {project}" in str(warning["fix"])
    assert "skillshelf trust" not in str(warning["message"])  # the fix is said once, as the fix
    code, _, err = cli(["list", "--no-builtin"], capsys)
    assert f"skillshelf trust {project}" in err and "CF109" in err


def test_an_entry_that_still_decides_is_cf123_and_codexs_own_is_cf124_each_with_its_fix(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config('[requirements]\ndisabled_skills = ["pdf-forms"]\n')
    codex = isolated_home.codex_home / "config.toml"
    codex.parent.mkdir(parents=True, exist_ok=True)
    codex.write_text('[[skills.config]]\nname = "pdf-forms"\nenabled = false\n', encoding="utf-8")
    found = {w["code"]: w for w in _warnings(capsys, "enable", "pdf-forms")}
    assert set(found) == {"CF123", "CF124"}
    still = "pdf-forms is still disabled: `requirements.disabled_skills`"
    assert str(found["CF123"]["message"]).startswith(still)
    assert str(found["CF123"]["fix"]).startswith("remove it from that list there")
    assert str(found["CF124"]["fix"]) == "set `enabled = true` there (or remove it)"
