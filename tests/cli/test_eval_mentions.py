"""`eval --selector default` judges a query that mentions a skill as `context` treats it: the
mentioned skill is loaded whole whatever its rank (a `relevant` one passes the query, a
`not_relevant` one fails it) and the other skills are ranked with it left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli

SKILLS = {
    "pdf-forms": "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields.",
    "pdf-merge": "Merge, split and reorder pages of PDF files. Use when a task combines or splits PDFs.",
    "image-resize": "Resize, crop and convert images (PNG, JPEG, WebP) in bulk.",
    "git-release": "Prepare a release: bump the version, write the changelog, tag and push with git.",
    "sql-migrations": "Write and apply database schema migrations for PostgreSQL and SQLite.",
}
PDF_TASK = "fill in the PDF form fields of tax.pdf, then flatten the PDF form"


def _skill(root: Path, name: str, extra: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {SKILLS[name]}\n{extra}---\n# {name}\nSteps.\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def library(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    skills = tmp_path / "skills"
    for name in SKILLS:
        _skill(skills, name)
    return skills


def _eval(
    capsys: pytest.CaptureFixture[str], library: Path, rows: list[dict[str, object]], *args: str
) -> tuple[int, str]:
    """Run ``rows`` (labels name skills of ``library``) with the default selector."""
    queries = library / "evals.jsonl"
    queries.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    argv = ["eval", "--queries", str(queries), "--root", str(library), "--selector", "default"]
    code, out, _ = cli([*argv, "--no-semantic", *args], capsys)
    return code, out


def _lines(out: str) -> dict[int, str]:
    return {int(x.split()[2].rstrip(":")): x for x in out.splitlines() if x.startswith(("PASS", "FAIL"))}


def test_a_query_that_mentions_a_relevant_skill_passes_on_it_whatever_its_rank(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pdf-forms outranks git-release on this text: only the mention puts git-release in the context
    rows: list[dict[str, object]] = [{"query": f"{PDF_TASK} ($git-release)", "relevant": ["git-release"]}]
    code, out = _eval(capsys, library, rows, "--k", "1")
    assert code == 0, out
    line = _lines(out)[1]
    assert line.startswith("PASS line 1") and "git-release mentioned: loaded whole" in line
    assert "rank" not in line.partition("(")[2]

    code, out = _eval(capsys, library, rows, "--k", "1", "--json")
    (result,) = json.loads(out)["outcomes"]
    folder = str(library / "git-release")
    assert code == 0 and result["passed"] and result["rank"] is None and not result["missed"]
    assert result["mentioned"] == [{"skill": folder, "why": "mentioned: loaded whole", "trusted": True}]
    assert json.loads(out)["selectors"][0]["recall@1"] == 1.0


def test_a_query_that_mentions_a_not_relevant_skill_fails_saying_it_is_loaded_whole(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ranked, pdf-forms comes second to image-resize: with --k 1 only the mention triggers it
    rows: list[dict[str, object]] = [
        {
            "query": "use $pdf-forms to resize these PNG images in bulk",
            "relevant": ["image-resize"],
            "not_relevant": ["pdf-forms"],
        }
    ]
    code, out = _eval(capsys, library, rows, "--k", "1")
    line = _lines(out)[1]
    assert code == 1 and line.startswith("FAIL line 1")
    assert "rank 1" in line and "pdf-forms mentioned: loaded whole" in line
    assert f"should not trigger: {library / 'pdf-forms'}" in line
    assert "1 false trigger(s)" in out

    code, out = _eval(capsys, library, rows, "--k", "1", "--json")
    report = json.loads(out)
    (result,) = report["outcomes"]
    folder = str(library / "pdf-forms")
    assert code == 1 and not result["passed"] and result["false_triggers"] == [folder]
    assert result["mentioned"] == [{"skill": folder, "why": "mentioned: loaded whole", "trusted": True}]
    assert report["selectors"][0]["false_trigger@5"] == 1.0


def test_the_other_skills_are_ranked_with_the_mentioned_one_left_out(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = "use $pdf-forms to fill this PDF form, then merge the PDF files into one"
    rows: list[dict[str, object]] = [
        {"query": task, "relevant": ["pdf-merge"]},  # second to pdf-forms, first of the rest
        {"query": task, "relevant": ["git-release"]},  # the mention passes no other skill
    ]
    code, out = _eval(capsys, library, rows, "--k", "1")
    lines = _lines(out)
    assert code == 1
    assert lines[1].startswith("PASS line 1") and "(rank 1)" in lines[1]
    assert (
        lines[2].startswith("FAIL line 2") and "no relevant skill among the suggestions (top 1)" in lines[2]
    )

    code, out = _eval(capsys, library, rows, "--k", "1", "--json")
    ranked = json.loads(out)["selectors"][0]["ranked"][0]
    assert ranked[:2] == [str(library / "pdf-forms"), str(library / "pdf-merge")]  # as the model is shown


def test_a_skill_hidden_from_the_model_passes_a_query_that_mentions_it(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _skill(library, "pdf-forms", "disable-model-invocation: true\n")
    rows: list[dict[str, object]] = [
        {"query": PDF_TASK, "relevant": ["pdf-forms"]},
        {"query": f"{PDF_TASK} with $pdf-forms", "relevant": ["pdf-forms"]},
    ]
    code, out = _eval(capsys, library, rows)
    lines = _lines(out)
    assert code == 1 and lines[1].startswith("FAIL line 1") and "is never suggested" in lines[1]
    assert lines[2].startswith("PASS line 2") and "pdf-forms mentioned: loaded whole" in lines[2]


def test_eval_for_claude_code_never_counts_a_skill_its_skill_overrides_keep_from_the_model(
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skills = repo / ".agents" / "skills"
    for name in SKILLS:
        _skill(skills, name)
    (repo / ".claude" / "skills").mkdir(parents=True)
    (repo / ".claude" / "skills" / "pdf-forms").symlink_to(skills / "pdf-forms", target_is_directory=True)
    settings = {"skillOverrides": {"pdf-forms": "off"}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    monkeypatch.chdir(repo)
    queries = tmp_path / "evals.jsonl"
    queries.write_text(
        json.dumps({"query": PDF_TASK, "relevant": [str(skills / "pdf-forms")]}) + "\n", encoding="utf-8"
    )
    argv = ["eval", "--queries", str(queries), "--selector", "default", "--no-semantic"]

    code, out, _ = cli([*argv, "--profile", "codex"], capsys)
    assert code == 0 and _lines(out)[1].startswith("PASS line 1")
    code, out, _ = cli([*argv, "--profile", "claude"], capsys)
    line = _lines(out)[1]
    assert code == 1 and line.startswith("FAIL line 1")
    assert "pdf-forms is never suggested (kept from the model by skillOverrides" in line
