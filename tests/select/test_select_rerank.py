"""The learned reorder of the default ranking's best skills (select/rerank.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from skillshelf.select.docs import SkillDoc, doc_for_tool
from skillshelf.select.index import SkillIndex
from skillshelf.select.rerank import (
    DEPTH,
    MINILM_FEATURES,
    MODELS,
    candidate_features,
    reordered,
    skill_files,
)
from skillshelf.select.selectors import DefaultScores, default_parts

BOTH = ("minilm", "wordllama")
TOOLS = [
    ("csv", "csv-cleaner", "Clean and deduplicate CSV files"),
    ("pdf", "pdf-forms", "Fill in PDF forms"),
    ("sql", "sql-tuning", "Speed up slow SQL queries"),
    ("git", "git-history", "Rewrite git history safely"),
    ("img", "image-resize", "Resize and crop images"),
]


def _index() -> SkillIndex:
    return SkillIndex.from_tools(TOOLS)


def _parts(index: SkillIndex, total: list[float], minilm: list[float]) -> DefaultScores:
    n = len(index)
    zeros = np.zeros(n, np.float32)
    return DefaultScores(
        total=np.array(total, np.float32),
        meta=np.array(total, np.float32),
        body=zeros,
        minilm=np.array(minilm, np.float32),
        words=np.full(n, 0.5, np.float32),
        terms={"bm25f": np.array(total, np.float32), "name": zeros, "minilm": zeros, "wordllama": zeros},
        weights={"tidy": 1.0},  # a word no tool has: the request shares only its sense
    )


def test_the_reorder_deals_out_the_same_scores() -> None:
    index = _index()
    parts = _parts(index, [0.80, 0.79, 0.78, 0.2, 0.0], [0.1, 0.7, 0.4, 0.9, 0.2])
    out = reordered(index, parts, parts.weights, True, BOTH)
    assert sorted(out.tolist()) == pytest.approx(sorted(parts.total.tolist()))
    assert out[4] == 0.0  # a skill that scores nothing is never lifted (it is no candidate's place)


def test_models_without_a_fitted_reorder_keep_the_fused_order() -> None:
    index = _index()
    parts = _parts(index, [0.80, 0.79, 0.3, 0.2, 0.1], [0.30, 0.75, 0.2, 0.2, 0.2])
    assert ("wordllama",) not in MODELS
    for models in ((), ("wordllama",)):
        out = reordered(index, parts, parts.weights, True, models)
        assert out.tolist() == parts.total.tolist()


def test_nothing_scoring_is_left_as_it_is() -> None:
    index = _index()
    parts = _parts(index, [0.0] * 5, [0.9, 0.1, 0.1, 0.1, 0.1])
    assert reordered(index, parts, parts.weights, True, BOTH).tolist() == [0.0] * 5


def test_the_features_read_each_field_share_of_the_request() -> None:
    index = _index()
    weights = {"clean": 1.0, "csv": 1.0}
    parts = _parts(index, [0.9, 0.1, 0.0, 0.0, 0.0], [0.5] * 5)
    top = np.array([0, 1])
    x = candidate_features(index, parts, weights, top, True)
    assert x.shape == (2, len(MINILM_FEATURES))
    q_any = MINILM_FEATURES.index("q_any")
    assert x[0, q_any] == pytest.approx(1.0)  # both words are csv-cleaner's
    assert x[1, q_any] == 0.0
    assert x[0, MINILM_FEATURES.index("q_name")] > 0
    assert x[0, MINILM_FEATURES.index("log_blen")] == 0.0  # a tool has no body


class _Semantic:
    """The two models' cosines, made up: MiniLM far prefers the tool named ``nearest``."""

    models = BOTH
    encoder = words = object()

    def __init__(self, nearest: str) -> None:
        self.nearest = nearest

    def scores(self, index: SkillIndex, query: str) -> Any:
        return np.array([0.9 if d.name == self.nearest else 0.2 for d in index.docs], np.float32)

    def word_scores(self, index: SkillIndex, query: str) -> Any:
        return np.full(len(index), 0.5, np.float32)


class _Graded:
    """Both models' cosines per skill name, made up."""

    models = BOTH
    encoder = words = object()

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines

    def scores(self, index: SkillIndex, query: str) -> Any:
        return np.array([self.cosines[d.name] for d in index.docs], np.float32)

    word_scores = scores


def _first(index: SkillIndex, scores: Any) -> str:
    return index.docs[int(np.argmax(scores))].name


def _fused(parts: DefaultScores) -> Any:
    return sum(v for k, v in parts.terms.items() if k != "rerank")


def test_among_tools_a_far_nearer_skill_by_minilm_overtakes_a_lexical_lead() -> None:
    index = _index()
    semantic: Any = _Semantic("pdf-forms")
    parts = default_parts(index, "clean the csv", semantic)
    assert _first(index, _fused(parts)) == "csv-cleaner"
    assert _first(index, parts.total) == "pdf-forms"
    assert sorted(parts.total.tolist()) == pytest.approx(sorted(_fused(parts).tolist()), abs=1e-6)


def test_a_lexical_lead_the_models_agree_with_stays_first() -> None:
    index = _index()
    semantic: Any = _Semantic("csv-cleaner")
    parts = default_parts(index, "clean and deduplicate csv files", semantic)
    assert _first(index, parts.total) == "csv-cleaner"


def test_the_explained_parts_of_a_reordered_ranking_add_up_to_its_scores() -> None:
    index = _index()
    semantic: Any = _Semantic("pdf-forms")
    parts = default_parts(index, "clean the csv", semantic)
    assert len(index) <= DEPTH
    assert "rerank" in parts.terms
    assert sum(parts.terms.values()).tolist() == pytest.approx(parts.total.tolist(), abs=1e-6)


def _skill_doc(name: str, description: str, body: str) -> SkillDoc:
    return SkillDoc(
        key=f"/skills/{name}/SKILL.md",
        name=name,
        description=description,
        path_words=f"skills {name}",
        body=body,
    )


def test_skill_files_are_told_from_tool_records_whatever_their_body() -> None:
    index = SkillIndex.from_docs(
        [
            doc_for_tool("t", "tool-a", "A tool record"),
            _skill_doc("bodiless", "No body.", ""),
            _skill_doc("full", "Full.", "Steps here"),
        ]
    )
    assert dict(
        zip([d.name for d in index.docs], skill_files(index, np.arange(len(index))).tolist(), strict=True)
    ) == {
        "bodiless": True,
        "full": True,
        "tool-a": False,
    }


def test_a_skill_without_a_body_stays_first_when_the_request_names_it() -> None:
    docs = [
        _skill_doc("omega", "Omega.", "O"),  # a body that tokenises to nothing
        _skill_doc("beta", "Beta release notes helper.", "Write beta release notes from the changelog."),
        _skill_doc(
            "eps2", "Epsilon two numeric tolerance checks.", "Check floating point tolerances in tests."
        ),
        _skill_doc("gamma", "Gamma ray plots.", "Plot gamma spectra with matplotlib."),
    ]
    index = SkillIndex.from_docs(docs)
    assert index.content.lengths[index.by_key["/skills/omega/SKILL.md"]].sum() == 0
    semantic: Any = _Graded({"omega": 0.5, "beta": 0.45, "eps2": 0.4, "gamma": 0.35})
    parts = default_parts(index, "omega", semantic)
    assert _first(index, parts.total) == "omega"
