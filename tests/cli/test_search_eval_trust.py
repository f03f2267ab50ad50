"""`search --json` and `eval --json` say which skills come from a project you have not trusted,
as `list`, `load` and `deps` do: each search row carries ``trusted``, and eval names them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli

TASK = "fill the fields of this PDF form"


def _skill(root: Path, name: str, description: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nUse pypdf.\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An untrusted repository (the cwd) with pdf-forms, and the user's own pdf-merge."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _skill(repo / ".agents" / "skills", "pdf-forms", "Fill and extract the fields of PDF forms.")
    _skill(isolated_home.home / ".agents" / "skills", "pdf-merge", "Merge PDF files and fill PDF pages.")
    monkeypatch.chdir(repo)
    return repo


def test_search_json_rows_say_whether_their_project_is_trusted(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(["search", "--json", "--no-builtin", TASK], capsys)
    assert code == 0, err
    trusted = {row["name"]: row["trusted"] for row in json.loads(out)["results"]}
    assert trusted == {"pdf-forms": False, "pdf-merge": True}


def test_eval_json_names_the_untrusted_skills_it_ranks_and_marks_a_mentioned_one(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forms = project / ".agents" / "skills" / "pdf-forms"
    queries = tmp_path / "q.jsonl"
    lines = [{"query": TASK, "relevant": [str(forms)]}, {"query": "use $pdf-forms", "relevant": [str(forms)]}]
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, out, err = cli(
        ["eval", "--json", "--no-builtin", "--selector", "default", "--queries", str(queries)], capsys
    )
    data = json.loads(out)
    assert data["untrusted"] == [str(forms)], err
    [mentioned] = [m for o in data["outcomes"] for m in o["mentioned"]]
    assert mentioned == {**mentioned, "skill": str(forms), "trusted": False}
