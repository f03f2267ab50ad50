"""`eval --selector default` judges a trigger on what the model is shown: the suggestions
(threshold, the half-of-best floor, max_suggestions), as `search` marks them and `context` shows
them, not on the first k of the ranking."""

from __future__ import annotations

import json
from pathlib import Path

from skillshelf.select.ranking import RankingSettings
from skillshelf.select.service import evaluate_file, search
from skillshelf.skills.discover import discover_in

TASK = "resize and crop PNG images"  # image-resize far ahead; video-editing ranked second, not shown


def _file(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "evals.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_skill_ranked_in_the_top_k_but_not_suggested_has_not_triggered(
    skill_root: Path, tmp_path: Path
) -> None:
    skills = discover_in([skill_root]).skills
    shown = search(skills, TASK, semantic=False)
    second = shown.ranked[1].doc.key
    assert shown.suggested == (shown.ranked[0].doc.key,) and second.endswith("video-editing/SKILL.md")
    rows: list[dict[str, object]] = [
        {"query": TASK, "relevant": ["skills/video-editing"]},
        {"query": TASK, "not_relevant": ["skills/video-editing"]},
        {"query": TASK, "relevant": ["skills/image-resize"]},
    ]
    report = evaluate_file(_file(tmp_path, rows), skills=skills, selector="default", k=5, semantic=False)
    missed, not_triggered, found = report.outcomes
    assert not missed.passed and missed.missed and not missed.quiet
    assert not_triggered.passed and not_triggered.false_triggers == ()
    assert found.passed and found.rank == 1
    default = report.results[0]
    assert default.recall_5 == 1.0  # the metrics still read the ranking (video-editing at rank 2)


def test_max_suggestions_caps_what_triggers(skill_root: Path, tmp_path: Path) -> None:
    skills = discover_in([skill_root]).skills
    rows: list[dict[str, object]] = [{"query": TASK, "relevant": ["skills/image-resize"]}]
    none = RankingSettings(max_suggestions=0)
    report = evaluate_file(
        _file(tmp_path, rows), skills=skills, selector="default", semantic=False, settings=none
    )
    (judged,) = report.outcomes
    assert not judged.passed and judged.missed
