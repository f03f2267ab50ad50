"""The page's JSON views against the answers of the CLI commands they stand for (a real server
on loopback over a small skill tree)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from ui_helpers import BODY, Served, seed_memory, seed_usage, write_skill

from skillshelf.serve.ui.memory_view import scope_title
from skillshelf.tokens import approx_tokens
from skillshelf.workspace import WorkspaceOptions
from testkit import IsolatedHome, installed


@pytest.fixture
def served(tmp_path: Path, isolated_home: IsolatedHome) -> Iterator[Served]:
    box = Served(tmp_path)
    yield box
    box.close()


@pytest.mark.parametrize("window", [None, 1_000, 2_000, 3_000, 5_000, 272_000])
def test_the_budget_view_has_the_numbers_catalog_json_prints(
    served: Served, window: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = served.cli(capsys, "catalog", *([] if window is None else ["--context-window", str(window)]))
    data = served.page.json("/api/budget", **({} if window is None else {"window": window}))
    assert data["catalog"] == expected["report"]
    assert data["catalog_text"] == expected["text"]
    report = data["catalog"]
    states = [s["state"] for s in data["skills"] if s["cause"] in ("budget", "")]
    assert states.count("omitted") == report["omitted"]
    assert len(states) - states.count("omitted") == report["included"]
    assert (
        sum(1 for s in data["skills"] if s["state"] in ("cut", "name_only", "omitted"))
        == report["truncated_count"]
    )


def test_every_state_of_the_catalog_shows_with_its_reason(served: Served) -> None:
    seen: dict[str, str] = {}
    for window in (1_000, 5_000, 272_000):
        for row in served.page.json("/api/budget", window=window)["skills"]:
            seen.setdefault(row["state"], row["reason"])
            if row["state"] == "cut":
                assert 0 < row["kept_chars"] < row["description_chars"]
    assert set(seen) == {"full", "cut", "name_only", "omitted"}
    assert "whole description" in seen["full"]
    assert "one description character at a time" in seen["cut"]
    assert "by name only" in seen["name_only"]
    assert "not even its name fitted" in seen["omitted"]


def test_skill_modes_from_the_config_are_the_reason_given(
    served: Served, isolated_home: IsolatedHome
) -> None:
    isolated_home.write_user_config(
        '[[skills.config]]\nname = "video-trim"\nmode = "name-only"\n'
        '[[skills.config]]\nname = "release-notes"\nmode = "manual"\n'
        '[[skills.config]]\nname = "pdf-forms"\nmode = "pinned"\n'
    )
    served.server.state.reload()
    rows = {r["name"]: r for r in served.page.json("/api/budget", window=272_000)["skills"]}
    assert (
        rows["video-trim"]["state"] == "name_only"
        and "name-only in [[skills.config]]" in rows["video-trim"]["reason"]
    )
    assert rows["release-notes"]["state"] == "omitted" and "manual" in rows["release-notes"]["reason"]
    assert rows["pdf-forms"]["state"] == "full" and "pinned" in rows["pdf-forms"]["reason"]
    parts = {p["name"]: p for p in served.page.json("/api/budget", window=272_000)["parts"]}
    assert parts["pinned"]["tokens"] > 0 and parts["suggestions"]["reserved"]


def test_a_duplicate_name_says_which_copy_wins_and_why(served: Served) -> None:
    (group,) = served.page.json("/api/budget")["duplicates"]
    assert group["name"] == "helper"
    assert group["winner"] == str(served.root / "a" / "helper" / "SKILL.md")
    assert "first in load order" in group["why"] and "path" in group["why"]
    assert "selects none" in group["mention"]
    loaded = served.page.json("/api/load", name="helper")
    assert loaded["data"]["path"] == group["winner"]


def test_the_roots_show_with_their_catalog_alias(served: Served) -> None:
    roots = {r["path"]: r for r in served.page.json("/api/budget", window=272_000)["roots"]}
    extra = roots[str(served.root)]
    assert extra["exists"] and extra["skill_files"] == 5 and extra["alias"] == "r0"


def test_an_untrusted_project_root_shows_with_its_catalog_alias(served: Served) -> None:
    project_root = served.project / ".agents" / "skills"
    write_skill(project_root, "alpha", "Alpha helper. Use when alpha.", BODY)
    served.server.state.reload()
    data = served.page.json("/api/budget", window=272_000)
    lines = [line for line in data["catalog_text"].splitlines() if line.startswith("- `r")]
    marked = next(line for line in lines if "[untrusted project]" in line)
    alias = marked.split("`")[1]
    roots = {r["path"]: r["alias"] for r in data["roots"]}
    assert roots[str(project_root)] == alias and roots[str(served.root)] is not None


@pytest.mark.parametrize(
    "query", ["merge and fill a pdf form", "trim the video clip", "write release notes for v2"]
)
def test_the_task_view_ranks_as_skillshelf_search(
    served: Served, query: str, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = served.cli(capsys, "search", query, "--no-semantic")
    data = served.page.json("/api/task", q=query)
    assert [(r["name"], r["path"]) for r in data["ranked"]] == [
        (r["name"], r["path"]) for r in expected["results"]
    ]
    assert [r["score"] for r in data["ranked"]] == pytest.approx(
        [r["score"] for r in expected["results"]], abs=1e-5
    )
    for row in data["ranked"]:  # the signals add up to the score the ranking gave
        assert sum(row["signals"].values()) == pytest.approx(row["score"], abs=1e-4)
        assert set(row["signals"]) <= set(data["signals"])


def test_the_task_view_with_the_installed_models_ranks_as_skillshelf_search(
    tmp_path: Path, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    installed("wordllama", "the wordllama package, a dependency of skillshelf")
    box = Served(tmp_path, semantic=None)
    try:
        query = "fill in a pdf form"
        expected = box.cli(capsys, "search", query)
        data = box.page.json("/api/task", q=query)
        assert data["models"] == expected["models"] and data["models"]
        assert [r["path"] for r in data["ranked"]] == [r["path"] for r in expected["results"]]
        for row in data["ranked"]:
            assert sum(row["signals"].values()) == pytest.approx(row["score"], abs=1e-4)
    finally:
        box.close()


def test_the_task_view_shows_the_suggestions_and_what_load_skill_injects(served: Served) -> None:
    data = served.page.json("/api/task", q="fill a pdf form")
    top = data["ranked"][0]
    assert top["name"] == "pdf-forms" and top["suggested"]
    assert data["suggestions"]["text"].startswith("<skill_suggestions>")
    assert str(served.root / "pdf-forms" / "SKILL.md") in data["suggestions"]["sources"]
    loaded = served.page.json("/api/load", name="pdf-forms")
    from skillshelf.serve.loading import open_library

    tool = open_library(served.env, WorkspaceOptions(extra_roots=(served.root,), include_builtin=False)).tools
    assert loaded["text"] == tool.load_skill("pdf-forms").text
    assert loaded["tokens"] == approx_tokens(loaded["text"]) == top["load"]["tokens"]
    assert "scripts/fill.py" in loaded["text"] and "leak.md" not in loaded["text"]
    missing = served.page.get("/api/load", name="pdf-form")
    assert missing.status_code == 404 and "pdf-forms" in missing.json()["fix"] + missing.json()["message"]


def test_without_the_models_the_pages_suggestions_are_ranked_without_them_too(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[bool | None] = []

    def models_for(index: object, *, mode: bool | None, cache_dir: object) -> None:
        asked.append(mode)

    monkeypatch.setattr("skillshelf.select.ranking.semantic_index", models_for)
    data = served.page.json("/api/task", q="fill a pdf form")
    assert data["ranked"][0]["suggested"] and data["suggestions"]["text"]
    assert asked and set(asked) == {False}  # the table and the suggestions: one ranking


def test_for_claude_code_the_task_view_names_the_skills_it_lists_for_its_skill_tool(served: Served) -> None:
    claude = served.project / ".claude" / "skills"
    claude.mkdir(parents=True)
    (claude / "pdf-forms").symlink_to(served.root / "pdf-forms", target_is_directory=True)
    path = str(served.root / "pdf-forms" / "SKILL.md")
    codex = served.page.json("/api/task", q="fill a pdf form", profile="codex")["suggestions"]
    named = served.page.json("/api/task", q="fill a pdf form", profile="claude")["suggestions"]
    assert f"(file: {path})" in codex["text"]
    assert "call the Skill tool" in named["text"] and path not in named["text"]
    assert named["sources"] == codex["sources"]


def test_mentions_are_resolved_or_the_page_says_why_not(served: Served) -> None:
    data = served.page.json("/api/task", q="use $pdf-forms, $helper and $nothing-here for this")
    rows = {m["mention"]: m for m in data["mentions"]}
    assert rows["$pdf-forms"]["selected"] == str(served.root / "pdf-forms" / "SKILL.md")
    assert rows["$helper"]["selected"] is None and "2 skills are named" in rows["$helper"]["why"]
    assert rows["$nothing-here"]["selected"] is None and "no loadable skill" in rows["$nothing-here"]["why"]
    assert "<name>pdf-forms</name>" in data["mentioned"]["text"]
    slash = served.page.json("/api/task", q="/video-trim from 0:10 to 0:20")["mentions"]
    assert slash == [
        {
            "mention": "/video-trim",
            "selected": str(served.root / "video-trim" / "SKILL.md"),
            "why": slash[0]["why"],
        }
    ]


def test_problems_are_grouped_by_skill_with_their_fix(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    data = served.page.json("/api/problems")
    groups = {g["key"]: g for g in data["groups"]}
    broken = groups[str(served.root / "broken")]
    assert broken["kind"] == "skill" and broken["loaded"] is False
    assert [d["code"] for d in broken["diagnostics"]] == ["SK101"]
    assert broken["diagnostics"][0]["fix"]
    assert data["groups"][0]["key"] == str(served.root / "broken")  # errors first
    assert data["counts"]["error"] >= 1 and data["checked"] == 6
    expected = served.cli(capsys, "validate", "--profile", "spec", str(served.root), roots=False)
    spec = served.page.json("/api/problems", profile="spec")
    assert sorted((d["code"], d["path"]) for g in spec["groups"] for d in g["diagnostics"]) == sorted(
        (d["code"], d["path"]) for d in expected["diagnostics"]
    )


def test_the_memory_view_shows_each_memory_with_its_session_and_citations(served: Served) -> None:
    assert served.page.json("/api/memory")["db"] is None  # nothing yet, and nothing created
    assert not (served.env.dirs.data / "memory").exists()
    folder = seed_memory(served.env)
    data = served.page.json("/api/memory")
    (scope, *_rest) = data["scopes"]
    assert scope["current"] and scope["in_context"] and scope["folder"] == str(folder)
    assert "make check" in scope["summary"]["text"] and scope["memory_md"]["text"].startswith("# Task Group")
    memories = {m["session_id"]: m for m in scope["memories"]}
    assert memories["sess-one"]["citations"] == 1 and memories["sess-two"]["citations"] == 2
    assert memories["sess-one"]["transcript"] == "/transcripts/sess-one.jsonl"
    assert memories["sess-one"]["source"] == "codex" and "make check" in memories["sess-one"]["memory"]


def test_under_a_global_memory_scope_the_cards_say_which_folder_is_used(
    served: Served, isolated_home: IsolatedHome
) -> None:
    seed_memory(served.env)
    isolated_home.write_user_config('[memory]\nscope = "global"\n')
    served.server.state.reload()
    data = served.page.json("/api/memory")
    assert data["setting"] == "global"
    cards = {s["scope"]: s for s in data["scopes"]}
    project = next(s for s in data["scopes"] if s["current"])
    assert project["title"] == 'This project (not used: memory.scope = "global")' and not project["used"]
    assert not project["in_context"] and project["memories"]  # what it holds, not what agents read
    assert (
        cards["global"]["title"] == 'Global (used here: memory.scope = "global")' and cards["global"]["used"]
    )


def test_under_the_default_memory_scope_the_project_card_is_this_project(served: Served) -> None:
    seed_memory(served.env)
    data = served.page.json("/api/memory")
    assert data["setting"] == "project"
    assert [(s["title"], s["used"]) for s in data["scopes"]] == [("This project", True)]


@pytest.mark.parametrize(
    ("scope", "current", "used", "setting", "title"),
    [
        ("project:/p", True, True, "project", "This project"),
        ("project:/p", True, False, "global", 'This project (not used: memory.scope = "global")'),
        ("project:/p", True, False, "team", 'This project (not used: memory.scope = "team")'),
        ("project:/p", True, False, "", "This project (not used: memory.scope is not text)"),
        ("global", False, True, "global", 'Global (used here: memory.scope = "global")'),
        ("global", False, False, "project", "Global"),
        ("project:/other", False, False, "global", "/other"),
    ],
)
def test_a_memory_card_is_titled_by_what_it_holds_and_whether_the_setting_uses_it(
    scope: str, current: bool, used: bool, setting: str, title: str
) -> None:
    assert scope_title(scope, current=current, used=used, setting=setting) == title


def test_the_usage_view_has_the_figures_of_skillshelf_stats(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf, notes = str(served.root / "pdf-forms" / "SKILL.md"), str(served.root / "release-notes" / "SKILL.md")
    seed_usage(
        served.env,
        [
            ("t1", {"default": [pdf, notes], "bm25f": [notes, pdf]}, pdf),
            ("t2", {"default": [notes], "bm25f": [pdf]}, notes),
        ],
    )
    data = served.page.json("/api/usage")
    assert data["stats"] == served.cli(capsys, "stats", roots=False)
    assert {(m["name"], m["loads"]) for m in data["most_used"]} == {("pdf-forms", 1), ("release-notes", 1)}
    never = {n["name"] for n in data["never_used"]}
    assert never == {"video-trim", "helper"} and data["loadable"] == 5


def test_a_new_skill_is_announced_on_the_event_stream(tmp_path: Path, isolated_home: IsolatedHome) -> None:
    box = Served(tmp_path, watch=True)
    try:
        before = box.page.json("/api/overview")
        with box.page.http.stream("GET", "/api/events", params={"token": box.server.token}) as stream:
            lines = stream.iter_lines()
            assert next(lines).startswith("retry:")
            assert next(lines) == "event: hello"
            write_skill(box.root, "csv-clean", "Clean CSV files: trim, dedupe, fix encodings.", BODY)
            for line in lines:  # the watch's start-up catch-up may announce a change of its own first
                if line == "event: change" and box.page.json("/api/overview")["skills"] > before["skills"]:
                    break
        after = box.page.json("/api/overview")
        assert after["skills"] == before["skills"] + 1 and after["snapshot"] > before["snapshot"]
        assert any(r["name"] == "csv-clean" for r in box.page.json("/api/budget")["skills"])
    finally:
        box.close()


def test_the_agent_profile_picks_whose_instruction_files_fill_the_context(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    (served.project / "AGENTS.md").write_text(
        "# Agents\nRun make check before committing.\n", encoding="utf-8"
    )
    (served.project / "CLAUDE.md").write_text("# Claude\nUse uv, never pip.\n" * 20, encoding="utf-8")
    parts = {
        profile: {p["name"]: p for p in served.page.json("/api/budget", profile=profile)["parts"]}
        for profile in ("codex", "claude")
    }
    codex, claude = parts["codex"]["instructions"], parts["claude"]["instructions"]
    assert codex["title"] == "AGENTS.md" and codex["sources"] == [str(served.project / "AGENTS.md")]
    assert claude["title"] == "CLAUDE.md" and claude["sources"] == [str(served.project / "CLAUDE.md")]
    expected = served.cli(capsys, "context", "--profile", "claude", "--no-suggestions")
    tokens = {p["name"]: p["tokens"] for p in expected["parts"]}
    assert {name: p["tokens"] for name, p in parts["claude"].items() if not p["reserved"]} == tokens


def test_a_zero_catalog_cap_in_config_is_a_finding_and_the_views_still_answer(
    tmp_path: Path, isolated_home: IsolatedHome
) -> None:
    config = isolated_home.write_user_config("[requirements]\nmax_catalog_tokens = 0\n")
    box = Served(tmp_path)
    try:
        budget = box.page.json("/api/budget")
        assert budget["catalog"]["included"] > 0
        assert box.page.json("/api/task", q="fill a pdf form")["query"] == "fill a pdf form"
        findings = [d for d in box.server.state.snapshot.workspace.diagnostics if d.code == "CF102"]
        assert [(d.path, d.line, d.field) for d in findings] == [
            (config, 2, "requirements.max_catalog_tokens")
        ]
    finally:
        box.close()


def test_the_task_view_says_why_a_skill_is_never_suggested_as_skillshelf_search_does(
    served: Served, isolated_home: IsolatedHome, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config('[[skills.config]]\nname = "release-notes"\nmode = "manual"\n')
    served.server.state.reload()
    claude = served.project / ".claude"
    (claude / "skills").mkdir(parents=True)
    (claude / "skills" / "video-trim").symlink_to(served.root / "video-trim", target_is_directory=True)
    (claude / "settings.json").write_text('{"skillOverrides": {"video-trim": "off"}}', encoding="utf-8")
    query = "use $pdf-forms to fill the form, write release notes and trim the video clip"
    for profile in ("codex", "claude"):
        expected = served.cli(capsys, "search", query, "--no-semantic", "--profile", profile)
        data = served.page.json("/api/task", q=query, profile=profile, top=10)
        why = {r["path"]: r["never_suggested"] for r in data["ranked"]}
        assert why == {r["path"]: r["never_suggested"] for r in expected["results"]}
        assert why[str(served.root / "pdf-forms" / "SKILL.md")] == "mentioned: the task loads it whole"
        assert why[str(served.root / "release-notes" / "SKILL.md")] == "manual: loads when mentioned"
    trim = why[str(served.root / "video-trim" / "SKILL.md")]
    assert trim == "kept from the model by skillOverrides in Claude Code's settings"
    codex = served.page.json("/api/task", q=query, profile="codex", top=10)["ranked"]
    assert next(r for r in codex if r["name"] == "video-trim")["never_suggested"] is None


@pytest.mark.parametrize("window", [0, 5_000])
def test_the_budget_source_names_the_pages_window_not_a_command_line_flag(
    served: Served, window: int
) -> None:
    source = served.page.json("/api/budget", window=window)["budget"]["source"]
    assert "--context-window" not in source
    if window == 0:
        assert "the context window is unknown (0 tokens chosen on this page: pick a window" in source
    else:
        assert source.endswith("5,000-token context window (chosen on this page)")


def test_a_folder_name_that_is_not_utf8_shows_in_the_problems_view_as_validate_json_writes_it(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = os.fsencode(served.root) + b"/bad\xff"
    os.mkdir(bad)
    with open(bad + b"/SKILL.md", "w", encoding="utf-8") as handle:
        handle.write("---\nname: bad\ndescription: d\n---\nx\n")
    response = served.page.get("/api/problems")
    assert response.status_code == 200
    paths = {d["path"] for g in response.json()["groups"] for d in g["diagnostics"]}
    shown = {d["path"] for d in served.cli(capsys, "validate", str(served.root), roots=False)["diagnostics"]}
    assert any("\ufffd" in str(p) for p in paths) and paths & shown
