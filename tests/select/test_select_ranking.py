"""The one ranking: body evidence, the confidence threshold, settings, and the same answer from
`search`, `context` and `eval`."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillshelf.cli.main import main
from skillshelf.errors import NotFoundError, UsageError
from skillshelf.select import rank_docs
from skillshelf.select.evaluate import load_queries
from skillshelf.select.index import SkillIndex
from skillshelf.select.ranking import Ranker, RankingSettings
from skillshelf.skills.builtin import packaged_skills_dir
from skillshelf.skills.discover import discover_in
from testkit import missing

UNRELATED = "thanks, that works now"


def _ranker(root: Path, **settings: object) -> Ranker:
    skills = discover_in([root]).skills
    return Ranker(SkillIndex.build(skills), settings=RankingSettings(**settings))  # type: ignore[arg-type]


def test_a_word_found_only_in_the_body_ranks_the_skill(
    tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    write_skill = make_skill
    write_skill(tmp_path, "docs-helper", "Helps with documents.", "# Merging\nUse qpdf to join files.\n")
    write_skill(tmp_path, "notes", "Keeps meeting notes.", "# Notes\nWrite them down.\n")
    index = SkillIndex.build(discover_in([tmp_path]).skills)
    assert [r.doc.name for r in rank_docs(index, "qpdf", selector="bm25f")] == ["docs-helper"]
    assert rank_docs(index, "qpdf")[0].doc.name == "docs-helper"


def test_a_request_no_skill_serves_gets_no_suggestion(skill_root: Path) -> None:
    ranker = _ranker(skill_root)
    unrelated = ranker.rank(UNRELATED)
    assert unrelated.ranked and not unrelated.suggested and not unrelated.confident
    fits = ranker.rank("merge two pdf files into one")
    assert fits.confident and fits.suggested[0].doc.name == "pdf-tools"
    assert fits.confidence > unrelated.confidence


def test_threshold_and_maximum_come_from_the_settings(skill_root: Path) -> None:
    task = "merge pdf files, trim the video, fix flaky pytest tests"
    assert len(_ranker(skill_root, min_confidence=0.0, max_suggestions=1).rank(task).suggested) == 1
    assert _ranker(skill_root, min_confidence=0.0).rank(UNRELATED).suggested
    assert not _ranker(skill_root, min_confidence=1.0).rank(task).suggested
    config = {"select.min_confidence": 40, "select.max_suggestions": 2}
    assert RankingSettings.from_config(config.get) == RankingSettings(min_confidence=0.4, max_suggestions=2)
    assert RankingSettings.from_config({"select.min_confidence": "high"}.get) == RankingSettings()


def test_a_printed_confidence_reaches_the_printed_threshold_exactly_when_skills_are_suggested() -> None:
    at_most = RankingSettings(min_confidence=1.0)
    assert (
        not at_most.reached(0.99996)
        and at_most.shown(0.99996, 2) == 0.99
        and at_most.shown(0.99996, 4) == 0.9999
    )
    default = RankingSettings(min_confidence=0.88)
    assert default.reached(0.88) and default.shown(0.88, 2) == 0.88  # equal reaches it
    assert not default.reached(0.8799) and default.shown(0.8799, 2) == 0.87
    assert default.shown(0.8861, 2) == 0.88 and default.shown(0.999, 2) == 0.99
    for percent in range(101):
        settings = RankingSettings(min_confidence=percent / 100)
        for confidence in (percent / 100, percent / 100 - 1e-9, percent / 100 + 1e-9):
            if 0 <= confidence <= 1:
                shown = settings.shown(confidence, 2)
                assert (shown >= round(settings.min_confidence, 2)) is settings.reached(confidence)


def test_search_at_the_highest_threshold_prints_a_confidence_below_it(
    skill_root: Path, isolated_home: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.write_user_config("[select]\nmin_confidence = 100\n")
    task = "merge two pdf files with pdf-tools"
    main(["search", task, "--root", str(skill_root), "--json"])
    found = json.loads(capsys.readouterr().out)
    assert found["min_confidence"] == 1.0 and found["confidence"] < 1.0
    assert not any(r["suggested"] for r in found["results"])
    main(["search", task, "--root", str(skill_root)])
    out, err = capsys.readouterr()
    printed = re.search(r"confidence (\d\.\d\d)\s+\(threshold\s+1\.00\):\s+nothing\s+suggested", out)
    assert printed is not None and float(printed[1]) < 1.0 and "CF102" not in err
    isolated_home.write_user_config("[select]\nmin_confidence = 101\n")
    main(["search", task, "--root", str(skill_root)])
    out, err = capsys.readouterr()
    assert re.search(r"\(threshold\s+0\.88\):\s+\*\s+=\s+suggested", out)
    assert "CF102" in err and "from 0 to 100" in " ".join(err.split())


def test_context_suggests_what_search_marks_as_suggested(
    skill_root: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    for task in ("merge two pdf files into one", "trim the video and burn subtitles", UNRELATED):
        main(["search", task, "--root", str(skill_root), "--json"])
        found = json.loads(capsys.readouterr().out)
        marked = [r["path"] for r in found["results"] if r["suggested"]]
        main(["context", task, "--root", str(skill_root), "--json"])
        parts = {p["name"]: p for p in json.loads(capsys.readouterr().out)["parts"]}
        shown = list(parts["suggestions"]["sources"]) if "suggestions" in parts else []
        assert shown == marked, task
        assert bool(shown) == (task != UNRELATED)


def _queries(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_eval_fails_on_a_false_trigger_and_passes_when_none(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    rows: list[dict[str, object]] = [
        {"query": "merge two pdf files", "relevant": [str(skill_root / "pdf-tools")]},
        {"query": "resize a png image", "not_relevant": [str(skill_root / "image-resize")]},
    ]
    argv = ["eval", "--queries", "", "--root", str(skill_root), "--selector", "default", "--no-semantic"]
    argv[2] = str(_queries(tmp_path / "bad.jsonl", rows))
    with pytest.raises(SystemExit) as failed:
        main(argv)
    out = capsys.readouterr().out
    assert failed.value.code == 1
    assert "PASS line 1" in out and "FAIL line 2" in out and "should not trigger" in out
    assert "1 of 2 queries passed" in out and "1 false trigger" in out
    argv[2] = str(_queries(tmp_path / "good.jsonl", [rows[0]]))
    main(argv)
    assert "1 of 1 queries passed" in capsys.readouterr().out


def test_eval_of_only_should_not_trigger_lines_leaves_recall_blank(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    rows: list[dict[str, object]] = [{"query": UNRELATED, "not_relevant": [str(skill_root / "pdf-tools")]}]
    queries = _queries(tmp_path / "q.jsonl", rows)
    main(["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "bm25f"])
    row = next(line for line in capsys.readouterr().out.splitlines() if "bm25f" in line)
    assert [cell.strip() for cell in row.split("│")[2:6]] == ["-", "-", "-", "-"]


def test_eval_counts_a_request_below_the_threshold_as_a_miss(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = _queries(
        tmp_path / "q.jsonl", [{"query": UNRELATED, "relevant": [str(skill_root / "pdf-tools")]}]
    )
    with pytest.raises(SystemExit) as failed:
        main(["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "default"])
    out = capsys.readouterr().out
    assert failed.value.code == 1 and "nothing suggested: the confidence is below the threshold" in out


def test_eval_warns_when_a_relevant_skill_is_not_among_those_ranked(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "elsewhere" / "pdf-tools"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Merge PDF files.\n---\n", encoding="utf-8"
    )
    queries = _queries(tmp_path / "q.jsonl", [{"query": "merge two pdf files", "relevant": [str(other)]}])
    with pytest.raises(SystemExit):
        main(["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "bm25f"])
    err = capsys.readouterr().err
    assert "name no indexed skill" in err and str(other) in err and "--root FOLDER" in err


def test_eval_judges_an_installed_copy_by_the_labels_on_its_source_folder(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "my-repo" / "skills" / "pdf-tools"
    shutil.copytree(skill_root / "pdf-tools", source)
    rows: list[dict[str, object]] = [
        {"query": "merge two pdf files", "relevant": [".."]},
        {"query": UNRELATED, "not_relevant": [".."]},
    ]
    (source / "evals").mkdir()
    queries = _queries(source / "evals" / "triggers.jsonl", rows)
    main(["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "default"])
    captured = capsys.readouterr()
    assert "2 of 2 queries passed" in captured.out and "name no indexed skill" not in captured.err


def test_a_relative_skill_path_that_names_nothing_is_an_error(tmp_path: Path) -> None:
    queries = _queries(tmp_path / "q.jsonl", [{"query": "x", "not_relevant": ["skills/typo"]}])
    with pytest.raises(UsageError) as err:
        load_queries(queries, tools=False)
    assert err.value.code == "SE306" and "skills/typo" in str(err.value)


def test_a_skill_path_through_a_loop_of_symlinks_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    queries = _queries(tmp_path / "q.jsonl", [{"query": "x", "relevant": ["a/skill"]}])
    with pytest.raises(UsageError) as err:
        load_queries(queries, tools=False)
    assert err.value.code == "SE306"


def test_the_built_in_trigger_example_passes(
    isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    example = packaged_skills_dir() / "writing-skills" / "evals" / "triggers.jsonl"
    main(["eval", "--queries", str(example), "--root", str(packaged_skills_dir()), "--selector", "default"])
    assert "5 of 5 queries passed" in capsys.readouterr().out


def test_eval_without_a_root_ranks_the_skills_found_here_with_the_configured_threshold(
    skill_root: Path,
    tmp_path: Path,
    isolated_home: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "project"
    shutil.copytree(skill_root, project / ".codex" / "skills")
    (project / ".git").mkdir()
    monkeypatch.chdir(project)
    builtin = isolated_home.data / "skillshelf" / "builtin-skills" / "writing-skills"
    queries = _queries(
        project / "triggers.jsonl",
        [
            {"query": "merge two pdf files into one", "relevant": [".codex/skills/pdf-tools"]},
            {"query": "write a new skill for our release checklist", "not_relevant": [str(builtin)]},
        ],
    )
    argv = ["eval", "--queries", str(queries), "--selector", "default", "--json"]
    with pytest.raises(SystemExit):
        main(argv)
    found = json.loads(capsys.readouterr().out)
    # the project's skills and the built-in ones, which compete like any other
    assert found["documents"] == len(discover_in([skill_root]).skills) + 2
    assert [o["passed"] for o in found["outcomes"]] == [True, False]
    config = isolated_home.config / "skillshelf"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[select]\nmin_confidence = 100\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(argv)
    assert [o["passed"] for o in json.loads(capsys.readouterr().out)["outcomes"]] == [False, True]
    with pytest.raises(SystemExit):  # the folders given: the config's threshold still holds
        main([*argv, "--root", str(project / ".codex" / "skills")])
    assert not json.loads(capsys.readouterr().out)["outcomes"][0]["passed"]


def test_a_skill_copied_into_three_folders_is_suggested_once(
    skill_root: Path, tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    pdf = "Merge, split and rotate PDF files; extract text and tables from PDF documents."
    folders = [tmp_path / name for name in ("codex", "claude", "agents")]
    for folder in folders:
        make_skill(folder, "pdf-tools", pdf, "# PDF toolkit\n\n## Merging\nUse qpdf to merge pages.\n")
    skills = discover_in([skill_root, *folders]).skills
    ranker = Ranker(SkillIndex.build(skills), settings=RankingSettings(min_confidence=0.0, max_suggestions=3))
    ranking = ranker.rank("merge pdf pages and recalculate the excel formulas", top_k=10)
    names = [r.doc.name for r in ranking.ranked]
    assert names[:5] == ["spreadsheet-helper"] + ["pdf-tools"] * 4  # search lists every folder
    assert [r.doc.name for r in ranking.suggested] == ["spreadsheet-helper", "pdf-tools"]


def _broken(name: str, tries: list[str] | None = None) -> Callable[..., Any]:
    def load(*_args: object) -> Any:
        if tries is not None:
            tries.append(name)
        raise NotFoundError(f"{name}'s files cannot be read", hint=f"reinstall {name}", code="SE104")

    return load


def test_a_model_that_cannot_be_read_costs_its_signal_not_the_suggestions(
    skill_root: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from skillshelf.select import ranking, semantic, wordllama

    if not wordllama.available():
        missing("the wordllama package, a dependency of skillshelf, is not installed")
    tries: list[str] = []
    monkeypatch.setattr(semantic, "available", lambda: True)  # MiniLM counts as installed, and is broken
    monkeypatch.setattr(ranking, "_minilm", _broken("MiniLM", tries))
    monkeypatch.setattr(ranking, "_LAST", [])
    skills = discover_in([skill_root]).skills
    ranker = ranking.shared_ranker(skills)
    assert ranker.semantic is not None and ranker.semantic.models == ("wordllama",)
    assert ranker.rank("merge two pdf files into one").suggested[0].doc.name == "pdf-tools"
    assert "warning SE104: ranking without MiniLM" in caplog.text and "fix: reinstall MiniLM" in caplog.text
    ranking.shared_ranker(skills)  # the next turn tries the model again: a reinstall counts at once
    assert tries == ["MiniLM", "MiniLM"]


def test_a_model_asked_for_by_name_that_cannot_be_read_is_an_error(
    skill_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.select import ranking, semantic

    monkeypatch.setattr(semantic, "available", lambda: True)
    monkeypatch.setattr(ranking, "_minilm", _broken("MiniLM"))
    index = SkillIndex.build(discover_in([skill_root]).skills)
    with pytest.raises(NotFoundError) as failed:
        ranking.semantic_index(index, mode=True, cache_dir=None)
    assert failed.value.code == "SE104"


def test_with_every_model_broken_the_ranking_runs_without_models(
    skill_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.select import ranking, semantic

    monkeypatch.setattr(semantic, "available", lambda: True)
    monkeypatch.setattr(ranking, "_minilm", _broken("MiniLM"))
    monkeypatch.setattr(ranking, "_wordllama", _broken("WordLlama"))
    index = SkillIndex.build(discover_in([skill_root]).skills)
    assert ranking.semantic_index(index, mode=None, cache_dir=None) is None
    ranker = Ranker(index, semantic=None)
    assert ranker.rank("merge two pdf files into one").suggested[0].doc.name == "pdf-tools"


def test_the_explained_parts_of_a_score_add_up_to_it(skill_root: Path, tmp_path: Path) -> None:
    ranker = _ranker(skill_root)
    ranking = ranker.rank("merge two pdf files into one", top_k=3)
    parts = ranker.explain(ranking.query, {r.doc.key for r in ranking.ranked})
    assert set(parts) == {r.doc.key for r in ranking.ranked}
    for r in ranking.ranked:
        assert sum(parts[r.doc.key].values()) == pytest.approx(r.score, abs=1e-4)
    assert {"bm25f", "name"} <= set(parts[ranking.ranked[0].doc.key])
    assert ranker.explain("   ", {ranking.ranked[0].doc.key}) == {}


def test_search_explain_shows_the_parts_and_refuses_other_selectors(
    skill_root: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "merge two pdf files", "--root", str(skill_root), "--no-builtin", "--no-semantic"]
    main([*argv, "--explain", "--json", "--top", "2"])
    results = json.loads(capsys.readouterr().out)["results"]
    assert all(sum(r["parts"].values()) == pytest.approx(r["score"], abs=1e-3) for r in results)
    main([*argv, "--explain", "--top", "1"])
    assert "bm25f " in capsys.readouterr().out
    with pytest.raises(SystemExit) as caught:
        main([*argv, "--explain", "--selector", "bm25f"])
    assert caught.value.code == 2 and "SE009" in capsys.readouterr().err


def test_the_path_of_a_mention_link_is_not_read_as_words_of_the_request(
    tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    make_skill(tmp_path, "pdf-forms", "Fill in PDF forms.", "# Forms\nUse pypdf.\n")
    make_skill(
        tmp_path, "writing-skills", "Write a new agent skill (SKILL.md).", "# Skills\nmarkdown skill\n"
    )
    ranker = _ranker(tmp_path)
    linked = ranker.rank("use [$pdf-forms](/home/u/.agents/skills/pdf-forms/SKILL.md) on invoice.pdf")
    plain = ranker.rank("use $pdf-forms on invoice.pdf")
    assert [(r.doc.name, r.score) for r in linked.ranked] == [(r.doc.name, r.score) for r in plain.ranked]
    assert linked.confidence == plain.confidence
    keys = {r.doc.key for r in plain.ranked}
    assert ranker.explain("see [$pdf-forms](a/SKILL.md)", keys) == ranker.explain("see $pdf-forms", keys)
