"""What `catalog`, `context` and `config show` say about the config's guards: skills withheld
under a system config that cannot be read (nothing on stdout), an untrusted project's ignored
config (CF109 on stderr), keys with a dot in `--explain`, the system folder moved by the
environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli


@pytest.fixture(autouse=True)
def _work(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project as the cwd, with the user skill ``alpha``; the system layer in ``tmp_path/etc``."""
    skill = isolated_home.home / ".agents" / "skills" / "alpha" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: alpha\ndescription: alpha skill desc\n---\nbody\n", encoding="utf-8")
    (tmp_path / "etc").mkdir()
    monkeypatch.setenv("SKILLSHELF_SYSTEM_CONFIG_DIR", str(tmp_path / "etc"))
    monkeypatch.setenv("COLUMNS", "250")
    work = tmp_path / "p"
    (work / ".git").mkdir(parents=True)
    monkeypatch.chdir(work)
    return work


def _broken_system(tmp_path: Path) -> Path:
    path = tmp_path / "etc" / "config.toml"
    path.write_text('[requirements]\ndisabled_skills = ["alpha"]\nmax_catalog_tokens = \n', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "args",
    [["catalog"], ["catalog", "--json"], ["context", "use alpha"], ["list"], ["load", "alpha"], ["deps"]],
)
def test_catalog_and_context_print_nothing_while_the_system_config_does_not_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    path = _broken_system(tmp_path)
    code, out, err = cli(args, capsys)
    assert code == 1 and out == ""
    assert "CF118" in err and str(path) in err and "alpha" not in err


def test_disable_while_skills_are_withheld_writes_the_entry_and_says_why_none_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _broken_system(tmp_path)
    code, out, err = cli(["disable", "alpha"], capsys)
    assert code == 0 and "alpha: disabled" in out
    assert "CF118" in err and "no skill named" not in err


def test_catalog_and_context_note_an_untrusted_projects_ignored_config(
    _work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (_work / ".skillshelf").mkdir()
    (_work / ".skillshelf" / "config.toml").write_text('[catalog]\nformat = "xml"\n', encoding="utf-8")
    code, plain, _ = cli(["catalog"], capsys)
    for args in (["catalog"], ["context", "hello"]):
        code, out, err = cli(args, capsys)
        assert code == 0 and "CF109" in err and "skillshelf trust" in err, err
    assert "CF109" not in plain


def test_config_show_explain_gives_the_value_of_a_key_with_a_dot(
    isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_home.config / "skillshelf").mkdir(parents=True)
    (isolated_home.config / "skillshelf" / "config.toml").write_text(
        '[mcp_servers."docs.local"]\ncommand = "docs-server"\n', encoding="utf-8"
    )
    code, out, _ = cli(["config", "show", "--explain"], capsys)
    row = next(line for line in out.splitlines() if "docs.local" in line and "command" in line)
    assert 'mcp_servers."docs.local".command' in row and '"docs-server"' in row and "null" not in row
    code, out, _ = cli(["config", "show", "--explain", "--json"], capsys)
    assert 'mcp_servers."docs.local".command' in json.loads(out)["provenance"]


def test_config_show_says_the_system_folder_was_moved_by_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(["config", "show"], capsys)
    system_row = next(line for line in out.splitlines() if line.startswith("│ system"))
    assert "SKILLSHELF_SYSTEM_CONFIG_DIR" in system_row
    assert "CF121" in err and "SKILLSHELF_SYSTEM_CONFIG_DIR" in err
