"""The tuning requests in ``bench/data``: well formed, and every label a skill of the corpora; and
how the benchmark (``bench/selection_sets.py``) reads a held-out file in the same format."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from testkit import REPO, shared_path

AUTHORED = REPO / "bench" / "data" / "authored-requests.jsonl"
KINDS = {"direct", "paraphrase", "indirect", "multi", "none"}


def _requests() -> list[dict[str, Any]]:
    return [json.loads(line) for line in AUTHORED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_authored_requests_are_well_formed_tuning_rows() -> None:
    requests = _requests()
    assert len({r["id"] for r in requests}) == len(requests)
    assert all(r["split"] == "dev2" and r["kind"] in KINDS and r["query"].strip() for r in requests)
    assert all((r["kind"] == "none") == (not r["relevant"]) for r in requests)
    assert all(len(r["relevant"]) >= 2 for r in requests if r["kind"] == "multi")
    kinds = Counter(r["kind"] for r in requests)
    assert kinds["none"] >= 100 and sum(kinds.values()) - kinds["none"] >= 150, kinds


def test_every_authored_label_is_a_skill_agents_would_find() -> None:
    corpora = shared_path("corpora")
    for request in _requests():
        for folder in request["relevant"]:
            assert not any(part.startswith(".") for part in folder.split("/")), (request["id"], folder)
            assert (corpora / folder / "SKILL.md").is_file(), (request["id"], folder)


def test_a_held_out_file_is_read_without_its_dev_rows_and_labels_no_skill_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import selection_sets
    finally:
        sys.path.remove(str(REPO / "bench"))
    from skillshelf.select.docs import SkillDoc
    from skillshelf.select.index import SkillIndex

    def key(folder: str) -> str:
        return str(selection_sets.SHARED / "corpora" / folder / "SKILL.md")

    index = SkillIndex.from_docs([SkillDoc(key=key("c/one"), name="one", description="Does one thing.")])
    rows = [
        {"id": "a", "query": "q", "relevant": ["c/one"], "kind": "direct", "split": "test"},
        {"id": "b", "query": "q", "relevant": ["c/one", "c/gone"]},  # no kind, no split
        {"id": "c", "query": "q", "relevant": [], "kind": "none"},
        {"id": "d", "query": "q", "relevant": ["c/one"], "kind": "direct", "split": "dev"},
        {"id": "e", "query": "q", "relevant": ["c/gone"], "kind": "paraphrase"},
        {"id": "f", "query": "q", "relevant": ["corpora/c/one/SKILL.md"], "kind": "direct"},
        {"id": "g", "query": "q", "relevant": [str(selection_sets.SHARED / "corpora" / "c" / "one") + "/"]},
    ]
    path = tmp_path / "held.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    held = selection_sets.held_out_requests(path, index)
    assert [(q["id"], q["kind"], q["relevant"]) for q in held] == [
        ("a", "direct", [key("c/one")]),
        ("b", "all", [key("c/one")]),
        ("c", "none", []),
        ("f", "direct", [key("c/one")]),  # the same folder, written another way
        ("g", "all", [key("c/one")]),
    ]
    assert "1 label(s) name no corpus skill" in capsys.readouterr().err


def test_a_right_skill_shown_as_its_copy_is_not_counted_as_held_back() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import selection
    finally:
        sys.path.remove(str(REPO / "bench"))
    from skillshelf.select.docs import SkillDoc
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.ranking import Ranker, RankingSettings

    pdf = "Merge, split and rotate PDF files."
    docs = [
        SkillDoc(key="/a/pdf/SKILL.md", name="pdf", description=pdf),
        SkillDoc(key="/b/pdf/SKILL.md", name="pdf", description=pdf),
        SkillDoc(key="/a/video/SKILL.md", name="video", description="Trim and cut video clips."),
    ]
    ranker = Ranker(SkillIndex.from_docs(docs), settings=RankingSettings(min_confidence=0.0))
    query = {"id": "q", "query": "merge two pdf files", "relevant": ["/b/pdf/SKILL.md"]}
    assert [r.doc.key for r in ranker.rank("merge two pdf files").suggested] == ["/a/pdf/SKILL.md"]
    assert selection.abstention(ranker, [query])["right_skill_held_back"] == 0.0


def test_the_benchmark_refuses_a_set_name_it_does_not_know() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import selection
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert selection._set_names("requests, latency") == {"requests", "latency"}
    choices = "choose from requests, metatool, skillsbench, latency"
    for wrong in ("skill-requests", "requests,metatol", ","):
        with pytest.raises(argparse.ArgumentTypeError, match=choices):
            selection._set_names(wrong)
