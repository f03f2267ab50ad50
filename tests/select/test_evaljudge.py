"""Judging one eval query: a skill pinned in config or mentioned by the query is in the context
whatever the ranking, a relevant one passes the query and a not_relevant one fails it."""

from __future__ import annotations

import json
from pathlib import Path

from skillshelf.select import evaluate
from skillshelf.select.evalfile import EvalQuery, load_queries
from skillshelf.select.evaljudge import (
    PINNED_WHY,
    QueryTurn,
    as_shown,
    copy_sets,
    doc_key,
    outcome,
)
from skillshelf.select.index import SkillIndex
from skillshelf.skills.discover import discover_in


def _query(relevant: tuple[str, ...] = (), not_relevant: tuple[str, ...] = ()) -> EvalQuery:
    return EvalQuery(line=1, query="resize photos", relevant=relevant, not_relevant=not_relevant)


def test_a_pinned_relevant_skill_passes_even_when_nothing_is_shown() -> None:
    judged = outcome(_query(relevant=("/s/pdf",)), ["/s/img"], 5, False, pinned=("/s/pdf",))
    assert judged.passed and not judged.missed and judged.rank is None
    assert judged.pinned == ("/s/pdf",) and judged.mentioned == ()
    assert judged.context_notes() == (f"pdf {PINNED_WHY}",) == ("pdf pinned: always in context",)
    assert judged.to_dict()["pinned"] == [{"skill": "/s/pdf", "why": PINNED_WHY}]


def test_a_pinned_not_relevant_skill_is_a_false_trigger_whatever_the_ranking() -> None:
    q = _query(relevant=("/s/img",), not_relevant=("/s/pdf",))
    judged = outcome(q, ["/s/img"], 1, True, pinned=("/s/pdf", "/s/other"))
    assert not judged.passed and judged.rank == 1 and not judged.missed
    assert judged.false_triggers == ("/s/pdf",) and judged.pinned == ("/s/pdf",)  # the unlabelled left out


def test_a_pinned_skill_the_query_also_mentions_counts_as_pinned_once() -> None:
    q = _query(not_relevant=("/s/pdf",))
    judged = outcome(q, [], 5, True, mentioned=("/s/pdf",), pinned=("/s/pdf",))
    assert judged.pinned == ("/s/pdf",) and judged.mentioned == () and judged.false_triggers == ("/s/pdf",)
    assert judged.context_notes() == (f"pdf {PINNED_WHY}",)


def test_as_shown_takes_pinned_skills_and_their_copies_out_of_the_ranking(
    skill_root: Path, tmp_path: Path
) -> None:
    original = skill_root / "pdf-tools"
    copy = tmp_path / "claude" / "pdf-tools"
    copy.mkdir(parents=True)
    copy.joinpath("SKILL.md").write_bytes((original / "SKILL.md").read_bytes())
    skills = discover_in([skill_root, copy.parent]).skills
    index = SkillIndex.build(skills)
    pinned = next(s for s in skills if s.path.parent == original)
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"query": "merge PDFs", "relevant": [str(copy)]}) + "\n", encoding="utf-8")
    (asked,) = load_queries(path, tools=False)

    view = as_shown(index.docs, asked, QueryTurn(pinned=(pinned,)), copy_sets(index))
    assert view.pinned == (str(copy),) and view.mentioned == ()  # the label on the copy names it
    assert str(original) not in view.ranked and str(copy) not in view.ranked
    assert view.in_context(1) == (str(copy), view.ranked[0])

    unlabelled = EvalQuery(line=2, query="merge PDFs", relevant=(doc_key(index.docs[-1]),))
    view = as_shown(index.docs, unlabelled, QueryTurn(pinned=(pinned,)), copy_sets(index))
    assert view.pinned == () and str(original) not in view.ranked  # never ranked, not in the metrics


def test_the_judging_names_are_importable_from_evaluate_as_before() -> None:
    from skillshelf.select import evaljudge

    for name in ("MENTIONED_WHY", "PINNED_WHY", "QueryOutcome", "QueryTurn", "TurnFn", "doc_key", "outcome"):
        assert getattr(evaluate, name) is getattr(evaljudge, name) and name in evaluate.__all__
