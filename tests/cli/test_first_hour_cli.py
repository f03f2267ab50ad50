"""What a new user meets in the first hour: typos get suggestions, missing paths are named,
`-c` works on `catalog` and `instructions` as on `context`, tables stay readable at 80 columns,
one problem is reported once, and `context` says when it suggests no skill."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skillshelf.cli.output import STDIN_TEXT_BYTES
from testkit import IsolatedHome
from testkit import run_cli as cli


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: does {name} things\n---\n", encoding="utf-8"
    )


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "a-rather-long-folder-name" / "another-long-folder-name" / "repo"
    (repo / ".git").mkdir(parents=True)
    for name in ("alpha", "beta"):
        _skill(repo / ".agents" / "skills" / name, name)
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    ("args", "typo", "suggestion"),
    [
        (["lsit"], "lsit", "'list'"),
        (["memory", "rnu"], "rnu", "'run'"),
        (["config", "shwo"], "shwo", "'show'"),
        (["isntall", "x"], "isntall", "'install'"),
    ],
)
def test_a_mistyped_command_gets_the_closest_names(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], typo: str, suggestion: str
) -> None:
    code, _, err = cli(args, capsys)
    assert code == 2 and f"No such command '{typo}'. Did you mean {suggestion}?" in err


def test_a_command_nothing_resembles_gets_no_guess(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(["xyzzy"], capsys)
    assert code == 2 and "No such command 'xyzzy'." in err and "Did you mean" not in err


def test_lint_arch_on_a_missing_path_says_it_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(["lint-arch", str(tmp_path / "nonexistent")], capsys)
    assert code == 1 and f"AR012: {tmp_path / 'nonexistent'} does not exist" in err


def test_catalog_takes_config_overrides_like_context(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(["catalog", "--no-builtin", "--json"], capsys)
    assert code == 0 and "beta" in json.loads(out)["text"]
    disable = 'skills.config=[{name = "beta", mode = "disabled"}]'
    code, out, _ = cli(["catalog", "--no-builtin", "--json", "-c", disable], capsys)
    text = json.loads(out)["text"]
    assert code == 0 and "alpha" in text and "beta" not in text
    code, _, err = cli(["catalog", "--no-builtin", "-c", "catalog.budget_tokens=oops"], capsys)
    assert "CF102" in err and "catalog.budget_tokens" in err


def test_instructions_take_config_and_overrides_like_context(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "AGENTS.md").write_text("project rules, long enough to be cut\n", encoding="utf-8")
    (project / "CLAUDE.md").write_text("claude rules\n", encoding="utf-8")
    data = json.loads(cli(["instructions", "--json", "-c", "instructions.max_bytes=10"], capsys)[1])
    assert data["layers"][0]["bytes_cut"] > 0
    code, out, _ = cli(["instructions", "--raw", "-c", "instructions.profile=claude"], capsys)
    assert code == 0 and "claude rules" in out and "project rules" not in out
    code, out, _ = cli(
        ["instructions", "--raw", "--profile", "codex", "-c", "instructions.profile=claude"], capsys
    )
    assert "project rules" in out


def test_a_fallback_name_given_to_instructions_is_tried_after_codexs_own(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    config = isolated_home.codex_home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('project_doc_fallback_filenames = ["TEAM.md"]\n', encoding="utf-8")
    (project / "TEAM.md").write_text("team rules\n", encoding="utf-8")
    code, out, _ = cli(["instructions", "--raw", "--fallback", "NOTES.md"], capsys)
    assert code == 0 and "team rules" in out
    (project / "TEAM.md").unlink()
    (project / "NOTES.md").write_text("notes rules\n", encoding="utf-8")
    code, out, _ = cli(["instructions", "--raw", "--fallback", "NOTES.md"], capsys)
    assert code == 0 and "notes rules" in out


def test_the_instructions_table_tells_files_apart_at_80_columns(
    project: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    deep = project / "packages" / "frontend" / "src"
    deep.mkdir(parents=True)
    isolated_home.codex_home.mkdir(parents=True, exist_ok=True)
    for folder in (
        isolated_home.codex_home,
        project,
        project / "packages",
        project / "packages" / "frontend",
        deep,
    ):
        (folder / "AGENTS.md").write_text("rules\n", encoding="utf-8")
    monkeypatch.chdir(deep)
    code, out, _ = cli(["instructions"], capsys)
    table = out.split("Block given to the model")[0]
    assert code == 0 and max(len(line) for line in table.splitlines()) <= 80
    cells = "".join(line.split("│")[3].strip() for line in table.splitlines() if line.count("│") > 3)
    for shown in ("~/.codex/AGENTS.md", "AGENTS.md", "packages/AGENTS.md", "packages/frontend/src/AGENTS.md"):
        assert shown in cells
    assert "…" not in table and str(project) not in table


def test_a_skill_below_codexs_depth_is_reported_once_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _skill(tmp_path / "skills" / "a" / "b" / "c" / "d" / "e" / "f" / "seven", "seven")
    code, out, _ = cli(["validate", "--json", str(tmp_path / "skills")], capsys)
    found = [d for d in json.loads(out)["diagnostics"] if d["path"].endswith("seven/SKILL.md")]
    assert code == 1 and [d["code"] for d in found] == ["SK355"]


def test_context_says_when_no_skill_is_suggested_and_where_to_see_why(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    _skill(project / ".agents" / "skills" / "pdf-merge", "pdf-merge")
    code, out, _ = cli(["context", "--no-builtin", "write me a haiku about autumn"], capsys)
    assert code == 0 and "no skill suggested for this task" in out
    assert "skillshelf search 'write me a haiku about autumn'" in out
    code, out, _ = cli(["context", "--no-builtin", "merge two pdf files with pdf-merge"], capsys)
    assert code == 0 and "Relevant skills for this task" in out and "no skill suggested" not in out
    code, out, _ = cli(["context", "--no-builtin", "--no-suggestions", "write me a haiku"], capsys)
    assert "no skill suggested" not in out


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_a_task_of_dash_is_read_from_stdin(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, "a long issue text:\nalpha things go wrong \xe9\n".encode())
    code, out, err = cli(["context", "-", "--json", "--no-builtin"], capsys)
    assert code == 0, err
    assert json.loads(out)["task"] == "a long issue text:\nalpha things go wrong \xe9"


def test_a_task_on_stdin_over_a_megabyte_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, b"x" * (STDIN_TEXT_BYTES + 1))
    code, _, err = cli(["search", "-", "--no-builtin"], capsys)
    assert code == 2 and "over 1,048,576 bytes" in err
