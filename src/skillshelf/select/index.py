"""The search index over skills: built once, cached on disk, updated incrementally.

Per skill it indexes the name, short description, description, the headings and text of the
``SKILL.md`` body, and the words of its folder path (BM25F postings), plus character n-grams
of the name and descriptions (typos, compound words). Documents are numbered in
``(name, path)`` order, so the same skills give the same index whatever order they came in.

With ``cache_dir`` the raw postings are kept on disk (one file pair per set of roots); the
next build re-reads and re-analyses only skills whose ``SKILL.md`` path, mtime or size (or
parsed name/descriptions) changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.select.docs import SkillDoc, analyse, doc_for_skill, doc_for_tool, with_body
from skillshelf.select.postings import FieldModel, Postings
from skillshelf.skills.model import Skill

__all__ = ["CONTENT_MODEL", "GRAM_MODEL", "META_MODEL", "IndexStats", "SkillIndex"]

CACHE_VERSION = 4

META_MODEL = FieldModel(
    fields=("name", "short", "description", "path"), weights=(6.0, 3.0, 2.5, 1.5), b=(0.3, 0.5, 0.75, 0.3), k1=1.2
)
CONTENT_MODEL = FieldModel(fields=("headings", "body"), weights=(2.0, 1.0), b=(0.75, 0.75), k1=1.2)
GRAM_MODEL = FieldModel(fields=("name", "short", "description"), weights=(8.0, 4.0, 1.0), b=(0, 0, 0), kind="presence")

BodyReader = Callable[[Skill], str]


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexStats:
    """How a build went: documents, how many were (re)analysed, whether the cache was used."""

    documents: int
    analysed: int
    reused: int
    cache_file: str | None
    seconds: float

    def to_dict(self) -> dict[str, object]:
        return {
            "documents": self.documents,
            "analysed": self.analysed,
            "reused": self.reused,
            "cache_file": self.cache_file,
            "seconds": round(self.seconds, 4),
        }


class SkillIndex:
    """Documents plus their postings. Read-only once built; safe to share between threads."""

    def __init__(
        self, docs: tuple[SkillDoc, ...], meta: Postings, content: Postings, grams: Postings, stats: IndexStats
    ) -> None:
        self.docs = docs
        self.meta = meta
        self.content = content
        self.grams = grams
        self.stats = stats
        self.by_key = {d.key: i for i, d in enumerate(docs)}
        self._memo: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.docs)

    def memo(self, name: str, factory: Callable[[], Any]) -> Any:
        """A derived structure computed once per index (used by selectors; no visible effect)."""
        if name not in self._memo:
            self._memo[name] = factory()
        return self._memo[name]

    # ---- building ------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        skills: Sequence[Skill],
        *,
        cache_dir: Path | None = None,
        body_reader: BodyReader | None = None,
    ) -> SkillIndex:
        """Index ``skills`` (duplicates by path are dropped). ``body_reader`` defaults to the
        skills package's ``read_skill_body``; unreadable bodies index as empty."""
        start = time.perf_counter()
        reader = body_reader or _default_body_reader()
        unique = {str(s.path): s for s in sorted(skills, key=lambda s: (s.name, str(s.path)))}
        stubs = [doc_for_skill(s, body="") for s in unique.values()]
        cache = _Cache(cache_dir, unique.values()) if cache_dir is not None else None
        previous = cache.load() if cache else None

        def fresh(doc: SkillDoc) -> SkillDoc:
            assert doc.skill is not None
            return with_body(doc, _safe_read(reader, doc.skill))

        index = cls._assemble(stubs, previous, fresh, cache.path if cache else None, start)
        changed = previous is None or index.stats.analysed or len(previous.keys) != len(index)
        if cache is not None and changed:
            cache.save(index)
        return index

    @classmethod
    def from_docs(cls, docs: Sequence[SkillDoc]) -> SkillIndex:
        """Index ready-made documents (tool records, tests); nothing is read or cached."""
        start = time.perf_counter()
        ordered = sorted({d.key: d for d in docs}.values(), key=lambda d: d.sort_key)
        return cls._assemble(ordered, None, lambda d: d, None, start)

    @classmethod
    def from_tools(cls, tools: Sequence[tuple[str, str, str]]) -> SkillIndex:
        """Index ``(id, name, description)`` tool records."""
        return cls.from_docs([doc_for_tool(i, n, d) for i, n, d in tools])

    @classmethod
    def _assemble(
        cls,
        docs: list[SkillDoc],
        previous: _Previous | None,
        fresh: Callable[[SkillDoc], SkillDoc],
        cache_file: Path | None,
        start: float,
    ) -> SkillIndex:
        n = len(docs)
        if previous is None:
            analysed = [analyse(fresh(d)) for d in docs]
            meta = Postings.build(META_MODEL, [a.meta for a in analysed], [a.meta_lengths for a in analysed])
            content = Postings.build(CONTENT_MODEL, [a.content for a in analysed], [a.content_lengths for a in analysed])
            grams = Postings.build(GRAM_MODEL, [a.grams for a in analysed], [a.gram_lengths for a in analysed])
            stats = IndexStats(documents=n, analysed=n, reused=0, cache_file=_s(cache_file), seconds=0.0)
        else:
            old_pos = {k: i for i, k in enumerate(previous.keys)}
            old_to_new = [-1] * len(previous.keys)
            new_ids: list[int] = []
            todo: list[SkillDoc] = []
            for i, d in enumerate(docs):
                j = old_pos.get(d.key)
                if j is not None and previous.stamps[j] == d.stamp:
                    old_to_new[j] = i
                else:
                    new_ids.append(i)
                    todo.append(d)
            analysed = [analyse(fresh(d)) for d in todo]
            if not todo and old_to_new == list(range(n)) and len(previous.keys) == n:
                meta, content, grams = previous.meta, previous.content, previous.grams
            else:
                meta = previous.meta.updated(
                    old_to_new, [a.meta for a in analysed], new_ids, [a.meta_lengths for a in analysed], n
                )
                content = previous.content.updated(
                    old_to_new, [a.content for a in analysed], new_ids, [a.content_lengths for a in analysed], n
                )
                grams = previous.grams.updated(
                    old_to_new, [a.grams for a in analysed], new_ids, [a.gram_lengths for a in analysed], n
                )
            stats = IndexStats(
                documents=n, analysed=len(todo), reused=n - len(todo), cache_file=_s(cache_file), seconds=0.0
            )
        lean = tuple(d.lean() for d in docs)
        elapsed = time.perf_counter() - start
        stats = IndexStats(
            documents=stats.documents,
            analysed=stats.analysed,
            reused=stats.reused,
            cache_file=stats.cache_file,
            seconds=elapsed,
        )
        return cls(lean, meta, content, grams, stats)


def _s(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def _default_body_reader() -> BodyReader:
    from skillshelf.skills.discover import read_skill_body

    return read_skill_body


def _safe_read(reader: BodyReader, skill: Skill) -> str:
    try:
        return reader(skill)
    except Exception:  # an unreadable body indexes as empty; discovery reports the file itself
        return ""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Previous:
    keys: list[str]
    stamps: list[str]
    meta: Postings
    content: Postings
    grams: Postings


class _Cache:
    """One ``.json`` + ``.npz`` pair per set of skill roots under ``cache_dir/select``."""

    def __init__(self, cache_dir: Path, skills: Sequence[Skill] | Any) -> None:
        roots = sorted({str(s.root) for s in skills})
        digest = hashlib.sha1("\0".join(roots).encode()).hexdigest()[:20]
        self.folder = cache_dir / "select"
        self.path = self.folder / f"index-{digest}.json"
        self.arrays = self.folder / f"index-{digest}.npz"

    def load(self) -> _Previous | None:
        import numpy as np

        try:
            meta = json.loads(self.path.read_text(encoding="utf-8"))
            if meta.get("version") != CACHE_VERSION:
                return None
            with np.load(self.arrays, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
            parts = {name: _postings(model, meta[f"{name}_vocab"], arrays, f"{name}_") for name, model in _MODELS.items()}
            keys, stamps = list(meta["keys"]), list(meta["stamps"])
            if len(keys) != len(stamps) or any(p.n_docs != len(keys) for p in parts.values()):
                return None
            return _Previous(keys=keys, stamps=stamps, meta=parts["meta"], content=parts["content"], grams=parts["grams"])
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # a missing or damaged cache is rebuilt, never trusted

    def save(self, index: SkillIndex) -> None:
        import numpy as np

        meta: dict[str, Any] = {
            "version": CACHE_VERSION,
            "keys": [d.key for d in index.docs],
            "stamps": [d.stamp for d in index.docs],
        }
        arrays: dict[str, Any] = {}
        for name, postings in (("meta", index.meta), ("content", index.content), ("grams", index.grams)):
            meta[f"{name}_vocab"] = _vocab_list(postings.vocab)
            arrays |= {f"{name}_{k}": v for k, v in postings.arrays().items()}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp_arrays = self.arrays.with_suffix(f".{os.getpid()}.tmp.npz")
            tmp_meta = self.path.with_suffix(f".{os.getpid()}.tmp")
            np.savez(tmp_arrays, **arrays)
            tmp_meta.write_text(json.dumps(meta), encoding="utf-8")
            os.replace(tmp_arrays, self.arrays)
            os.replace(tmp_meta, self.path)
        except OSError:
            return  # the cache is an optimisation: a read-only cache folder only costs time


_MODELS = {"meta": META_MODEL, "content": CONTENT_MODEL, "grams": GRAM_MODEL}


def _vocab_list(vocab: dict[str, int]) -> list[str]:
    out = [""] * len(vocab)
    for term, i in vocab.items():
        out[i] = term
    return out


def _postings(model: FieldModel, vocab_list: list[str], arrays: dict[str, Any], prefix: str) -> Postings:
    vocab = {t: i for i, t in enumerate(vocab_list)}
    term_ids = arrays[prefix + "term_ids"]
    if len(term_ids) and int(term_ids.max()) >= len(vocab):
        raise ValueError("cache vocabulary does not match its postings")
    if len(term_ids) > 1 and bool((term_ids[1:] < term_ids[:-1]).any()):
        raise ValueError("cached postings are not in term order")
    return Postings(
        model, vocab, term_ids, arrays[prefix + "doc_ids"], arrays[prefix + "tf"], arrays[prefix + "lengths"],
        impacts=arrays[prefix + "impacts"],
    )
