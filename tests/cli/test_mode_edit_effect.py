"""`enable` / `disable` read the config again after the edit: when the skill's mode is still not
the one asked for (a later entry, a trusted project's entry or a requirement decides, or the
edited file is not in effect), a warning names the file and line that decide and how to change
it. The edit itself is made and the command exits 0, as for the other warnings of these commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the skills foo and bar; the cwd for the test."""
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "no-system"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for name in ("foo", "bar"):
        folder = repo / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: does {name} things\n---\nbody\n", encoding="utf-8"
        )
    monkeypatch.chdir(repo)
    return repo


def _mode_of(name: str, capsys: pytest.CaptureFixture[str]) -> str:
    rows = json.loads(cli(["list", "--no-builtin", "--json"], capsys)[1])
    return str(next(row["mode"] for row in rows if row["name"] == name))


def test_enable_warns_when_a_later_path_entry_in_the_same_file_keeps_the_skill_disabled(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / ".agents" / "skills" / "foo"
    user = isolated_home.write_user_config(
        f'[[skills.config]]\nname = "foo"\nmode = "disabled"\n\n'
        f'[[skills.config]]\npath = "{folder}"\nmode = "disabled"\n'
    )
    code, out, err = cli(["enable", "foo"], capsys)
    assert code == 0 and "foo: enabled (was disabled)" in out
    decides = f"foo is still disabled: the entry at {user}:5 (path {folder} -> disabled) decides"
    assert f"warning CF123: {decides}" in err
    assert "  fix: edit or remove that entry" in err
    assert _mode_of("foo", capsys) == "disabled"
    data = json.loads(cli(["enable", "foo", "--json"], capsys)[1])
    assert [w for w in data["warnings"] if w["code"] == "CF123" and w["message"].startswith(decides)]


def test_enable_names_the_trusted_projects_entry_and_the_project_command(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["trust"], capsys)
    cli(["disable", "--project", "foo"], capsys)
    code, _, err = cli(["enable", "--mode", "pinned", "foo"], capsys)
    project_file = project / ".skillshelf" / "config.toml"
    assert code == 0 and f"foo is still disabled: the entry at {project_file}:1" in err
    assert "run `skillshelf enable --project --mode pinned foo`" in err
    code, _, err = cli(["enable", "--project", "--mode", "pinned", "foo"], capsys)
    assert code == 0 and "warning" not in err and _mode_of("foo", capsys) == "pinned"


def test_enable_warns_when_a_requirement_keeps_the_skill_disabled(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    user = isolated_home.write_user_config('[requirements]\ndisabled_skills = ["foo"]\n')
    code, _, err = cli(["enable", "foo"], capsys)
    assert code == 0
    assert f"foo is still disabled: `requirements.disabled_skills` ({user}:2) keeps it disabled" in err
    assert "remove it from that list there" in err


def test_disable_warns_when_a_required_skills_requirement_keeps_the_skill_on(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    user = isolated_home.write_user_config('[requirements]\nrequired_skills = ["foo"]\n')
    code, out, err = cli(["disable", "foo"], capsys)
    assert code == 0 and "foo: disabled" in out
    assert f"foo is still required: `requirements.required_skills` ({user}:2) keeps it required" in err
    assert _mode_of("foo", capsys) == "required"


def test_an_edit_that_takes_effect_warns_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(["disable", "bar"], capsys)
    assert code == 0 and err == ""
    code, _, err = cli(["enable", "bar", "--mode", "manual"], capsys)
    assert code == 0 and err == "" and _mode_of("bar", capsys) == "manual"


def test_disable_project_says_when_project_config_is_not_allowed(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config("[requirements]\nallow_project_config = false\n")
    cli(["trust"], capsys)
    code, _, err = cli(["disable", "--project", "foo"], capsys)
    project_file = project / ".skillshelf" / "config.toml"
    assert code == 0 and f"CF109: {project_file} is not in effect: requirements.allow_project_config" in err
    assert _mode_of("foo", capsys) == "enabled"


def test_disable_project_in_an_untrusted_project_says_how_to_trust_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["disable", "--project", "foo"], capsys)
    assert code == 0 and "is not in effect: project not trusted" in err
    assert f"skillshelf trust {project}" in err


def test_enable_says_codex_itself_keeps_a_skill_its_own_config_disables(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = isolated_home.codex_home / "config.toml"
    codex.parent.mkdir(parents=True, exist_ok=True)
    codex.write_text('[[skills.config]]\nname = "foo"\nenabled = false\n', encoding="utf-8")
    code, out, err = cli(["enable", "foo"], capsys)
    assert code == 0 and _mode_of("foo", capsys) == "enabled"
    assert f"Codex itself still keeps foo disabled: the entry at {codex}:1" in " ".join(err.split())
    assert "`enabled = true` there" in err
    code, out, err = cli(["disable", "bar"], capsys)
    assert code == 0 and "Codex itself" not in err


def test_disable_in_the_other_unicode_form_writes_the_name_as_the_skill_spells_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import unicodedata

    decomposed = unicodedata.normalize("NFD", "café")
    folder = project / ".agents" / "skills" / decomposed
    folder.mkdir()
    (folder / "SKILL.md").write_text(f"---\nname: {decomposed}\ndescription: d\n---\nb\n", encoding="utf-8")
    code, _, err = cli(["disable", unicodedata.normalize("NFC", "café")], capsys)
    assert code == 0 and "warning" not in err
    assert _mode_of(decomposed, capsys) == "disabled"
