"""A request that is only a skill's name puts that skill first (select/named.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillshelf.select.docs import SkillDoc
from skillshelf.select.index import SkillIndex
from skillshelf.select.named import MAX_NAME_CHARS, named_first, normalised_name
from skillshelf.select.selectors import default_parts


def _doc(name: str, description: str, body: str = "") -> SkillDoc:
    return SkillDoc(key=f"/s/{name}/SKILL.md", name=name, description=description, path_words=name, body=body)


def _index() -> SkillIndex:
    return SkillIndex.from_docs(
        [
            _doc("pdf", "Read PDF files.", "Extract text."),
            _doc("pdf-forms", "Fill in PDF forms, PDF fields and PDF checkboxes.", "Fill PDF form fields."),
            _doc("git-history", "Rewrite git history safely.", "Rebase."),
        ]
    )


def _first(index: SkillIndex, scores: np.ndarray) -> str:
    return index.docs[int(np.argmax(scores))].name


def test_a_request_that_is_a_skills_name_ranks_it_first_over_a_longer_namesake() -> None:
    index = _index()
    assert _first(index, default_parts(index, "pdf").total) == "pdf"
    assert _first(index, default_parts(index, "PDF Forms").total) == "pdf-forms"
    assert _first(index, default_parts(index, "`pdf_forms`").total) == "pdf-forms"


def test_the_named_skill_takes_the_best_score_and_the_others_keep_their_order_below() -> None:
    index = _index()
    names = [d.name for d in index.docs]
    total = np.array([{"git-history": 0.2, "pdf": 0.5, "pdf-forms": 0.9}[n] for n in names], np.float32)
    out = named_first(index, "pdf", total)
    assert sorted(out.tolist()) == pytest.approx(sorted(total.tolist()))
    by_name = dict(zip(names, out.tolist(), strict=True))
    assert by_name == pytest.approx({"pdf": 0.9, "pdf-forms": 0.5, "git-history": 0.2})


def test_a_task_that_only_mentions_a_name_is_ranked_as_it_was() -> None:
    index = _index()
    names = [d.name for d in index.docs]
    total = np.array([{"git-history": 0.2, "pdf": 0.5, "pdf-forms": 0.9}[n] for n in names], np.float32)
    assert named_first(index, "fill the pdf form", total) is total
    assert named_first(index, "pdf-forms", total) is total  # already first
    assert named_first(index, "pdf " * MAX_NAME_CHARS, total) is total


def test_the_explained_parts_still_add_up_when_the_named_skill_moves() -> None:
    index = _index()
    parts = default_parts(index, "pdf")
    assert sum(parts.terms.values()).tolist() == pytest.approx(parts.total.tolist(), abs=1e-6)


@given(st.text(max_size=40))
def test_normalising_a_name_twice_changes_nothing(text: str) -> None:
    once = normalised_name(text)
    assert normalised_name(once) == once
    assert once == once.strip() and "  " not in once


@given(st.text(alphabet="abcXYZ-_ ", min_size=1, max_size=20))
def test_case_and_separators_do_not_matter(name: str) -> None:
    assert normalised_name(name.upper().replace("-", "_")) == normalised_name(name.lower().replace("_", " "))
