"""Selectors: Codex's shadow rules reproduced exactly, and skillshelf's own rankings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillshelf.errors import UsageError
from skillshelf.select import rank_docs
from skillshelf.select.docs import SkillDoc, doc_for_tool
from skillshelf.select.index import SkillIndex
from skillshelf.select.registry import SELECTORS
from skillshelf.select.selectors.codex import codex_bm25, codex_lexical, codex_ngram, split_views
from skillshelf.select.selectors.sparse import top_hits
from skillshelf.skills.discover import discover_in


def _tools(*rows: tuple[str, str]) -> SkillIndex:
    return SkillIndex.from_tools([(name, name, desc) for name, desc in rows])


def _scores(hits: list[tuple[int, float]], index: SkillIndex) -> dict[str, float]:
    return {index.docs[i].name: s for i, s in hits}


def test_codex_weighted_lexical_adds_phrase_name_field_and_match_count_points() -> None:
    index = _tools(
        ("pdf", "Merge PDF files"), ("pdf-merge", "Combine documents"), ("notes", "Keep a document log")
    )
    scores = _scores(codex_lexical(index, "pdf", 10), index)
    assert scores == {"pdf": 256 + 128 + 4 + 1, "pdf-merge": 64 + 1}
    # "documents" is related (prefix) to "document" in a description: +1, plus 1 matched term squared
    related = _scores(codex_lexical(index, "documents", 10), index)
    assert related == {"pdf-merge": 4 + 1, "notes": 1 + 1}


def test_codex_lexical_ignores_stop_words_and_one_letter_terms() -> None:
    index = _tools(("what", "Use the tool"), ("x", "a b c"))
    assert codex_lexical(index, "what is the x use", 10) == []


def test_codex_bm25_prefers_the_name_field_by_weight() -> None:
    index = _tools(("invoice", "Create documents"), ("writer", "Create an invoice document"))
    hits = codex_bm25(index, "invoice", 10)
    assert [index.docs[i].name for i, _ in hits] == ["invoice", "writer"]
    assert hits[0][1] > hits[1][1] > 0


def test_codex_ngram_needs_three_shared_grams_and_survives_typos() -> None:
    index = _tools(("spreadsheet", "Edit workbooks"), ("calendar", "Plan meetings"))
    assert [index.docs[i].name for i, _ in codex_ngram(index, "spredsheet", 10)] == ["spreadsheet"]
    assert codex_ngram(index, "zq", 10) == []


def test_multi_query_views_split_sentences_and_connectors() -> None:
    views = split_views("Resize the images and then upload them. Also write a summary")
    assert views == [
        "Resize the images and then upload them. Also write a summary",
        "Resize the images",
        "upload them",
        "write a summary",
    ]
    assert split_views("one clause only") == ["one clause only"]


def test_ties_break_by_name_then_path() -> None:
    # names without meaning (no word vector either), so the three skills tie on every signal
    names = ("qzxb", "qzxa", "qzxc")
    docs = [SkillDoc(key=f"/s/{n}/SKILL.md", name=n, description="merge pdf files") for n in names]
    index = SkillIndex.from_docs(docs)
    for selector in ("default", "bm25f", "codex_lexical", "codex_bm25"):
        assert [r.doc.name for r in rank_docs(index, "merge pdf", selector=selector)] == sorted(names)


def test_name_match_lifts_a_skill_whose_name_the_task_uses() -> None:
    index = SkillIndex.from_docs(
        [
            doc_for_tool("ffmpeg", "ffmpeg", "Process media."),
            doc_for_tool(
                "other", "media-notes", "Notes about media processing of audio and video media files."
            ),
        ]
    )
    assert rank_docs(index, "Use ffmpeg to process the media files", top_k=1)[0].doc.name == "ffmpeg"


def test_a_chinese_request_finds_the_chinese_skill_that_does_it() -> None:
    index = _tools(
        ("news-search", "搜索最新的新闻和网页，返回标题和链接。"),
        ("weather", "查询城市的天气预报和空气质量。"),
        ("translate", "把文本翻译成其他语言。"),
    )
    for selector in ("bm25f", "default"):
        hits = rank_docs(index, "帮我搜索一下最近一周的新闻", top_k=1, selector=selector)
        assert [h.doc.name for h in hits] == ["news-search"], selector


def test_typo_still_finds_the_skill_with_the_default_fusion() -> None:
    index = _tools(
        ("spreadsheet-helper", "Edit spreadsheets and workbooks"), ("calendar", "Plan meetings and events")
    )
    assert rank_docs(index, "edit my spredsheet", top_k=1)[0].doc.name == "spreadsheet-helper"


def test_usage_prior_breaks_near_ties_but_never_lifts_a_non_match() -> None:
    # two copies of one skill under different folders: an exact tie that only the prior breaks
    docs = [
        SkillDoc(key=f"/s/{n}/SKILL.md", name="pdf-merge", description="merge pdf files") for n in ("a", "b")
    ]
    docs.append(SkillDoc(key="/s/z/SKILL.md", name="z", description="bake bread"))
    index = SkillIndex.from_docs(docs)
    prior = {"/s/b/SKILL.md": 1.0, "/s/z/SKILL.md": 1.0}
    ranked = [r.doc.key for r in rank_docs(index, "merge pdf", usage=prior)]
    assert ranked == ["/s/b/SKILL.md", "/s/a/SKILL.md"]
    assert [r.doc.key for r in rank_docs(index, "anything", selector="usage", usage=prior)] == [
        "/s/b/SKILL.md",
        "/s/z/SKILL.md",
    ]


def test_every_selector_runs_and_returns_ranks_from_one() -> None:
    index = _tools(("pdf", "Merge PDF files. Split pages."), ("img", "Resize images"))
    for spec in SELECTORS:
        if spec.model is not None:
            continue
        ranked = rank_docs(
            index, "merge pdf pages and resize images", selector=spec.name, usage={"tool:img": 1.0}
        )
        assert [r.rank for r in ranked] == list(range(1, len(ranked) + 1))


def test_unknown_selector_and_semantic_without_model_are_usage_errors() -> None:
    index = _tools(("pdf", "Merge PDF files"))
    with pytest.raises(UsageError) as bad:
        rank_docs(index, "pdf", selector="nope")
    assert bad.value.code == "SE001"
    with pytest.raises(UsageError) as sem:
        rank_docs(index, "pdf", selector="semantic")
    assert sem.value.code == "SE002"
    with pytest.raises(UsageError) as words:
        rank_docs(index, "pdf", selector="wordllama")
    assert words.value.code == "SE002"


def test_default_reads_typos_in_a_request_but_not_in_a_long_task(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillshelf.select import selectors

    index = _tools(("pdf-merge", "Merge PDF files into one document"), ("img", "Resize images"))
    assert not rank_docs(index, "resizng imagse", selector="bm25f")
    assert rank_docs(index, "resizng imagse")[0].doc.name == "img"  # n-grams (and static vectors) read it
    seen: list[str] = []
    real = selectors.ngram_scores
    monkeypatch.setattr(selectors, "ngram_scores", lambda ix, q: seen.append(q) or real(ix, q))
    rank_docs(index, "resizng imagse")
    task = " ".join(["Please combine the quarterly PDF reports into one file for the board."] * 5)
    assert rank_docs(index, task)[0].doc.name == "pdf-merge"
    assert seen == ["resizng imagse"]


def test_among_a_few_skills_one_body_word_does_not_outrank_a_description_that_matches(
    tmp_path: Path, make_skill: Callable[..., Path]
) -> None:
    make_skill(
        tmp_path, "csv-dedupe", "Remove duplicate rows from CSV exports.", "# Steps\n\nSort, then compare.\n"
    )
    make_skill(
        tmp_path,
        "release-notes",
        "Draft release notes from merged pull requests.",
        "# Notes\n\nOne line per change, in rows.\n",
    )
    make_skill(tmp_path, "image-resize", "Resize and crop images in bulk.", "# Images\n\nUse Pillow.\n")
    index = SkillIndex.build(discover_in([tmp_path]).skills)
    query = "remove the duplicate rows from my csv export"
    lexical = {r.doc.name: r.score for r in rank_docs(index, query, selector="bm25f")}
    assert list(lexical) == ["csv-dedupe", "release-notes"]
    assert [r.doc.name for r in rank_docs(index, query)] == ["csv-dedupe", "release-notes"]


_TIE_SCORES = st.lists(st.sampled_from([-1.0, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(_TIE_SCORES, st.integers(-1, 45))
def test_top_hits_are_the_best_positive_entries_ties_by_name_then_path(
    values: list[float], limit: int
) -> None:
    # names repeat (every fifth entry shares one), so ties by score fall to the name, then the path
    index = SkillIndex.from_tools([(f"t{i}", f"tool-{i % 5}", "a tool") for i in range(len(values))])
    scores = np.array(values, np.float32)
    docs = index.docs
    expected = sorted(
        (i for i, v in enumerate(values) if v > 0), key=lambda i: (-values[i], docs[i].name, docs[i].key)
    )[: max(limit, 0)]
    assert top_hits(index, scores, limit) == [(i, values[i]) for i in expected]
