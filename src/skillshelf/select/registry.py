"""The selectors: :data:`SELECTORS`, one :class:`SelectorSpec` per name (its ranking function,
the embedding model it needs, one line of help). ``rank_docs``, ``search``/``evaluate_file``
(``all``), the shadow log of :mod:`skillshelf.select.usage` and the CLI's ``--selector`` help all
read this registry.

A new selector is a function ``(index, query, limit, extras) -> [(doc, score), ...]`` (see
:mod:`skillshelf.select.selectors`) and one entry in :data:`BUILTIN_SELECTORS`; a program that
embeds skillshelf may ``SELECTORS.register`` its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from skillshelf.registry import Registry, check_name
from skillshelf.select.index import SkillIndex
from skillshelf.select.selectors import (
    Extras,
    SelectorFn,
    _default,
    _rrf_all,
    _semantic,
    _usage,
    _wordllama,
)
from skillshelf.select.selectors.codex import codex_bm25, codex_lexical, codex_multi, codex_ngram
from skillshelf.select.selectors.sparse import bm25f, multi, ngram

__all__ = ["BUILTIN_SELECTORS", "EXTRA_OF", "SELECTORS", "SelectorSpec"]

Model = Literal["minilm", "wordllama"]
Hit = tuple[int, float]

EXTRA_OF: Mapping[str, str] = MappingProxyType({"minilm": "'skillshelf[semantic]'", "wordllama": "wordllama"})
"""What to ``pip install`` for each model (WordLlama is a dependency of the base install)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectorSpec:
    """One selector. ``model``: the embedding model it cannot run without (None: none).
    ``models``: which models ``search``/``eval`` load for it when the caller does not say
    (None: every installed one; True: MiniLM, required; False: none). ``compared``: whether
    ``eval --selector all`` and the shadow log run it (False for a ranking of the usage prior
    alone, which ignores the query)."""

    name: str
    run: SelectorFn
    help: str
    model: Model | None = None
    models: bool | None = False
    compared: bool = True

    def __post_init__(self) -> None:
        check_name("selector", self.name, reserved=("all",))


def _wrap(fn: Callable[[SkillIndex, str, int], list[Hit]]) -> SelectorFn:
    def run(index: SkillIndex, query: str, limit: int, extras: Extras) -> list[Hit]:
        return fn(index, query, limit)

    run.__doc__ = fn.__doc__
    return run


BUILTIN_SELECTORS: tuple[SelectorSpec, ...] = (
    SelectorSpec(name="default", run=_default, help="the ranking context, the agent and the MCP server use"),
    SelectorSpec(name="bm25f", run=_wrap(bm25f), help="BM25F over every field, body included"),
    SelectorSpec(name="ngram", run=_wrap(ngram), help="character n-grams of the name and descriptions"),
    SelectorSpec(name="multi", run=_wrap(multi), help="BM25F per clause of the request, fused by rank"),
    SelectorSpec(
        name="rrf", run=_rrf_all, help="bm25f, ngram, multi (and MiniLM) fused by rank", models=None
    ),
    SelectorSpec(name="usage", run=_usage, help="the usage prior alone (ignores the query)", compared=False),
    SelectorSpec(name="codex_lexical", run=_wrap(codex_lexical), help="Codex's weighted_lexical_v1"),
    SelectorSpec(name="codex_bm25", run=_wrap(codex_bm25), help="Codex's fielded_bm25_v1"),
    SelectorSpec(name="codex_ngram", run=_wrap(codex_ngram), help="Codex's character_ngram_v1"),
    SelectorSpec(name="codex_multi", run=_wrap(codex_multi), help="Codex's multi_query_lexical_v1"),
    SelectorSpec(
        name="semantic",
        run=_semantic,
        help="MiniLM embeddings (skillshelf[semantic])",
        model="minilm",
        models=True,
    ),
    SelectorSpec(
        name="wordllama",
        run=_wordllama,
        help="WordLlama embeddings (short requests)",
        model="wordllama",
        models=None,
    ),
)
SELECTORS: Registry[SelectorSpec] = Registry(
    "selector", BUILTIN_SELECTORS, unknown_code="SE001", taken_code="SE008"
)
