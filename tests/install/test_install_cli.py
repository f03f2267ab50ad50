"""The install / update / remove / deps commands end to end through `skillshelf`."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from install_helpers import commit_all, init_repo, write_skill
from install_helpers import run_cli as _run

from testkit import IsolatedHome, zip_with

OPENAI_YAML = """dependencies:
  tools:
    - type: mcp
      value: issue-tracker
      description: Issue tracker
      transport: streamable_http
      url: https://mcp.example.com/issues
"""


def test_install_update_remove_round_trip_with_json(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    repo = init_repo(tmp_path / "up")
    write_skill(repo / "triage", "triage", body="first")
    commit_all(repo, "one")
    installed = _run(tmp_path, "install", f"{repo.as_uri()}#triage", "--json")
    assert installed.returncode == 0, installed.stderr
    data = json.loads(installed.stdout)
    assert data["name"] == "triage" and data["lock"]["commit"]
    assert Path(data["path"]).is_dir()

    write_skill(repo / "triage", "triage", body="second")
    commit_all(repo, "two")
    updated = _run(tmp_path, "update", "--json")
    assert updated.returncode == 0, updated.stderr
    assert [r["status"] for r in json.loads(updated.stdout)["results"]] == ["updated"]

    people = _run(tmp_path, "update")
    assert "up-to-date" in people.stdout

    write_skill(repo / "triage", "triage", body="third")
    commit_all(repo, "three")
    checked = _run(tmp_path, "update", "--check")
    assert checked.returncode == 0 and "available" in checked.stdout
    assert "second" in (Path(data["path"]) / "SKILL.md").read_text(encoding="utf-8")

    removed = _run(tmp_path, "remove", "triage")
    assert removed.returncode == 0 and "Removed triage" in removed.stdout
    assert not Path(data["path"]).exists()


def test_failed_validation_prints_diagnostics_and_exits_1(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: bad\n---\n", encoding="utf-8")
    proc = _run(tmp_path, "install", str(bad))
    assert proc.returncode == 1
    assert "error IS320" in proc.stderr and "fix:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_failed_archive_install_names_the_files_as_in_the_archive_not_the_staging_folder(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    text = b"---\nname: notes\ndescription: d\n---\n"
    archive = zip_with(
        tmp_path / "notes.zip", [("notes/SKILL.md", text, None), ("notes/skill.md", text, None)]
    )
    proc = _run(tmp_path, "install", str(archive), "--json")
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stdout)
    assert error["code"] == "IS320" and "SK353" in error["message"]
    assert error["fix"].startswith("rename it: mv skill.md SKILL.md")
    assert ".skillshelf-tmp" not in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["install", "definitely-missing"], "IS101"),
        (["remove", "nothing-here"], "IS404"),
        (["install", "x", "--scope", "galaxy"], None),
    ],
)
def test_bad_input_gives_a_message_and_no_traceback(
    tmp_path: Path, isolated_home: IsolatedHome, args: list[str], code: str | None
) -> None:
    proc = _run(tmp_path, *args)
    assert proc.returncode == (1 if code else 2)
    assert "Traceback" not in proc.stderr
    if code:
        assert f"error {code}" in proc.stderr


def test_a_failed_install_with_json_prints_its_error_as_json_on_stdout(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    proc = _run(tmp_path, "install", str(tmp_path / "no-such-source"), "--json")
    assert proc.returncode == 1 and "error IS101" in proc.stderr
    error = json.loads(proc.stdout)
    assert error["code"] == "IS101" and error["message"] and error["fix"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--all", "{empty}"), "IS310"),
        (("{src}", "--all", "--name", "x"), "IS002"),
        (("{src}", "--name", ""), "IS003"),
    ],
)
def test_every_fatal_install_error_with_json_is_json_on_stdout(
    tmp_path: Path, isolated_home: IsolatedHome, args: tuple[str, ...], code: str
) -> None:
    (tmp_path / "empty").mkdir()
    write_skill(tmp_path / "src", "src")
    where = {"empty": tmp_path / "empty", "src": tmp_path / "src"}
    proc = _run(tmp_path, "install", "--json", *(arg.format_map(where) for arg in args))
    assert proc.returncode in (1, 2) and json.loads(proc.stdout)["code"] == code


def test_updating_an_installed_skill_and_a_typo_updates_the_one_and_hints_only_at_the_other(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = write_skill(tmp_path / "src" / "pdf", "pdf")
    assert _run(tmp_path, "install", str(source), "--for", "codex").returncode == 0
    updated = _run(tmp_path, "update", "pdf", "pdff")
    said = updated.stdout + updated.stderr
    assert updated.returncode == 1 and "pdff" in said and "IS404" in said
    assert "pdf is at" not in said  # the installed one is not blamed


def test_an_empty_name_is_a_usage_error_not_the_default_name(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    source = write_skill(tmp_path / "src" / "pdf", "pdf")
    proc = _run(tmp_path, "install", str(source), "--for", "codex", "--name", "")
    assert proc.returncode == 2 and "error IS003: --name is empty" in proc.stderr
    assert not (isolated_home.home / ".agents" / "skills").exists()


def test_removing_or_updating_a_skill_skillshelf_did_not_install_says_where_it_is(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    project = init_repo(tmp_path / "project")
    folder = write_skill(project / ".agents" / "skills" / "tracker", "tracker")
    removed = _run(project, "remove", "tracker")
    assert removed.returncode == 1 and "error IS404" in removed.stderr
    assert f"tracker is at {folder}" in removed.stderr and "skillshelf disable tracker" in removed.stderr
    assert (folder / "SKILL.md").is_file()
    updated = _run(project, "update", "writing-skills")
    assert updated.returncode == 1 and "writing-skills is built into skillshelf" in updated.stderr


def test_deps_lists_and_writes_missing_servers(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    project = init_repo(tmp_path / "project")
    skill = write_skill(project / ".agents" / "skills" / "tracker", "tracker")
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text(OPENAI_YAML, encoding="utf-8")
    wiki = write_skill(tmp_path / "wiki", "wiki")
    (wiki / "agents").mkdir()
    (wiki / "agents" / "openai.yaml").write_text(
        OPENAI_YAML.replace("issue-tracker", "wiki-search").replace("/issues", "/wiki"), encoding="utf-8"
    )
    assert _run(project, "install", str(wiki)).returncode == 0
    listed = _run(project, "deps", "--json", "--no-builtin", "--no-cache")
    assert listed.returncode == 1, listed.stderr
    report = json.loads(listed.stdout)
    assert report["missing"] == ["issue-tracker", "wiki-search"]
    shown = _run(project, "deps", "--no-builtin", "--no-cache").stdout
    assert "2 missing" in shown and "1 from a project you have not trusted" in shown
    assert _run(project, "trust").returncode == 0  # the tracker skill is the project's own
    no_codex = _run(project, "deps", "--write", "--no-builtin", "--no-cache")
    assert no_codex.returncode == 1 and "error IS506" in no_codex.stderr
    assert not isolated_home.codex_home.exists()  # no Codex folder made: Codex is not set up here
    isolated_home.codex_home.mkdir()
    written = _run(project, "deps", "--write", "--no-builtin", "--no-cache")
    assert written.returncode == 0, written.stderr
    assert "Added issue-tracker, wiki-search" in written.stdout and "claude mcp add" in written.stdout
    config = isolated_home.codex_home / "config.toml"
    ours = (isolated_home.config / "skillshelf" / "config.toml").read_text(encoding="utf-8")
    assert "mcp_servers" not in ours  # skillshelf's own config, which no agent reads for servers
    assert tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"]["issue-tracker"]["url"].endswith(
        "/issues"
    )
    again = _run(project, "deps", "tracker", "--json", "--no-builtin", "--no-cache")
    assert again.returncode == 0
    assert json.loads(again.stdout)["servers"][0]["status"] == "configured"
    typo = _run(project, "deps", "trackr", "--no-builtin", "--no-cache")
    assert typo.returncode == 1 and "SK404: no skill named 'trackr'" in typo.stderr
    assert "did you mean 'tracker'" in typo.stderr


def test_importing_the_install_and_archlint_commands_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, skillshelf.cli.install_cmds, skillshelf.cli.manage_cmds, skillshelf.cli.archlint_cmd, "
        "skillshelf.install.deps;"
        "print(','.join(m for m in ('rich', 'httpx', 'tomlkit', 'mcp') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, encoding="utf-8", timeout=60, check=True
    )
    assert proc.stdout.strip() == ""
