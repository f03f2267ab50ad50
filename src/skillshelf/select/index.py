"""The search index over skills: built once, cached on disk, updated incrementally.

Per skill it indexes the name, short description, description, the headings and text of the
``SKILL.md`` body, and the words of its folder path (BM25F postings), plus character n-grams
of the name and descriptions (typos, compound words). Documents are numbered in
``(name, path)`` order, so the same skills give the same index whatever order they came in.

With ``cache_dir`` the raw postings are kept on disk (per set of roots, see
:mod:`skillshelf.select.indexcache`) and memory-mapped by the next build, which re-reads and
re-analyses only skills whose ``SKILL.md`` path, mtime or size (or parsed name/descriptions,
or root) changed, or a bundled file their body read or a folder of bundled files
(:mod:`skillshelf.select.bodies`). Unchanged skills cost a ``stat`` (and one per bundled file
read or folder watched) and a small digest; changed ones go to the postings' delta segment
(:mod:`skillshelf.select.segments`), so an update writes only the small file, never the base.
Document frequencies and average lengths are always those of the whole current collection:
an index updated any number of times ranks exactly as one built from scratch.

A process that builds again and again (the hook server, the agent: every prompt) keeps the last
index it built with a cache file, with that file's and its base's identity. The next build
whose documents have the same keys and stamps, while neither file was replaced, written or
removed, shares its postings (with the per-term impacts already computed) and memos instead
of reading the files again; its documents follow the skills given (stamps do not cover every
field of a skill). Stamps are still taken, so an edited ``SKILL.md`` counts at the next build;
only the digest of a skill object already stamped is kept. One index is kept per process, from
its second build on (a command that builds once keeps nothing: the garbage collector would
walk it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.lastkept import LastKept
from skillshelf.select.bodies import BodyReader, read_index_body, safe_read
from skillshelf.select.docs import (
    Analysed,
    SkillDoc,
    analyse,
    copy_key,
    doc_for_skill,
    doc_for_tool,
    with_body,
    with_bundled,
)
from skillshelf.select.indexcache import CachedIndex, FileIds, IndexCache, Reuse
from skillshelf.select.indexstamps import carried_stamps, skill_stamps, stubs
from skillshelf.select.postings import FieldModel, Postings
from skillshelf.skills.model import Skill

__all__ = [
    "CONTENT_MODEL",
    "GRAM_MODEL",
    "META_MODEL",
    "IndexStats",
    "SkillIndex",
]

META_MODEL = FieldModel(
    fields=("name", "short", "description", "path"),
    weights=(6.0, 3.0, 2.5, 1.5),
    b=(0.3, 0.5, 0.75, 0.3),
    k1=1.2,
)
CONTENT_MODEL = FieldModel(fields=("headings", "body"), weights=(2.0, 1.0), b=(0.75, 0.75), k1=1.2)
"""The BM25F parameters of the metadata and the body. Set by hand when the index was first
written (the field weights order the fields by how much a match in them says), then checked on
tuning data only: the skill-requests dev split, ``bench/data/authored-requests.jsonl`` and 1,000
MetaTool dev-half queries, with the default fusion of each combination of installed models. A
grid of 36 metadata settings (``k1`` 0.9 / 1.2 / 1.6 / 2.0, name weight 4 / 6 / 8, description
``b`` 0.5 / 0.75 / 0.9) by 36 body settings (``k1`` 0.9 to 2.0, ``b`` 0.5 / 0.75 / 0.9, headings
weight 1 / 2 / 3), the best mean MRR@10 of the three sets chosen on four folds and scored on
the fifth (5 folds x 10), gained 0.0025 MRR@10 over these values (sd 0.0044) with the base
install and 0.004 with no model, and lost 0.003 with MiniLM; the choices scattered over the grid
(a body ``b`` of 0.9 in most). No change is worth its noise, so they stay.

Also tried on the same tuning data and left out: a third score, the best BM25 of one body
section (split at ``#`` to ``###`` headings; the first 6,000, 24,000 or all characters), added
to the fusion with a weight chosen by cross-validation (0.1 to 0.8; 5 folds x 10). MRR@10 gain
-0.0015 (sd 0.011) with the base install, +0.010 (sd 0.012) with MiniLM (success@5 +0.014):
the authored requests gained, the dev split lost, and an index of sections is 14 to 21 times
as many entries to keep under the 2 ms at 10,000 skills."""
GRAM_MODEL = FieldModel(
    fields=("name", "short", "description"), weights=(8.0, 4.0, 1.0), b=(0, 0, 0), kind="presence"
)

_MODELS = {"meta": META_MODEL, "content": CONTENT_MODEL, "grams": GRAM_MODEL}  # SkillIndex's parts


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
        self,
        docs: tuple[SkillDoc, ...],
        meta: Postings,
        content: Postings,
        grams: Postings,
        stats: IndexStats,
        *,
        memo: dict[str, Any] | None = None,
    ) -> None:
        """``memo``: the derived structures of an index of the same keys and stamps, shared."""
        self.docs = docs
        self.meta = meta
        self.content = content
        self.grams = grams
        self.stats = stats
        self.by_key = {d.key: i for i, d in enumerate(docs)}
        self._memo: dict[str, Any] = {} if memo is None else memo

    def __len__(self) -> int:
        return len(self.docs)

    def copy_depth(self) -> int:
        """How many copies of one skill the index holds at most, beside the first (0 when every
        entry differs in name or description, see :func:`~skillshelf.select.docs.copy_key`)."""
        return int(self.memo("copy_depth", lambda: _copy_depth(self.docs)))

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
        """Index ``skills`` (duplicates by path are dropped). ``body_reader`` defaults to
        :func:`~skillshelf.select.bodies.read_index_body`; unreadable bodies index as empty."""
        with _gc_paused():
            return cls._build(skills, cache_dir, body_reader or read_index_body)

    @classmethod
    def _build(cls, skills: Sequence[Skill], cache_dir: Path | None, reader: BodyReader) -> SkillIndex:
        start = time.perf_counter()
        unique = {str(s.path): s for s in sorted(skills, key=lambda s: (s.name, str(s.path)))}
        cache = IndexCache(cache_dir, unique.values(), _MODELS) if cache_dir is not None else None
        kept = _kept_index(cache)
        keys = list(unique)
        stamps = skill_stamps(
            list(unique.values()), (kept.index.by_key, kept.index.docs) if kept is not None else None
        )
        if cache is not None and kept is not None and kept.keys == keys and kept.stamps == stamps:
            again = kept.index._with_skills(list(unique.values()), start)
            _keep_index(cache, again, keys, stamps)
            return again
        previous = cache.load() if cache else None
        if previous is not None:
            stamps = carried_stamps(stamps, list(unique.values()), previous)
        reuse = Reuse.of(list(unique), stamps, previous) if previous is not None else None
        docs = stubs(list(unique.values()), stamps, previous, reuse)

        def fresh(doc: SkillDoc) -> SkillDoc:
            assert doc.skill is not None
            body = safe_read(reader, doc.skill)
            return dataclasses.replace(with_body(doc, body.text), stamp=with_bundled(doc.stamp, body.bundled))

        index = cls._assemble(docs, previous, reuse, fresh, cache.path if cache else None, start)
        changed = previous is None or index.stats.analysed or len(previous.keys) != len(index)
        if cache is not None and changed:
            cache.save(index.docs, (index.meta, index.content, index.grams))
        if cache is not None:
            _keep_index(cache, index, keys, [d.stamp for d in index.docs])
        return index

    def _with_skills(self, skills: Sequence[Skill], start: float) -> SkillIndex:
        """This index for ``skills``, the skills of its documents with the same keys and stamps,
        in its order: its postings, warm impacts and memos shared, its documents kept where the
        skill is the same object (else made again for the new one: stamps do not cover every
        field of a skill, e.g. ``trusted``)."""
        docs = self.docs
        if any(d.skill is not s for d, s in zip(docs, skills, strict=True)):
            docs = tuple(
                d if d.skill is s else doc_for_skill(s, stamp=d.stamp, path_words=d.path_words)
                for d, s in zip(docs, skills, strict=True)
            )
        n = len(docs)
        stats = IndexStats(
            documents=n,
            analysed=0,
            reused=n,
            cache_file=self.stats.cache_file,
            seconds=time.perf_counter() - start,
        )
        return SkillIndex(docs, self.meta, self.content, self.grams, stats, memo=self._memo)

    @classmethod
    def from_docs(cls, docs: Sequence[SkillDoc]) -> SkillIndex:
        """Index ready-made documents (tool records, tests); nothing is read or cached."""
        start = time.perf_counter()
        ordered = sorted({d.key: d for d in docs}.values(), key=lambda d: d.sort_key)
        return cls._assemble(ordered, None, None, lambda d: d, None, start)

    @classmethod
    def from_tools(cls, tools: Sequence[tuple[str, str, str]]) -> SkillIndex:
        """Index ``(id, name, description)`` tool records."""
        return cls.from_docs([doc_for_tool(i, n, d) for i, n, d in tools])

    @classmethod
    def _assemble(
        cls,
        docs: list[SkillDoc],
        previous: CachedIndex | None,
        reuse: Reuse | None,
        fresh: Callable[[SkillDoc], SkillDoc],
        cache_file: Path | None,
        start: float,
    ) -> SkillIndex:
        n = len(docs)
        parts: tuple[Postings, Postings, Postings]
        if previous is None or reuse is None:
            docs, analysed = _read(docs, fresh)
            meta, content, grams = (
                Postings.build(
                    model, [a.part(name)[0] for a in analysed], [a.part(name)[1] for a in analysed]
                )
                for name, model in _MODELS.items()
            )
            parts, done = (meta, content, grams), n
        elif reuse.unchanged:
            parts, done = (
                (previous.meta, previous.content, previous.grams),
                0,
            )  # nothing changed: reuse as mapped
        else:
            parts, docs, done = _update(docs, previous, reuse, fresh)
        lean = tuple(d.lean() if d.body or d.headings else d for d in docs)
        stats = IndexStats(
            documents=n,
            analysed=done,
            reused=n - done,
            cache_file=_s(cache_file),
            seconds=time.perf_counter() - start,
        )
        return cls(lean, *parts, stats)


def _copy_depth(docs: Sequence[SkillDoc]) -> int:
    counts = Counter(copy_key(d.name, d.description) for d in docs)
    return max(counts.values(), default=1) - 1


def _read(
    docs: list[SkillDoc], fresh: Callable[[SkillDoc], SkillDoc]
) -> tuple[list[SkillDoc], list[Analysed]]:
    """``docs`` read (their bodies without the text, their stamps as read) and analysed."""
    read: list[SkillDoc] = []
    analysed: list[Analysed] = []
    for doc in docs:
        full = fresh(doc)
        analysed.append(analyse(full))
        read.append(full.lean() if full.body or full.headings else full)
    return read, analysed


def _update(
    docs: list[SkillDoc], previous: CachedIndex, reuse: Reuse, fresh: Callable[[SkillDoc], SkillDoc]
) -> tuple[tuple[Postings, Postings, Postings], list[SkillDoc], int]:
    """Update the cached postings: drop removed and changed documents, add the (re)analysed ones
    (the documents come back with those read again in their places)."""
    old_to_new = [-1] * len(previous.keys)
    new_ids: list[int] = []
    todo: list[SkillDoc] = []
    for i, (d, j) in enumerate(zip(docs, reuse.old_rows, strict=True)):
        if j >= 0:
            old_to_new[j] = i
        else:
            new_ids.append(i)
            todo.append(d)
    read, analysed = _read(todo, fresh)
    docs = list(docs)
    for i, doc in zip(new_ids, read, strict=True):
        docs[i] = doc
    n = len(docs)
    parts = tuple(
        old.updated(
            old_to_new, [a.part(name)[0] for a in analysed], new_ids, [a.part(name)[1] for a in analysed], n
        )
        for name, old in zip(_MODELS, (previous.meta, previous.content, previous.grams), strict=True)
    )
    return (parts[0], parts[1], parts[2]), docs, len(todo)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a build allocates its many small objects (the
    collector would walk every live object again and again and find nothing to free)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True, slots=True, kw_only=True)
class _KeptIndex:
    """The index a build returned, with the cache files as that build left them."""

    path: Path  # the cache's main file
    files: FileIds
    keys: list[str]
    stamps: list[str]
    index: SkillIndex


_KEPT: LastKept[_KeptIndex] = LastKept()  # the last build of this process that had a cache file


def _kept_index(cache: IndexCache | None) -> _KeptIndex | None:
    """The index this process last built for ``cache``'s file, if the files are still as that
    build read or wrote them (otherwise the files are what is current: they are read)."""
    if cache is None:
        return None
    kept = _KEPT.use()
    if kept is None or kept.path != cache.path or not cache.unchanged(kept.files):
        return None
    return kept


def _keep_index(cache: IndexCache, index: SkillIndex, keys: list[str], stamps: list[str]) -> None:
    """Keep ``index`` (it replaces the kept one) while ``cache``'s files stay as they are now."""
    if cache.files is None:
        return  # nothing on disk it stays in step with (a read-only cache folder)
    _KEPT.keep(_KeptIndex(path=cache.path, files=cache.files, keys=keys, stamps=stamps, index=index))


def _s(path: Path | None) -> str | None:
    return str(path) if path is not None else None
