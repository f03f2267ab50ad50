"""`search` and `eval --selector default` judge suggestions as `context` makes them: a skill the
per-turn suggestions leave out (mode ``manual`` or ``pinned``, or hidden from the model by
``disable-model-invocation``) is still ranked and listed by `search`, never marked `*`, and a
query that needs it fails in `eval`, saying why; but for a pinned one, in the context of every
session: a query that needs it passes, one that must not pick it fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import IsolatedHome
from testkit import run_cli as cli

TASK = "fill the fields of this PDF form"
PDF_FORMS = "Fill, flatten and extract fields of PDF forms. Use when a task involves PDF form fields."
OTHERS = {
    "image-resize": "Resize, crop and convert images (PNG, JPEG, WebP) in bulk.",
    "git-release": "Prepare a release: bump the version, write the changelog, tag and push with git.",
}


def _skill(root: Path, name: str, description: str, extra: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\nUse pypdf.\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def project(tmp_path: Path, isolated_home: IsolatedHome, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (the cwd) with pdf-forms and two skills unrelated to :data:`TASK`."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skills = repo / ".agents" / "skills"
    _skill(skills, "pdf-forms", PDF_FORMS)
    for name, description in OTHERS.items():
        _skill(skills, name, description)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("COLUMNS", "200")
    return repo


def _context_suggested(capsys: pytest.CaptureFixture[str], *args: str) -> set[str]:
    code, out, err = cli(["context", "--json", *args, TASK], capsys)
    assert code == 0, err
    return {src for p in json.loads(out)["parts"] if p["name"] == "suggestions" for src in p["sources"]}


def _search_rows(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, object]]:
    return {str(row["name"]): row for row in _search_json(capsys, *args)}


def _search_paths(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, object]]:
    """The rows of `search --json` by path (copies of a skill share its name)."""
    return {str(row["path"]): row for row in _search_json(capsys, *args)}


def _search_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    code, out, err = cli(["search", "--json", *args, TASK], capsys)
    assert code == 0, err
    return list(json.loads(out)["results"])


def _search_suggested(rows: dict[str, dict[str, object]]) -> set[str]:
    return {str(row["path"]) for row in rows.values() if row["suggested"]}


def _queries(tmp_path: Path, folder: Path) -> Path:
    """A needs-it line (1) and a must-not-pick-it line (2) on the skill in ``folder``."""
    path = tmp_path / "triggers.jsonl"
    lines = [{"query": TASK, "relevant": [str(folder)]}, {"query": TASK, "not_relevant": [str(folder)]}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _eval_lines(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[int, str]]:
    code, out, _ = cli(["eval", "--selector", "default", *args], capsys)
    lines = {int(x.split()[2].rstrip(":")): x for x in out.splitlines() if x.startswith(("PASS", "FAIL"))}
    return code, lines


@pytest.mark.parametrize(
    ("mode", "why"),
    [("manual", "manual: loads when mentioned"), ("pinned", "pinned: always in the context whole")],
)
def test_search_and_eval_never_suggest_a_skill_whose_mode_keeps_it_out_of_suggestions(
    project: Path,
    tmp_path: Path,
    isolated_home: IsolatedHome,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    why: str,
) -> None:
    folder = project / ".agents" / "skills" / "pdf-forms"
    skill_md = str(folder / "SKILL.md")
    queries = _queries(tmp_path, folder)
    # enabled, the three agree that pdf-forms is suggested for the task
    assert skill_md in _context_suggested(capsys) == _search_suggested(_search_rows(capsys))
    assert _eval_lines(capsys, "--queries", str(queries))[1][1].startswith("PASS line 1")

    config = isolated_home.config / "skillshelf" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[[skills.config]]\nname = "pdf-forms"\nmode = "{mode}"\n', encoding="utf-8")

    context = _context_suggested(capsys)
    rows = _search_rows(capsys)
    assert skill_md not in context and _search_suggested(rows) == context
    assert rows["pdf-forms"]["rank"] == 1 and rows["pdf-forms"]["never_suggested"] == why
    code, out, _ = cli(["search", TASK], capsys)
    row = next(line for line in out.splitlines() if "pdf-forms" in line)
    assert code == 0 and "1*" not in row and f"(never suggested; {why})" in row
    assert "suggested to the model" not in out or f"({len(context)})" in out

    code, lines = _eval_lines(capsys, "--queries", str(queries))
    if mode == "pinned":
        assert code == 1 and lines[1].startswith("PASS line 1")
        assert "pdf-forms pinned: always in context" in lines[1] and "never suggested" not in lines[1]
        assert lines[2].startswith("FAIL line 2") and f"should not trigger: {folder}" in lines[2]
        return
    assert code == 1 and lines[1].startswith("FAIL line 1")
    assert f"pdf-forms is never suggested ({why})" in lines[1]
    assert lines[2].startswith("PASS line 2")


def test_search_and_eval_never_suggest_a_skill_hidden_from_the_model(
    tmp_path: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    skills = tmp_path / "skills"
    folder = _skill(skills, "pdf-forms", PDF_FORMS)
    for name, description in OTHERS.items():
        _skill(skills, name, description)
    queries = _queries(tmp_path, folder)
    roots = ("--no-builtin", "--root", str(skills))
    # visible, it is suggested and the needs-it line passes
    assert str(folder / "SKILL.md") in _search_suggested(_search_rows(capsys, *roots))
    assert _eval_lines(capsys, "--queries", str(queries), "--root", str(skills))[1][1].startswith(
        "PASS line 1"
    )

    _skill(skills, "pdf-forms", PDF_FORMS, "disable-model-invocation: true\n")
    context = _context_suggested(capsys, *roots)
    rows = _search_rows(capsys, *roots)
    why = "hidden from the model by disable-model-invocation: true"
    assert str(folder / "SKILL.md") not in context and _search_suggested(rows) == context
    assert rows["pdf-forms"]["never_suggested"] == why

    code, lines = _eval_lines(capsys, "--queries", str(queries), "--root", str(skills))
    assert (
        code == 1
        and lines[1].startswith("FAIL line 1")
        and f"pdf-forms is never suggested ({why})" in lines[1]
    )
    assert lines[2].startswith("PASS line 2")


def test_eval_json_says_which_relevant_skill_is_never_suggested(
    project: Path, tmp_path: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / ".agents" / "skills" / "pdf-forms"
    config = isolated_home.config / "skillshelf" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[[skills.config]]\nname = "pdf-forms"\nmode = "manual"\n', encoding="utf-8")
    code, out, _ = cli(
        ["eval", "--selector", "default", "--json", "--queries", str(_queries(tmp_path, folder))], capsys
    )
    outcomes = {o["line"]: o for o in json.loads(out)["outcomes"]}
    assert code == 1 and not outcomes[1]["passed"] and outcomes[2]["passed"]
    assert outcomes[1]["never_suggested"] == ["pdf-forms is never suggested (manual: loads when mentioned)"]
    assert outcomes[2]["never_suggested"] == []


def test_search_never_suggests_a_skill_the_task_mentions_as_context_loads_it_instead(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill_md = str(project / ".agents" / "skills" / "pdf-forms" / "SKILL.md")
    task = f"use $pdf-forms and {TASK}"
    code, out, err = cli(["context", "--json", task], capsys)
    parts = {p["name"]: p for p in json.loads(out)["parts"]}
    assert code == 0 and parts["mentioned"]["sources"] == [skill_md]
    ranked_by_context = set(parts.get("suggestions", {}).get("sources", ()))
    assert skill_md not in ranked_by_context  # loaded whole, not suggested as well

    code, out, err = cli(["search", "--json", task], capsys)
    rows = {str(row["name"]): row for row in json.loads(out)["results"]}
    why = "mentioned: the task loads it whole"
    assert code == 0 and rows["pdf-forms"]["never_suggested"] == why and not rows["pdf-forms"]["suggested"]
    assert _search_suggested(rows) == ranked_by_context
    code, out, _ = cli(["search", task], capsys)
    row = next(line for line in out.splitlines() if "pdf-forms" in line)
    assert code == 0 and f"(never suggested; {why})" in row


@pytest.mark.parametrize("withheld", ["off", "user-invocable-only"])
def test_search_for_claude_code_never_suggests_a_skill_its_skill_overrides_keep_from_the_model(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str], withheld: str
) -> None:
    skill_md = str(project / ".agents" / "skills" / "pdf-forms" / "SKILL.md")
    claude = project / ".claude" / "skills"
    claude.mkdir(parents=True)
    (claude / "pdf-forms").symlink_to(project / ".agents" / "skills" / "pdf-forms", target_is_directory=True)
    settings = {"skillOverrides": {"pdf-forms": withheld}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    why = "kept from the model by skillOverrides in Claude Code's settings"

    assert skill_md not in _context_suggested(capsys, "--profile", "claude")
    rows = _search_rows(capsys, "--profile", "claude")
    assert rows["pdf-forms"]["never_suggested"] == why and not _search_suggested(rows) & {skill_md}
    # for Codex, Claude Code's settings change nothing
    assert skill_md in _context_suggested(capsys, "--profile", "codex")
    assert skill_md in _search_suggested(_search_rows(capsys, "--profile", "codex"))
    # the agent named in config is the default, as for `context`
    config = isolated_home.config / "skillshelf" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[instructions]\nprofile = "claude"\n', encoding="utf-8")
    assert skill_md not in _context_suggested(capsys)
    assert _search_rows(capsys)["pdf-forms"]["never_suggested"] == why


def test_search_never_suggests_a_copy_of_a_skill_the_task_mentions(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = str(_skill(tmp_path / "other", "pdf-forms", PDF_FORMS) / "SKILL.md")
    task = f"use [$pdf-forms]({copy}) and {TASK}"
    roots = ("--root", str(tmp_path / "other"))
    code, out, err = cli(["context", "--json", *roots, task], capsys)
    parts = {p["name"]: p for p in json.loads(out)["parts"]}
    assert code == 0 and parts["mentioned"]["sources"] == [copy]
    assert "suggestions" not in parts  # neither the mentioned skill nor its copy is suggested

    code, out, err = cli(["search", "--json", *roots, task], capsys)
    rows = {str(row["path"]): row for row in json.loads(out)["results"]}
    project_copy = str(project / ".agents" / "skills" / "pdf-forms" / "SKILL.md")
    assert code == 0 and rows[copy]["never_suggested"] == "mentioned: the task loads it whole"
    assert project_copy in rows and not any(row["suggested"] for row in rows.values())
    assert rows[project_copy]["never_suggested"] == (
        f"a copy of {copy}, which the task mentions: its body is in the context"
    )


def test_context_suggests_neither_a_skill_the_task_mentions_nor_a_copy_of_it_as_search_marks(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill_md = str(project / ".agents" / "skills" / "pdf-forms" / "SKILL.md")
    copy = str(_skill(tmp_path / "other", "pdf-forms", PDF_FORMS) / "SKILL.md")
    roots = ("--root", str(tmp_path / "other"))
    assert {skill_md, copy} & _context_suggested(capsys, *roots)  # unmentioned, one of them is suggested
    task = f"[$pdf-forms]({skill_md}) {TASK}"
    code, out, err = cli(["context", "--json", *roots, task], capsys)
    parts = {p["name"]: p for p in json.loads(out)["parts"]}
    assert code == 0 and parts["mentioned"]["sources"] == [skill_md], err
    suggested = set(parts.get("suggestions", {}).get("sources", ()))
    assert not suggested & {skill_md, copy}
    code, out, err = cli(["search", "--json", *roots, task], capsys)
    assert code == 0 and _search_suggested({r["path"]: r for r in json.loads(out)["results"]}) == suggested


def test_context_and_search_suggest_no_copy_of_a_pinned_skill(
    project: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / ".agents" / "skills" / "pdf-forms"
    copy = _skill(isolated_home.home / ".agents" / "skills", "pdf-forms", PDF_FORMS) / "SKILL.md"
    assert str(copy) in _context_suggested(capsys) == _search_suggested(_search_paths(capsys))
    config = isolated_home.config / "skillshelf" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[[skills.config]]\npath = "{folder}"\nmode = "pinned"\n', encoding="utf-8")
    context = _context_suggested(capsys)
    assert str(copy) not in context and str(folder / "SKILL.md") not in context
    rows = _search_paths(capsys)
    assert _search_suggested(rows) == context
    why = f"a copy of {folder / 'SKILL.md'}, which is pinned: its body is in the context"
    assert rows[str(copy)]["never_suggested"] == why
