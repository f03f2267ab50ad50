"""`config show` reports every problem of the configuration that the commands finding skills
report, a ``[[skills.config]]`` path entry a requirement overrules (CF106) included: with its
file, line and fix on stderr, in ``diagnostics`` of ``--json``, and the exit status of a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture(autouse=True)
def _work(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside any repository, as the cwd; no system config layer."""
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    monkeypatch.setenv("COLUMNS", "200")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def _skill(root: Path, folder: str, name: str) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: Merge PDF files.\n---\nbody\n", encoding="utf-8")
    return path


def _codex_entry(box: IsolatedHome, path: Path, enabled: bool) -> Path:
    """A Codex ``[[skills.config]]`` path entry (line 1 of Codex's config.toml)."""
    config = box.codex_home / "config.toml"
    config.write_text(
        f'[[skills.config]]\npath = "{path}"\nenabled = {str(enabled).lower()}\n', encoding="utf-8"
    )
    return config


def _cf106(diagnostics: object) -> list[dict[str, object]]:
    assert isinstance(diagnostics, list)
    return [d for d in diagnostics if d["code"] == "CF106"]


def test_config_show_warns_of_a_path_entry_that_a_requirement_overrules(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = _codex_entry(isolated_home, _skill(isolated_home.codex_home / "skills", "pdf", "pdf"), False)
    isolated_home.write_user_config('[requirements]\nrequired_skills = ["pdf"]\n')
    _, _, listed = cli(["list"], capsys)
    code, out, err = cli(["config", "show"], capsys)
    assert code == 0 and "Skill rules" in out
    assert f"{entry}:1: warning CF106: " in err and "(skill 'pdf') to disabled" in err
    assert "fix: remove this entry, or change requirements.required_skills where it is set" in err
    assert [line for line in err.splitlines() if "CF106" in line] == [
        line for line in listed.splitlines() if "CF106" in line
    ]
    assert cli(["config"], capsys)[2] == err


def test_config_show_json_lists_the_overruled_path_entry_among_its_diagnostics(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = _skill(isolated_home.home / "skills", "pdf", "pdf")
    isolated_home.write_user_config(
        f'[skills]\nroots = ["{skill.parent.parent}"]\n[requirements]\ndisabled_skills = ["pdf"]\n'
        f'[[skills.config]]\npath = "{skill.parent}"\nmode = "pinned"\n'
    )
    code, out, err = cli(["config", "show", "--json"], capsys)
    (refused,) = _cf106(json.loads(out)["diagnostics"])
    assert code == 0 and "CF106" in err
    assert refused["path"] == str(isolated_home.config / "skillshelf" / "config.toml")
    assert refused["line"] == 5 and refused["severity"] == "warning" and refused["field"] == "skills.config"
    assert "requirements.disabled_skills keeps it disabled" in str(refused["message"])


def test_config_show_names_a_claude_skill_after_its_folder_as_discovery_does(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = _skill(isolated_home.home / ".claude" / "skills", "pdf-tools", "pdf")
    isolated_home.write_user_config(
        '[requirements]\nrequired_skills = ["pdf-tools"]\n'
        f'[[skills.config]]\npath = "{skill}"\nmode = "disabled"\n'
    )
    code, out, _ = cli(["config", "show", "--json"], capsys)
    (refused,) = _cf106(json.loads(out)["diagnostics"])
    assert code == 0 and refused["line"] == 3 and "(skill 'pdf-tools')" in str(refused["message"])


@pytest.mark.usefixtures("isolated_home")
@pytest.mark.parametrize(
    "args",
    [
        ["config", "--json", "-c", "instructions.max_bytes=1234"],
        ["config", "-c", "instructions.max_bytes=1234", "show", "--json"],
    ],
    ids=" ".join,
)
def test_config_alone_takes_the_options_of_config_show(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(args, capsys)
    assert code == 0, err
    assert out == cli(["config", "show", "--json", "-c", "instructions.max_bytes=1234"], capsys)[1]
    assert json.loads(out)["values"]["instructions"]["max_bytes"] == 1234
