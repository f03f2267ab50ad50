"""The evaluation harness: metrics on a tiny hand-made set, query files, the `eval` command."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from skillshelf.cli.main import main
from skillshelf.errors import NotFoundError, UsageError
from skillshelf.select.docs import SkillDoc
from skillshelf.select.evalfile import load_tools
from skillshelf.select.evaluate import (
    QueryTurn,
    load_queries,
    ndcg_at,
    recall_at,
    reciprocal_rank,
    run_eval,
)
from skillshelf.select.index import SkillIndex
from skillshelf.select.service import evaluate_file
from skillshelf.skills.discover import discover_in

TOOLS = [
    {"id": "pdf", "name": "pdf", "description": "Merge and split PDF documents."},
    {"id": "img", "name": "images", "description": "Resize and crop pictures."},
    {"id": "git", "name": "git-release", "description": "Tag a release and write the changelog."},
]


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_metrics_on_a_hand_made_ranking() -> None:
    ranked = ["a", "b", "c", "d", "e", "f"]
    assert recall_at(ranked, ["a"], 1) == 1.0
    assert recall_at(ranked, ["b", "z"], 5) == 0.5
    assert reciprocal_rank(ranked, ["c"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranked, ["z"]) == 0.0
    assert ndcg_at(ranked, ["a"]) == 1.0
    assert ndcg_at(ranked, ["b"]) == pytest.approx(1 / math.log2(3))
    assert ndcg_at(ranked, ["a", "c"]) == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3)))


def test_run_eval_scores_each_selector_and_keeps_ranked_lists(tmp_path: Path) -> None:
    queries_file = _write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"query": "merge pdf documents", "relevant": ["pdf"]},
            {"query": "crop a picture", "relevant": ["img"]},
            {"query": "write the changelog and tag", "relevant": ["git", "pdf"]},
            {"query": "resize photos", "relevant": [], "not_relevant": ["pdf"]},
        ],
    )
    index = SkillIndex.from_tools([(t["id"], t["name"], t["description"]) for t in TOOLS])
    report = run_eval(index, load_queries(queries_file, tools=True), ["default", "codex_lexical"], top=3)
    default = report.results[0]
    assert default.queries == 3 and default.negatives == 1
    assert default.recall_1 == pytest.approx((1 + 1 + 0.5) / 3)
    assert default.recall_5 == pytest.approx((1 + 1 + 0.5) / 3)
    assert default.false_trigger_5 == 0.0
    assert default.ranked[0][0] == "pdf" and len(default.ranked) == 4
    assert [r.selector for r in report.results] == ["default", "codex_lexical"]


@pytest.mark.parametrize(("confident", "rate"), [(True, 1.0), (False, 0.0)])
def test_false_trigger_rate_counts_only_what_would_be_shown(
    tmp_path: Path, confident: bool, rate: float
) -> None:
    queries_file = _write_jsonl(tmp_path / "q.jsonl", [{"query": "resize photos", "not_relevant": ["pdf"]}])
    index = SkillIndex.from_tools([(t["id"], t["name"], t["description"]) for t in TOOLS])

    def everything(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        return list(ix.docs), confident

    report = run_eval(index, load_queries(queries_file, tools=True), ["default"], rank_fn=everything)
    assert report.results[0].false_trigger_5 == rate
    assert report.outcomes[0].passed is not confident


def test_relevant_skill_folders_resolve_relative_to_the_query_file(skill_root: Path, tmp_path: Path) -> None:
    qdir = tmp_path / "evals"
    qdir.mkdir()
    queries = _write_jsonl(
        qdir / "q.jsonl",
        [
            {"query": "merge two pdf files", "relevant": ["../skills/pdf-tools"]},
            {"query": "tag a release", "relevant": [str(skill_root / "git-release" / "SKILL.md")]},
        ],
    )
    from skillshelf.skills.discover import discover_in

    report = evaluate_file(
        queries, skills=discover_in([skill_root]).skills, selector="default", semantic=False
    )
    assert report.unknown_relevant == ()
    assert report.results[0].recall_1 == 1.0
    assert report.results[0].ranked[0][0] == str((skill_root / "pdf-tools").resolve())


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("not json\n", "SE302"),
        ('{"relevant": ["a"]}\n', "SE303"),
        ('{"query": "x", "relevant": "a"}\n', "SE303"),
        ("\n\n", "SE304"),
        ("[1, 2]\n", "SE302"),
    ],
)
def test_bad_query_files_are_usage_errors_with_codes(tmp_path: Path, content: str, code: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=True)
    assert err.value.code == code


@pytest.mark.parametrize("labels", [{}, {"relevant": []}, {"relevant": None, "not_relevant": []}])
def test_a_query_line_that_names_no_skill_is_an_error(tmp_path: Path, labels: dict[str, object]) -> None:
    path = _write_jsonl(
        tmp_path / "q.jsonl", [{"query": "fine", "relevant": ["a"]}, {"query": "x", **labels}]
    )
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=True)
    assert err.value.code == "SE307" and err.value.message.startswith(f"{path}:2:")
    assert '"relevant"' in err.value.hint and '"not_relevant"' in err.value.hint


def test_eval_fails_on_a_query_line_that_tests_nothing(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"query": "trim the video", "relevant": [str(skill_root / "video-editing")]}, {"query": "x"}]
    queries = _write_jsonl(tmp_path / "q.jsonl", rows)
    with pytest.raises(SystemExit) as code:
        main(["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "bm25f"])
    assert code.value.code != 0
    err = capsys.readouterr().err
    assert "SE307" in err and "q.jsonl:2:" in err and "fix:" in err


def test_every_unusable_line_of_a_query_or_tools_file_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = ['{"query": "fine", "relevant": ["a"]}', "not json", "[1]", '{"relevant": ["a"]}']
    path.write_text("\n".join([*lines, *["oops"] * 30]) + "\n", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_queries(path, tools=True)
    message = err.value.message
    assert message.startswith(f"33 lines of {path} cannot be used:")
    assert all(f"{path}:{n}:" in message for n in (2, 3, 4)) and f"{path}:1:" not in message
    assert "... and 13 more" in message and '{"query": "..."' in err.value.hint
    tools = tmp_path / "tools.jsonl"
    tools.write_text('{"id": 3}\nnot json\n', encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_tools(tools)
    assert err.value.message.startswith("2 lines of") and err.value.code == "SE305"


def test_missing_query_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as err:
        load_queries(tmp_path / "nope.jsonl", tools=False)
    assert err.value.code == "SE301"


def test_eval_command_prints_json_with_ranked_tool_ids(
    tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = _write_jsonl(tmp_path / "tools.jsonl", TOOLS)  # type: ignore[arg-type]
    queries = _write_jsonl(tmp_path / "q.jsonl", [{"query": "split a pdf", "relevant": ["pdf"]}])
    main(
        [
            "eval",
            "--queries",
            str(queries),
            "--tools",
            str(tools),
            "--selector",
            "all",
            "--top",
            "2",
            "--json",
            "--no-semantic",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    names = [s["selector"] for s in out["selectors"]]
    assert names[0] == "default" and "codex_multi" in names and "semantic" not in names
    first = out["selectors"][0]
    assert first["recall@1"] == 1.0 and first["ranked"][0][0] == "pdf" and len(first["ranked"][0]) <= 2
    for key in ("recall@5", "mrr@10", "ndcg@10", "latency_p50_ms", "latency_p99_ms"):
        assert key in first


def test_eval_command_table_and_usage_errors(
    skill_root: Path, tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = _write_jsonl(
        tmp_path / "q.jsonl", [{"query": "trim a video", "relevant": [str(skill_root / "video-editing")]}]
    )
    main(
        ["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "bm25f", "--no-semantic"]
    )
    out = capsys.readouterr().out
    assert "bm25f" in out and "1.000" in out
    both = ["eval", "--queries", str(queries), "--root", str(skill_root), "--tools", str(queries)]
    for argv in (
        both,
        ["eval", "--queries", str(queries), "--root", str(skill_root), "--selector", "bogus"],
    ):
        with pytest.raises(SystemExit) as code:
            main(argv)
        assert code.value.code == 2
    err = capsys.readouterr().err
    assert "SE005" in err and "SE001" in err


def test_eval_with_missing_root_folder_says_so(
    tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str], make_skill: Callable[..., Path]
) -> None:
    queries = _write_jsonl(tmp_path / "q.jsonl", [{"query": "x", "relevant": []}])
    with pytest.raises(SystemExit):
        main(["eval", "--queries", str(queries), "--root", str(tmp_path / "missing")])
    assert "missing" in capsys.readouterr().err


def test_a_copy_of_a_skill_is_judged_by_the_label_on_the_skill(
    skill_root: Path, tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    original = skill_root / "video-editing"
    copy = tmp_path / "claude" / "video-editing"
    copy.mkdir(parents=True)
    copy.joinpath("SKILL.md").write_bytes((original / "SKILL.md").read_bytes())
    index = SkillIndex.build(discover_in([skill_root, copy.parent]).skills)
    queries = load_queries(
        _write_jsonl(
            tmp_path / "q.jsonl",
            [
                {"query": "trim the video clip", "relevant": [str(original)]},
                {"query": "trim the video clip", "not_relevant": [str(copy)]},
            ],
        ),
        tools=False,
    )
    report = run_eval(index, queries, ["bm25f"], k=1)
    assert [o.passed for o in report.outcomes] == [True, False]
    assert report.outcomes[1].false_triggers == (str(copy),)
    ranked = report.results[0].ranked[0]
    assert ranked[0] == str(original) and str(copy) not in ranked  # one place for the two copies
    assert report.results[0].recall_1 == 1.0


def test_a_query_file_that_starts_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('\ufeff{"query": "fill the form", "relevant": ["pdf"]}\n', encoding="utf-8")
    (query,) = load_queries(path, tools=True)
    assert query.query == "fill the form" and query.relevant == ("pdf",)


def test_a_skill_the_query_mentions_is_in_the_context_whatever_the_ranking_shows(
    skill_root: Path, tmp_path: Path
) -> None:
    skills = discover_in([skill_root]).skills
    release = next(s for s in skills if s.name == "git-release")
    folder = str(skill_root / "git-release")
    task = "resize these photos, then $git-release"
    rows: list[dict[str, object]] = [
        {"query": task, "relevant": [folder]},
        {"query": task, "not_relevant": [folder]},
    ]
    queries = load_queries(_write_jsonl(tmp_path / "q.jsonl", rows), tools=False)

    def nothing_confident(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        return list(ix.docs), False  # no suggestion is shown: only the mention enters the context

    turn = QueryTurn(mentioned=(release,), left_out=frozenset({str(release.path)}))
    report = run_eval(
        SkillIndex.build(skills), queries, ["default"], k=1, rank_fn=nothing_confident, turn=lambda q: turn
    )
    passing, failing = report.outcomes
    assert passing.passed and passing.rank is None and passing.mentioned == (folder,)
    assert not failing.passed and failing.false_triggers == (folder,) and failing.mentioned == (folder,)
    result = report.results[0]
    assert result.recall_1 == 1.0 and result.false_trigger_5 == 1.0
    assert result.ranked[0][0] == folder and result.ranked[0].count(folder) == 1


def test_a_mentioned_copy_of_a_skill_passes_the_label_on_the_skill(skill_root: Path, tmp_path: Path) -> None:
    original = skill_root / "video-editing"
    copy = tmp_path / "claude" / "video-editing"
    copy.mkdir(parents=True)
    copy.joinpath("SKILL.md").write_bytes((original / "SKILL.md").read_bytes())
    skills = discover_in([skill_root, copy.parent]).skills
    mentioned = next(s for s in skills if s.path.parent == copy)
    row: dict[str, object] = {"query": "tag a release with $video-editing", "relevant": [str(original)]}
    queries = load_queries(_write_jsonl(tmp_path / "q.jsonl", [row]), tools=False)
    turn = QueryTurn(mentioned=(mentioned,), left_out=frozenset({str(mentioned.path)}))
    report = run_eval(SkillIndex.build(skills), queries, ["default"], k=1, turn=lambda q: turn)
    (judged,) = report.outcomes
    assert judged.passed and judged.mentioned == (str(original),)
    ranked = report.results[0].ranked[0]
    assert ranked[0] == str(original) and str(copy) not in ranked  # the copy is not ranked again


def test_a_pinned_skill_is_in_the_context_of_every_query_the_default_selector_judges(
    skill_root: Path, tmp_path: Path
) -> None:
    skills = discover_in([skill_root]).skills
    pinned = next(s for s in skills if s.name == "git-release")
    folder, images = str(skill_root / "git-release"), str(skill_root / "image-resize")
    rows: list[dict[str, object]] = [
        {"query": "resize these photos", "relevant": [folder]},
        {"query": "resize these photos", "relevant": [images], "not_relevant": [folder]},
        {"query": "resize these photos", "relevant": [images]},
    ]
    queries = load_queries(_write_jsonl(tmp_path / "q.jsonl", rows), tools=False)

    def nothing_confident(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        return list(ix.docs), sel != "default"  # the default ranking would show no suggestion

    turn = QueryTurn(pinned=(pinned,))
    index = SkillIndex.build(skills)
    report = run_eval(
        index,
        queries,
        ["default", "bm25f"],
        k=1,
        rank_fn=nothing_confident,
        turn=lambda q: turn,
    )
    needed, refused, unlabelled = report.outcomes
    assert needed.passed and needed.pinned == (folder,) and needed.rank is None
    assert not refused.passed and refused.false_triggers == (folder,)
    assert not unlabelled.passed and unlabelled.pinned == ()  # nothing shown, images missed
    assert report.summary() == "default: 1 of 3 queries passed (top 1); 2 missed, 1 false trigger(s)"
    default, bm25f = report.results
    assert default.ranked[0][0] == folder and default.ranked[0].count(folder) == 1
    assert folder not in default.ranked[2]  # an unlabelled pinned skill is not ranked
    assert default.recall_1 == 1 / 3 and default.false_trigger_5 == 1.0
    in_order = tuple(str(Path(d.key).parent) for d in index.docs)
    assert all(ranked == in_order for ranked in bm25f.ranked)  # the ranking alone, pinned or not


def test_a_tool_id_given_twice_is_an_error_naming_both_lines(
    tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [*TOOLS, {"id": "pdf", "name": "dup", "description": "Another tool under the same id."}]
    tools = _write_jsonl(tmp_path / "tools.jsonl", rows)  # type: ignore[arg-type]
    with pytest.raises(UsageError) as err:
        load_tools(tools)
    assert err.value.code == "SE308" and f"{tools}:4:" in err.value.message and "line 1" in err.value.message
    assert "id" in err.value.hint
    queries = _write_jsonl(tmp_path / "q.jsonl", [{"query": "merge two pdfs", "relevant": ["pdf"]}])
    with pytest.raises(SystemExit) as code:
        main(["eval", "--queries", str(queries), "--tools", str(tools), "--selector", "default"])
    assert code.value.code == 2 and "SE308" in capsys.readouterr().err


def test_the_default_metrics_count_nothing_ranked_when_the_confidence_is_below_the_threshold(
    tmp_path: Path,
) -> None:
    rows: list[dict[str, object]] = [{"query": "merge two pdfs", "relevant": ["pdf"]}]
    queries = load_queries(_write_jsonl(tmp_path / "q.jsonl", rows), tools=True)
    index = SkillIndex.from_tools([(t["id"], t["name"], t["description"]) for t in TOOLS])

    def quiet(ix: SkillIndex, q: str, depth: int, sel: str) -> tuple[list[SkillDoc], bool]:
        return list(ix.docs), sel != "default"  # the default ranking would show no suggestion

    report = run_eval(index, queries, ["default", "bm25f"], rank_fn=quiet)
    (judged,) = report.outcomes
    assert not judged.passed and judged.missed and judged.quiet and judged.to_dict()["below_threshold"]
    default, bm25f = report.results
    assert (default.recall_1, default.recall_5, default.mrr_10, default.ndcg_10) == (0.0, 0.0, 0.0, 0.0)
    assert bm25f.recall_5 == 1.0  # the others judge their ranking alone
    assert "pdf" in default.ranked[0]  # the ranked list is still the ranking


def test_eval_warns_about_unknown_ids_naming_the_list_they_are_in(
    tmp_path: Path, isolated_home: object, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = _write_jsonl(tmp_path / "tools.jsonl", TOOLS)  # type: ignore[arg-type]
    rows: list[dict[str, object]] = [
        {"query": "merge two pdfs", "relevant": ["pdf", "gone"]},
        {"query": "resize a png", "relevant": ["img"], "not_relevant": ["t9"]},
    ]
    queries = _write_jsonl(tmp_path / "q.jsonl", rows)
    main(["eval", "--queries", str(queries), "--tools", str(tools), "--selector", "bm25f"])
    err = capsys.readouterr().err
    assert "warning: 1 relevant entr(y/ies) name no indexed skill or tool: gone\n" in err
    assert "warning: 1 not_relevant entr(y/ies) name no indexed skill or tool: t9\n" in err
    assert "can never trigger" in err and "--root" not in err  # tools are fixed in the tools file
    main(["eval", "--queries", str(queries), "--tools", str(tools), "--selector", "bm25f", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert (out["unknown_relevant"], out["unknown_not_relevant"]) == (["gone"], ["t9"])
