"""`eval --selector default` judges a skill pinned in config as the agents have it: in the context
of every session (never suggested per turn), so a query that needs it passes whatever the ranking
says and a query that must not pick it fails. The other selectors judge their ranking alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli

SKILLS = {
    "pdf-forms": "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields.",
    "image-resize": "Resize, crop and convert images (PNG, JPEG, WebP) in bulk.",
    "git-release": "Prepare a release: bump the version, write the changelog, tag and push with git.",
    "sql-migrations": "Write and apply database schema migrations for PostgreSQL and SQLite.",
}
PDF_TASK = "fill in the PDF form fields of tax.pdf, then flatten the PDF form"
PNG_TASK = "resize these PNG images in bulk and convert them to WebP"
UNRELATED = "book a table for two at an Italian restaurant on Friday"


@pytest.fixture
def skills(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (the cwd) with :data:`SKILLS`, pdf-forms pinned in the user's config."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    root = repo / ".agents" / "skills"
    for name, description in SKILLS.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nSteps.\n", encoding="utf-8"
        )
    isolated_home.write_user_config('[[skills.config]]\nname = "pdf-forms"\nmode = "pinned"\n')
    monkeypatch.chdir(repo)
    return root


def _eval(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rows: list[dict[str, object]], *args: str
) -> tuple[int, str]:
    queries = tmp_path / "evals.jsonl"
    queries.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    code, out, _ = cli(["eval", "--queries", str(queries), "--no-semantic", *args], capsys)
    return code, out


def _lines(out: str) -> dict[int, str]:
    return {int(x.split()[2].rstrip(":")): x for x in out.splitlines() if x.startswith(("PASS", "FAIL"))}


def test_a_pinned_relevant_skill_passes_even_when_nothing_would_be_suggested(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pinned = str(skills / "pdf-forms")
    rows: list[dict[str, object]] = [
        {"query": PDF_TASK, "relevant": [pinned]},
        {"query": UNRELATED, "relevant": [pinned]},  # below the threshold: no suggestion at all
    ]
    code, out = _eval(capsys, tmp_path, rows, "--selector", "default")
    lines = _lines(out)
    assert code == 0, out
    for line in (1, 2):
        assert lines[line].startswith(f"PASS line {line}")
        assert "pdf-forms pinned: always in context" in lines[line] and "never suggested" not in lines[line]
    assert "default: 2 of 2 queries passed (top 5); 0 missed, 0 false trigger(s)" in out

    code, out = _eval(capsys, tmp_path, rows, "--selector", "default", "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"]
    for result in report["outcomes"]:
        assert result["passed"] and not result["missed"] and result["rank"] is None
        assert result["pinned"] == [{"skill": pinned, "why": "pinned: always in context", "trusted": False}]
        assert result["never_suggested"] == [] and result["mentioned"] == []
    assert report["selectors"][0]["recall@1"] == 1.0


def test_a_pinned_not_relevant_skill_is_a_false_trigger_where_bm25f_judges_the_ranking_alone(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pinned, images = str(skills / "pdf-forms"), str(skills / "image-resize")
    rows: list[dict[str, object]] = [
        {"query": PNG_TASK, "relevant": [images], "not_relevant": [pinned]},
        {"query": PNG_TASK, "relevant": [images]},
        {"query": PNG_TASK, "relevant": [pinned]},
    ]
    code, out = _eval(capsys, tmp_path, rows, "--selector", "default", "--k", "1")
    lines = _lines(out)
    assert code == 1
    assert lines[1].startswith("FAIL line 1") and "rank 1" in lines[1]
    assert "pdf-forms pinned: always in context" in lines[1] and f"should not trigger: {pinned}" in lines[1]
    assert lines[2].startswith("PASS line 2") and "pinned" not in lines[2]  # unlabelled: no note
    assert lines[3].startswith("PASS line 3") and "pdf-forms pinned: always in context" in lines[3]
    assert "default: 2 of 3 queries passed (top 1); 0 missed, 1 false trigger(s)" in out

    code, out = _eval(capsys, tmp_path, rows, "--selector", "default", "--k", "1", "--json")
    report = json.loads(out)
    first, second, _ = report["outcomes"]
    assert code == 1 and not report["passed"]
    assert first["false_triggers"] == [pinned] and first["pinned"][0]["skill"] == pinned
    assert second["passed"] and second["pinned"] == []
    assert report["selectors"][0]["false_trigger@5"] == 1.0

    # bm25f ranks pdf-forms below image-resize for this task, pinned or not
    code, out = _eval(capsys, tmp_path, rows, "--selector", "bm25f", "--k", "1")
    lines = _lines(out)
    assert code == 1 and "pinned" not in out
    assert lines[1].startswith("PASS line 1") and lines[2].startswith("PASS line 2")
    assert lines[3].startswith("FAIL line 3") and "no relevant skill in the top 1" in lines[3]
    assert "bm25f: 2 of 3 queries passed (top 1); 1 missed, 0 false trigger(s)" in out


def test_a_pinned_skill_the_query_mentions_is_noted_as_pinned(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row: dict[str, object] = {"query": f"{PNG_TASK} with $pdf-forms", "relevant": [str(skills / "pdf-forms")]}
    code, out = _eval(capsys, tmp_path, [row], "--selector", "default", "--k", "1")
    line = _lines(out)[1]
    assert code == 0 and line.startswith("PASS line 1")
    assert "pdf-forms pinned: always in context" in line and "mentioned" not in line


def test_eval_help_says_which_selectors_count_pinned_skills(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["eval", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0 and '"pinned: always in context"' in text
    assert "Other selectors (bm25f...) judge their ranking alone, mentions and pins aside" in text


def test_eval_without_root_leaves_the_built_in_skills_out_with_no_builtin(
    skills: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "evals.jsonl"
    row = {"query": PNG_TASK, "relevant": [str(skills / "image-resize")]}
    queries.write_text(json.dumps(row) + "\n", encoding="utf-8")
    counts = []
    for extra in ((), ("--no-builtin", "--no-cache")):
        code, out, _ = cli(["eval", "--queries", str(queries), "--no-semantic", "--json", *extra], capsys)
        counts.append(json.loads(out)["documents"])
    assert counts[0] > counts[1] == len(SKILLS)
