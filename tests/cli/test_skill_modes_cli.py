"""Disabled skills on the command line and through every loader: `list` shows each skill's mode,
loading a disabled skill says which config entry disabled it and how to enable it, and
`enable`/`disable`/`trust`/`untrust` print what they wrote (``--json`` for programs)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillshelf.env import Env
from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with skills alpha, beta and delta; the cwd for the test."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for name in ("alpha", "beta", "delta"):
        folder = repo / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: does {name} things\n---\nbody\n", encoding="utf-8"
        )
    monkeypatch.chdir(repo)
    monkeypatch.setenv("COLUMNS", "200")
    return repo


def _user_config(box: IsolatedHome) -> Path:
    return box.config / "skillshelf" / "config.toml"


def test_list_shows_the_mode_of_each_skill_and_which_entry_set_it(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["disable", "beta"], capsys)[0] == 0
    code, out, _ = cli(["list", "--no-builtin", "--json"], capsys)
    rows = {row["name"]: row for row in json.loads(out)}
    assert code == 0 and rows["beta"]["mode"] == "disabled" and rows["alpha"]["mode"] == "enabled"
    assert rows["beta"]["mode_set_by"] == f"{_user_config(isolated_home)}:1"
    assert rows["alpha"]["mode_set_by"] is None
    code, out, _ = cli(["list", "--no-builtin"], capsys)  # into a pipe: name, mode, ... per line
    modes = {line.split("\t")[0]: line.split("\t")[1] for line in out.splitlines()}
    assert modes == {"alpha": "enabled", "beta": "disabled", "delta": "enabled"}


def test_loading_a_disabled_skill_names_the_entry_and_how_to_enable_it(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["disable", "beta"], capsys)
    code, _, err = cli(["load", "beta", "--no-builtin"], capsys)
    assert code == 1 and "SK405" in err and "did you mean" not in err
    assert f"disabled by {_user_config(isolated_home)}:1" in err
    assert "skillshelf enable beta" in err
    cli(["enable", "beta"], capsys)
    code, out, _ = cli(["load", "beta", "--no-builtin"], capsys)
    assert code == 0 and "<name>beta</name>" in out


def test_load_says_why_a_mistyped_entry_did_not_disable_the_skill(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config('[[skills.config]]\nname = "beta"\nmode = "disable"\n')
    code, out, err = cli(["load", "beta", "--no-builtin"], capsys)
    assert code == 0 and "<name>beta</name>" in out
    assert "CF104" in err and 'did you mean mode = "disabled"' in err


def test_a_project_entry_is_undone_with_enable_project(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["trust"], capsys)
    cli(["disable", "--project", "beta"], capsys)
    code, _, err = cli(["load", "beta", "--no-builtin"], capsys)
    assert code == 1 and "skillshelf enable --project beta" in err
    assert str(project / ".skillshelf" / "config.toml") in err


def test_an_unknown_name_still_gets_the_closest_matches(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["disable", "beta"], capsys)
    code, _, err = cli(["load", "delat", "--no-builtin"], capsys)
    assert code == 1 and "SK404" in err and "did you mean 'delta'" in err


def test_disable_warns_when_no_skill_has_that_name_and_still_writes_the_entry(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(["disable", "delat"], capsys)
    assert code == 0 and "delat: disabled" in out
    assert "warning CF122: no skill named 'delat' is visible from here" in err
    assert "  fix: did you mean 'delta'?" in err
    assert 'name = "delat"' in _user_config(isolated_home).read_text(encoding="utf-8")
    code, _, err = cli(["disable", "alpha"], capsys)
    assert code == 0 and "warning" not in err


def test_disable_prints_the_name_it_wrote_on_one_line_and_never_raw_escapes(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(["disable", "  alpha  "], capsys)
    assert code == 0 and out == f"alpha: disabled in {_user_config(isolated_home)}\n" and err == ""
    code, out, err = cli(["disable", "a\nb\x1b[31m"], capsys)
    assert code == 0 and out.startswith("'a\\nb\\x1b[31m': disabled in ") and out.count("\n") == 1
    assert "\x1b" not in out + err


def test_enable_disable_trust_and_untrust_print_json(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(["disable", "beta", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["skill"] == "beta" and data["current"] == "disabled"
    assert data["path"] == str(_user_config(isolated_home)) and data["changed"] and data["warnings"] == []
    data = json.loads(cli(["enable", "beta", "--mode", "pinned", "--json"], capsys)[1])
    assert data["previous"] == "disabled" and data["current"] == "pinned"
    data = json.loads(cli(["disable", "nosuch", "--json"], capsys)[1])
    assert data["warnings"] and "nosuch" in data["warnings"][0]["message"]
    data = json.loads(cli(["trust", "--json"], capsys)[1])
    assert data == {**data, "project": str(project), "trusted": True, "current": "trusted"}
    data = json.loads(cli(["untrust", "--json"], capsys)[1])
    assert data["trusted"] is False and data["previous"] == "trusted" and data["current"] == "untrusted"


def test_the_mcp_and_agent_load_skill_tools_say_where_a_skill_was_disabled(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillshelf.agent.session import AgentOptions, open_agent
    from skillshelf.context import ContextOptions
    from skillshelf.serve.loading import open_library
    from skillshelf.workspace import WorkspaceOptions

    cli(["disable", "beta"], capsys)
    env = Env.from_os()
    served = open_library(env, WorkspaceOptions(include_builtin=False, use_cache=False)).tools
    agent = open_agent(
        env,
        AgentOptions(
            model="openai:standin",
            api_key="x",
            base_url="http://127.0.0.1:9/v1",
            context=ContextOptions(include_builtin=False, suggestions=False, memory=False),
            write_transcript=False,
            record_usage=False,
        ),
    ).skill_tools
    assert agent is not None
    for tools in (served, agent):
        result = tools.dispatch("load_skill", {"name": "beta"})
        assert result.is_error and "SK405" in result.text
        assert f"{_user_config(isolated_home)}:1" in result.text and "skillshelf enable beta" in result.text
        assert not tools.dispatch("load_skill", {"name": "alpha"}).is_error


def test_a_mention_of_a_disabled_skill_warns_and_loads_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(["disable", "beta"], capsys)
    code, out, err = cli(["context", "use $beta and $alpha", "--no-builtin", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["mentioned"] == ["alpha"]
    assert any("mentions $beta" in w and "skillshelf enable beta" in w for w in data["warnings"])
    assert "mentions $beta" in err
    assert os.sep in err  # the warning names the config file


def test_list_reports_a_missing_required_skill_and_exits_1_after_listing_the_rest(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    _user_config(isolated_home).parent.mkdir(parents=True, exist_ok=True)
    _user_config(isolated_home).write_text('[requirements]\nrequired_skills = ["nosuch"]\n', encoding="utf-8")
    code, out, err = cli(["list", "--no-builtin"], capsys)
    assert code == 1 and "SK410" in err and "'nosuch'" in err
    assert {line.split("\t")[0] for line in out.splitlines()} == {"alpha", "beta", "delta"}
    _user_config(isolated_home).write_text('[requirements]\nrequired_skills = ["alpha"]\n', encoding="utf-8")
    code, _, err = cli(["list", "--no-builtin"], capsys)
    assert code == 0 and "SK410" not in err
