"""`skillshelf list`, `validate`, `catalog` and `load` through click, with an isolated HOME."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from skillshelf.cli.main import cli
from testkit import CORPORA, shared_path


def run(args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)


def exit_code_of(args: list[str], cwd: Path) -> object:
    """Run the real entry point (where errors become messages and exit codes)."""
    from skillshelf.cli.main import main

    old = Path.cwd()
    os.chdir(cwd)
    try:
        with pytest.raises(SystemExit) as caught:
            main(args)
    finally:
        os.chdir(old)
    return caught.value.code


def write_skill(
    folder: Path, name: str, description: str = "Turns merged pull requests into release notes."
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo it step by step.\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def project(tmp_path: Path, isolated_home: Any) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skills = repo / ".agents" / "skills"
    write_skill(skills / "release-notes", "release-notes")
    write_skill(skills / "code-review", "code-review", "Reviews a diff for bugs.")
    scripts = skills / "code-review" / "scripts"
    scripts.mkdir()
    (scripts / "lint.sh").write_text("echo hi\n", encoding="utf-8")
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text("no frontmatter here\n", encoding="utf-8")
    return repo


def test_list_json_is_a_list_of_skills_and_problems_go_to_stderr(project: Path) -> None:
    result = run(["list", "--json", "--no-builtin"], cwd=project)
    assert result.exit_code == 0
    rows = [r for r in json.loads(result.stdout) if r["path"].startswith(str(project))]
    assert [r["name"] for r in rows] == ["code-review", "release-notes"]
    assert rows[0]["scope"] == "repo"
    assert "SK101" in result.stderr


def _on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``list`` run as if stdout were a terminal (click's runner gives it a pipe)."""
    from skillshelf.cli import skills_cmds

    monkeypatch.setattr(skills_cmds, "stdout_is_terminal", lambda: True)


def test_list_table_shows_name_scope_origin_and_path(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _on_a_terminal(monkeypatch)
    result = run(["list", "--no-builtin"], cwd=project, env={"COLUMNS": "160"})
    assert result.exit_code == 0
    assert "release-notes" in result.stdout and "agents-repo" in result.stdout and "SKILL.md" in result.stdout
    assert "┃ name" in result.stdout


def _deep_skills(project: Path) -> list[str]:
    names = ["invoice-reconciliation", "k8s", "release-notes-for-merged-prs"]
    for name in names:
        write_skill(project / ".agents" / "skills" / "platform" / "shared" / name, name, "Does it. " * 12)
    return names


def _table_rows(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("│")]


def test_list_piped_prints_each_skill_on_one_line(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = _deep_skills(project)
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = run(["list", "--no-builtin"], cwd=project).stdout.splitlines()
    for name in names:  # `skillshelf list | grep NAME` finds its whole line
        [line] = [r for r in lines if name in r]
        assert line.split("\t")[5].endswith(f"{name}/SKILL.md")


def test_list_in_an_80_column_terminal_crops_nothing_and_keeps_rows_short(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _on_a_terminal(monkeypatch)
    names = _deep_skills(project)
    rows = _table_rows(run(["list", "--no-builtin"], cwd=project, env={"COLUMNS": "80"}).stdout)
    assert rows and all(len(r) <= 80 and r.endswith("│") for r in rows)
    assert len(rows) <= 4 * (len(names) + 2)


def test_list_takes_extra_roots(project: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "extra" / "shipping", "shipping")
    result = run(["list", "--json", "--no-builtin", "--root", str(tmp_path / "extra")], cwd=project)
    assert "shipping" in [r["name"] for r in json.loads(result.stdout)]


def test_list_says_when_two_skills_share_a_name_after_the_errors(project: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "extra" / "release-notes", "release-notes", "Another release notes skill.")
    result = run(["list", "--no-builtin", "--root", str(tmp_path / "extra")], cwd=project)
    assert "SK220" in result.stderr and "2 skills are named 'release-notes'" in result.stderr
    assert result.stderr.index("SK101") < result.stderr.index("SK220")  # the worst first
    assert "more finding(s)" not in result.stderr


def test_context_counts_the_problems_in_skill_files_but_not_their_notes(
    project: Path, tmp_path: Path
) -> None:
    write_skill(tmp_path / "extra" / "release-notes", "release-notes", "Another release notes skill.")
    extra = ["--no-builtin", "--root", str(tmp_path / "extra")]
    broken = run(["context", "write release notes", *extra], cwd=project)
    assert "1 problem(s) in skill files (1 error(s))" in broken.stderr  # SK101; SK220 is a note
    (project / ".agents" / "skills" / "broken" / "SKILL.md").unlink()
    quiet = run(["context", "write release notes", *extra], cwd=project)
    assert "in skill files" not in quiet.stderr


def test_validate_json_prints_exactly_checked_and_diagnostics_and_exits_1_on_errors(project: Path) -> None:
    result = run(["validate", "--json", str(project / ".agents" / "skills")])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert set(data) == {"checked", "diagnostics"}
    assert data["checked"] == 3
    [diag] = data["diagnostics"]
    assert {"path", "code", "severity", "message", "fix"} <= set(diag)
    assert (diag["code"], diag["severity"]) == ("SK101", "error")


def test_validate_clean_skill_exits_0_with_a_summary(project: Path) -> None:
    result = run(["validate", "--profile", "spec", str(project / ".agents" / "skills" / "release-notes")])
    assert result.exit_code == 0, result.stdout
    assert "1 skill file(s) checked" in result.stdout


def test_validate_without_a_path_checks_the_roots_the_agent_scans_from_here(
    project: Path, isolated_home: Any
) -> None:
    write_skill(isolated_home.codex_home / "skills" / "deploy", "deploy")
    write_skill(isolated_home.home / ".claude" / "skills" / "triage", "triage")
    (project / "src").mkdir()
    codex = json.loads(run(["validate", "--json"], cwd=project / "src").stdout)
    claude = json.loads(run(["validate", "--json", "--profile", "claude"], cwd=project).stdout)
    both = json.loads(run(["validate", "--json", "--profile", "spec"], cwd=project).stdout)
    assert (codex["checked"], claude["checked"], both["checked"]) == (4, 1, 5)
    assert [d["code"] for d in codex["diagnostics"]] == ["SK101"]  # the project's broken skill


def test_validate_without_a_path_where_no_agent_finds_a_skill_says_so(
    tmp_path: Path, isolated_home: Any
) -> None:
    (tmp_path / "empty" / ".agents" / "skills").mkdir(parents=True)  # an empty root is no finding
    result = run(["validate"], cwd=tmp_path / "empty")
    assert result.exit_code == 0
    assert "no skill folders here" in result.stderr and result.stdout == ""
    as_json = run(["validate", "--json", "--profile", "claude"], cwd=tmp_path / "empty")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == {"checked": 0, "diagnostics": []}


def test_validate_bad_profile_is_a_usage_error(project: Path) -> None:
    assert run(["validate", "--profile", "nope", str(project)]).exit_code == 2


def test_catalog_prints_only_the_model_text_on_stdout(project: Path) -> None:
    result = run(["catalog", "--no-builtin", "--context-window", "400000"], cwd=project)
    assert result.exit_code == 0
    assert result.stdout.startswith("<skills_instructions>")
    # the test project is not trusted: its root carries the tag
    assert "- release-notes: Turns merged pull requests into release notes. (file: r0/" in result.stdout
    assert "/.agents/skills` [untrusted project]: every skill under this root\n" in result.stdout
    assert "catalog:" not in result.stdout and "catalog: 2 of 2" in result.stderr


def test_catalog_formats_and_budgets(project: Path) -> None:
    xml = run(["catalog", "--no-builtin", "--format", "xml"], cwd=project)
    assert "<available_skills>" in xml.stdout
    tight = run(
        ["catalog", "--no-builtin", "--format", "markdown", "--budget-chars", "60", "--json"], cwd=project
    )
    report = json.loads(tight.stdout)["report"]
    assert report["truncated_chars"] > 0 or report["omitted"] > 0
    assert exit_code_of(["catalog", "--budget-chars", "10", "--budget-tokens", "10"], project) == 2


def test_load_prints_the_fragment_and_lists_files_on_stderr(project: Path) -> None:
    result = run(["load", "code-review", "--no-builtin"], cwd=project)
    assert result.exit_code == 0
    note, fragment = result.stdout.split("\n\n", 1)  # the project is not trusted: a note comes first
    assert "not trusted" in note and fragment.startswith("<skill>\n<name>code-review</name>\n<path>")
    assert "scripts/lint.sh" in result.stderr
    data = json.loads(run(["load", "code-review", "--json", "--no-builtin"], cwd=project).stdout)
    assert data["files"] == ["scripts/lint.sh"]


def test_load_unknown_name_fails_with_close_matches(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code_of(["load", "code-reveiw", "--no-builtin"], project) == 1
    err = capsys.readouterr().err
    assert "SK404" in err and "did you mean 'code-review'" in err


@pytest.mark.parametrize("path", ["../skills/code-review", "../skills/code-review/SKILL.md"])
def test_load_takes_the_relative_path_of_a_skill_folder_or_file(project: Path, path: str) -> None:
    here = project / ".agents" / "other"
    here.mkdir()
    data = json.loads(run(["load", path, "--json", "--no-builtin"], cwd=here).stdout)
    assert data["name"] == "code-review" and data["files"] == ["scripts/lint.sh"]


def test_load_of_a_path_that_is_no_skill_names_the_path_as_given(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code_of(["load", ".agents/skills/broken", "--no-builtin"], project) == 1
    assert "SK407: cannot load '.agents/skills/broken'" in capsys.readouterr().err


@pytest.mark.parametrize("path", ["./pdf-forms", "pdf-forms/SKILL.md", "drafts/../pdf-forms"])
def test_load_reads_a_skill_folder_outside_the_scanned_roots_by_its_path(project: Path, path: str) -> None:
    write_skill(project / "pdf-forms", "pdf-forms", "Fills PDF forms.")
    (project / "drafts").mkdir()

    data = json.loads(run(["load", path, "--json", "--no-builtin"], cwd=project).stdout)

    assert (data["name"], data["path"]) == ("pdf-forms", str(project / "pdf-forms" / "SKILL.md"))
    assert (data["scope"], data["trusted"]) == ("repo", False)  # the untrusted project's own


def test_load_by_path_outside_the_project_is_the_users_own(project: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "elsewhere" / "pdf-forms", "pdf-forms", "Fills PDF forms.")

    result = run(["load", str(tmp_path / "elsewhere" / "pdf-forms"), "--no-builtin"], cwd=project)

    assert result.exit_code == 0 and result.stdout.startswith("<skill>\n<name>pdf-forms</name>")


@pytest.mark.parametrize(
    ("path", "why"),
    [("./nowhere", "nothing is there"), ("empty", "holds no SKILL.md"), ("notes.txt", "it is a file")],
)
def test_load_of_a_path_that_is_not_a_skill_says_why(
    project: Path, capsys: pytest.CaptureFixture[str], path: str, why: str
) -> None:
    (project / "empty").mkdir()
    (project / "notes.txt").write_text("hi\n", encoding="utf-8")

    assert exit_code_of(["load", path, "--no-builtin"], project) == 1
    err = capsys.readouterr().err
    assert f"SK404: no skill at the path {path!r}" in err and why in err


def test_validate_json_over_the_corpora_explains_every_skill_it_would_not_load() -> None:
    shared_path("corpora")
    from skillshelf.skills.discover import ScanLimits, discover_in

    result = run(["validate", "--json", str(CORPORA)])
    assert result.exit_code in (0, 1)
    data = json.loads(result.stdout)
    errors = {
        os.path.realpath(d["path"]) for d in data["diagnostics"] if d["severity"] == "error" and d["path"]
    }
    loaded = {
        os.path.realpath(s.path)
        for s in discover_in([CORPORA], limits=ScanLimits(max_dirs=10**6, max_entries=10**7)).skills
    }
    files = [
        os.path.realpath(os.path.join(folder, name))
        for folder, _, names in os.walk(CORPORA)
        for name in names
        if name.lower() == "skill.md"
    ]
    assert data["checked"] == len(files)
    unexplained = [f for f in files if f not in loaded and f not in errors]
    assert unexplained == []
    assert errors.isdisjoint(loaded)
    by_code = {d["code"] for d in data["diagnostics"] if d["severity"] == "error"}
    assert {"SK101", "SK104", "SK353", "SK354"} <= by_code  # no frontmatter, broken YAML, skill.md, hidden


def test_list_shows_where_installed_skills_came_from(tmp_path: Path, isolated_home, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from skillshelf.install import install_skill

    source = tmp_path / "src-skill" / "greeter"
    source.mkdir(parents=True)
    (source / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Greets people politely.\n---\nSay hi.\n", encoding="utf-8"
    )
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    from skillshelf.env import Env

    install_skill(str(source), env=Env.from_os(), scope="project")
    listed = json.loads(CliRunner().invoke(cli, ["list", "--json", "--no-builtin"]).output)
    (entry,) = [s for s in listed if s["name"] == "greeter"]
    assert (
        entry["installed"]["source"].endswith("greeter") and entry["installed"]["locally_modified"] is False
    )
    (project / ".agents" / "skills" / "greeter" / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Greets people rudely.\n---\n", encoding="utf-8"
    )
    listed = json.loads(CliRunner().invoke(cli, ["list", "--json", "--no-builtin"]).output)
    assert [s for s in listed if s["name"] == "greeter"][0]["installed"]["locally_modified"] is True


def test_skills_installed_for_the_user_are_discovered(tmp_path: Path, isolated_home, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "pkg" / "weekly-report"
    source.mkdir(parents=True)
    (source / "SKILL.md").write_text(
        "---\nname: weekly-report\ndescription: Write the weekly report.\n---\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    installed = CliRunner().invoke(cli, ["install", str(source), "--scope", "user", "--for", "skillshelf"])
    assert installed.exit_code == 0, installed.output
    listed = json.loads(CliRunner().invoke(cli, ["list", "--json", "--no-builtin"]).output)
    (entry,) = [s for s in listed if s["name"] == "weekly-report"]
    assert entry["origin"] == "installed" and entry["installed"]["source"].endswith("weekly-report")
    assert entry["installed"]["agents"] == []  # skillshelf's own folder: no agent reads it
