"""search_skills while the embedding models warm up: the first search waits at most
``models_wait`` for their vectors, then answers with the base ranking and says so; once the
vectors are built, searches rank with the models. The encoder is a stand-in that blocks until
the test lets it go (no timings)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from serve_helpers import write_skill

from skillshelf.select import wordllama
from skillshelf.select.index import SkillIndex
from skillshelf.select.semantic import SemanticIndex
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.warming import MODELS_WAIT_SECONDS, WARMING_NOTE
from skillshelf.skills.discover import discover_in

pytestmark = pytest.mark.usefixtures("isolated_home")


class HeldWords:
    """A WordLlama stand-in whose document encoding waits for ``release``."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def encode(self, texts: list[str]) -> np.ndarray:
        if len(texts) > 1 or not self.release.is_set():
            self.started.set()
            assert self.release.wait(60), "the test never released the encoder"
        vectors = np.ones((len(texts), wordllama.DIM), np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _tools(tmp_path: Path, words: HeldWords, *, models_wait: float = 0.0) -> SkillTools:
    root = tmp_path / "skills"
    write_skill(root, "deploy-helper", "Deploy the app to production and roll it back.", "# deploy\n")
    write_skill(root, "pdf-forms", "Fill in PDF forms.", "# pdf\n")

    def build(index: SkillIndex) -> SemanticIndex:
        return SemanticIndex.build(index, encoder=False, words=words)

    return SkillTools(discover_in([root]).skills, models_wait=models_wait, build_models=build)


def test_a_search_before_the_models_are_warm_answers_with_the_base_ranking_and_says_so(
    tmp_path: Path,
) -> None:
    words = HeldWords()
    tools = _tools(tmp_path, words)
    try:
        result = tools.dispatch("search_skills", {"query": "deploy the app"})
        assert not result.is_error and "deploy-helper" in result.text
        assert result.text.endswith(WARMING_NOTE) and "base ranking" in WARMING_NOTE
        assert result.data["models_warming"] is True and result.data["models"] == []
        assert words.started.is_set() and not tools.models_ready(0)
    finally:
        words.release.set()


def test_a_search_once_the_models_are_warm_ranks_with_them(tmp_path: Path) -> None:
    words = HeldWords()
    tools = _tools(tmp_path, words)
    tools.dispatch("search_skills", {"query": "deploy the app"})
    words.release.set()
    assert tools.models_ready(60)
    result = tools.dispatch("search_skills", {"query": "deploy the app"})
    assert WARMING_NOTE not in result.text and "deploy-helper" in result.text
    assert result.data["models_warming"] is False and result.data["models"] == ["wordllama"]


def test_a_search_waits_for_models_that_get_ready_within_the_wait(tmp_path: Path) -> None:
    words = HeldWords()
    words.release.set()  # ready as soon as built, long before the wait is over
    tools = _tools(tmp_path, words, models_wait=3600.0)
    result = tools.dispatch("search_skills", {"query": "deploy the app"})
    assert result.data["models"] == ["wordllama"] and WARMING_NOTE not in result.text


def test_the_wait_for_the_models_stays_well_inside_an_mcp_clients_tool_timeout() -> None:
    codex_default_tool_timeout = 60
    assert 0 < MODELS_WAIT_SECONDS <= codex_default_tool_timeout / 4


def test_once_a_search_waited_out_the_models_later_ones_answer_without_waiting(tmp_path: Path) -> None:
    words = HeldWords()
    tools = _tools(tmp_path, words, models_wait=0.05)
    waits: list[float | None] = []
    ready = tools.models_ready
    tools.models_ready = lambda timeout=None: waits.append(timeout) or ready(timeout)  # type: ignore[method-assign]
    try:
        for _ in range(3):
            assert tools.dispatch("search_skills", {"query": "deploy the app"}).data["models_warming"]
    finally:
        words.release.set()
    assert waits[0] is not None and waits[0] > 0 and waits[1:] == [0.0, 0.0]


def test_a_stdio_server_outlasts_a_first_searchs_wait_for_the_models_once_stdin_ends() -> None:
    from skillshelf.serve.stdio import DRAIN_SECONDS

    index_build = 10.0  # a thousand skills, nothing cached, two busy cores
    assert MODELS_WAIT_SECONDS + index_build <= DRAIN_SECONDS
