"""The search index over skills: built once, cached on disk, updated incrementally.

Per skill it indexes the name, short description, description, the headings and text of the
``SKILL.md`` body, and the words of its folder path (BM25F postings), plus character n-grams
of the name and descriptions (typos, compound words). Documents are numbered in
``(name, path)`` order, so the same skills give the same index whatever order they came in.

With ``cache_dir`` the raw postings are kept on disk (per set of roots, see :class:`_Cache`)
and memory-mapped by the next build, which re-reads and re-analyses only skills whose
``SKILL.md`` path, mtime or size (or parsed name/descriptions, or root) changed. Unchanged
skills cost a ``stat`` and a small digest; changed ones go to the postings' delta segment
(:mod:`skillshelf.select.segments`), so an update writes only the small file, never the base.
Document frequencies and average lengths are always those of the whole current collection:
an index updated any number of times ranks exactly as one built from scratch.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.select.docs import SkillDoc, analyse, doc_for_skill, doc_for_tool, stamp_of, with_body
from skillshelf.select.indexfile import read_file, write_file
from skillshelf.select.postings import FieldModel, Postings
from skillshelf.select.segments import Segment
from skillshelf.skills.model import Skill

__all__ = ["CONTENT_MODEL", "GRAM_MODEL", "META_MODEL", "IndexStats", "SkillIndex"]

CACHE_VERSION = 5
STALE_BASE_SECONDS = 3600

META_MODEL = FieldModel(
    fields=("name", "short", "description", "path"),
    weights=(6.0, 3.0, 2.5, 1.5),
    b=(0.3, 0.5, 0.75, 0.3),
    k1=1.2,
)
CONTENT_MODEL = FieldModel(fields=("headings", "body"), weights=(2.0, 1.0), b=(0.75, 0.75), k1=1.2)
GRAM_MODEL = FieldModel(
    fields=("name", "short", "description"), weights=(8.0, 4.0, 1.0), b=(0, 0, 0), kind="presence"
)

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
        self,
        docs: tuple[SkillDoc, ...],
        meta: Postings,
        content: Postings,
        grams: Postings,
        stats: IndexStats,
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
        with _gc_paused():
            return cls._build(skills, cache_dir, body_reader or _default_body_reader())

    @classmethod
    def _build(cls, skills: Sequence[Skill], cache_dir: Path | None, reader: BodyReader) -> SkillIndex:
        start = time.perf_counter()
        unique = {str(s.path): s for s in sorted(skills, key=lambda s: (s.name, str(s.path)))}
        stamps = [stamp_of(s) for s in unique.values()]
        cache = _Cache(cache_dir, unique.values()) if cache_dir is not None else None
        previous = cache.load() if cache else None
        reuse = _Reuse.of(list(unique), stamps, previous) if previous is not None else None
        stubs = _stubs(list(unique.values()), stamps, previous, reuse)

        def fresh(doc: SkillDoc) -> SkillDoc:
            assert doc.skill is not None
            return with_body(doc, _safe_read(reader, doc.skill))

        index = cls._assemble(stubs, previous, reuse, fresh, cache.path if cache else None, start)
        changed = previous is None or index.stats.analysed or len(previous.keys) != len(index)
        if cache is not None and changed:
            cache.save(index)
        return index

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
        previous: _Previous | None,
        reuse: _Reuse | None,
        fresh: Callable[[SkillDoc], SkillDoc],
        cache_file: Path | None,
        start: float,
    ) -> SkillIndex:
        n = len(docs)
        parts: tuple[Postings, Postings, Postings]
        if previous is None or reuse is None:
            analysed = [analyse(fresh(d)) for d in docs]
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
            parts, done = _update(docs, previous, reuse, fresh)
        lean = tuple(d.lean() if d.body or d.headings else d for d in docs)
        stats = IndexStats(
            documents=n,
            analysed=done,
            reused=n - done,
            cache_file=_s(cache_file),
            seconds=time.perf_counter() - start,
        )
        return cls(lean, *parts, stats)


def _update(
    docs: list[SkillDoc], previous: _Previous, reuse: _Reuse, fresh: Callable[[SkillDoc], SkillDoc]
) -> tuple[tuple[Postings, Postings, Postings], int]:
    """Update the cached postings: drop removed and changed documents, add the (re)analysed ones."""
    old_to_new = [-1] * len(previous.keys)
    new_ids: list[int] = []
    todo: list[SkillDoc] = []
    for i, (d, j) in enumerate(zip(docs, reuse.old_rows, strict=True)):
        if j >= 0:
            old_to_new[j] = i
        else:
            new_ids.append(i)
            todo.append(d)
    analysed = [analyse(fresh(d)) for d in todo]
    n = len(docs)
    parts = tuple(
        old.updated(
            old_to_new, [a.part(name)[0] for a in analysed], new_ids, [a.part(name)[1] for a in analysed], n
        )
        for name, old in zip(_NAMES, (previous.meta, previous.content, previous.grams), strict=True)
    )
    return (parts[0], parts[1], parts[2]), len(todo)


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


def _stubs(
    skills: list[Skill], stamps: list[str], previous: _Previous | None, reuse: _Reuse | None
) -> list[SkillDoc]:
    """Body-less documents; path words come from the cache for skills whose stamp is unchanged."""
    known: list[str | None] = [None] * len(skills)
    if previous is not None and reuse is not None:
        if reuse.unchanged:
            known = list(previous.path_words)
        else:
            known = [previous.path_words[j] if j >= 0 else None for j in reuse.old_rows]
    return [
        doc_for_skill(s, stamp=st, path_words=pw) for s, st, pw in zip(skills, stamps, known, strict=True)
    ]


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
    path_words: list[str]
    meta: Postings
    content: Postings
    grams: Postings
    base_id: str


@dataclass(frozen=True, slots=True)
class _Reuse:
    """Which cached documents a build can keep, worked out once per build: ``unchanged`` when
    the keys and stamps are exactly the cached ones; ``old_rows[i]`` is the cached position of
    new document ``i`` when its key is cached with the same stamp, else -1."""

    unchanged: bool
    old_rows: list[int]

    @classmethod
    def of(cls, keys: list[str], stamps: list[str], previous: _Previous) -> _Reuse:
        if keys == previous.keys and stamps == previous.stamps:
            return cls(True, list(range(len(keys))))
        old = {k: i for i, k in enumerate(previous.keys)}
        rows = []
        for key, stamp in zip(keys, stamps, strict=True):
            j = old.get(key)
            rows.append(j if j is not None and previous.stamps[j] == stamp else -1)
        return cls(False, rows)


_NAMES = ("meta", "content", "grams")
_MODELS = {"meta": META_MODEL, "content": CONTENT_MODEL, "grams": GRAM_MODEL}
_DAMAGE = (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError)


class _Cache:
    """Two memory-mapped files per set of skill roots under ``cache_dir/select`` (see
    :mod:`skillshelf.select.indexfile`): ``index-D.base-ID.bin``, the base segments, written by
    a full build or a compaction and then only read; and ``index-D.bin``, naming its base and
    holding the documents' keys and stamps, the vocabularies and the small delta segments. An
    incremental update rewrites only the second."""

    def __init__(self, cache_dir: Path, skills: Sequence[Skill] | Any) -> None:
        roots = sorted({str(s.root) for s in skills})
        self.digest = hashlib.sha1("\0".join(roots).encode()).hexdigest()[:20]
        self.folder = cache_dir / "select"
        self.path = self.folder / f"index-{self.digest}.bin"
        self.loaded: _Previous | None = None
        self.seen_base: str | None = None  # the base the main file named, even if it was unusable

    def _base_path(self, base_id: str) -> Path:
        return self.folder / f"index-{self.digest}.base-{base_id}.bin"

    def load(self) -> _Previous | None:
        try:
            found = read_file(self.path, CACHE_VERSION)
            self.seen_base = str(found[1]["base"][0]) if found else None
            base = read_file(self._base_path(self.seen_base), CACHE_VERSION) if self.seen_base else None
            if found is None or base is None:
                return None
            arrays, texts = found
            arrays |= base[0]
            keys, stamps, words = texts["keys"], texts["stamps"], texts["path_words"]
            parts = [_postings(_MODELS[name], texts[f"{name}_vocab"], arrays, f"{name}_") for name in _NAMES]
            if not len(keys) == len(stamps) == len(words) or any(p.n_docs != len(keys) for p in parts):
                return None
            self.loaded = _Previous(
                keys=keys,
                stamps=stamps,
                path_words=words,
                meta=parts[0],
                content=parts[1],
                grams=parts[2],
                base_id=texts["base"][0],
            )
            return self.loaded
        except _DAMAGE:
            return None  # a missing or damaged cache is rebuilt, never trusted

    def save(self, index: SkillIndex) -> None:
        parts = (index.meta, index.content, index.grams)
        arrays: dict[str, Any] = {}
        texts = {
            "keys": [d.key for d in index.docs],
            "stamps": [d.stamp for d in index.docs],
            "path_words": [d.path_words for d in index.docs],
        }
        for name, postings in zip(_NAMES, parts, strict=True):
            texts[f"{name}_vocab"] = _vocab_list(postings.vocab)
            arrays |= {f"{name}_{k}": v for k, v in postings.arrays().items()}
        base = {k: arrays.pop(k) for k in [k for k in arrays if "_base_" in k]}
        old = self.loaded
        same_base = old is not None and all(
            p.base.doc_ids is q.base.doc_ids
            for p, q in zip(parts, (old.meta, old.content, old.grams), strict=True)
        )
        base_id = old.base_id if old is not None and same_base else uuid.uuid4().hex[:16]
        texts["base"] = [base_id]
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if not same_base:
                write_file(self._base_path(base_id), CACHE_VERSION, base, {})
            write_file(self.path, CACHE_VERSION, arrays, texts)
            if not same_base:
                self._drop_bases(keep=base_id)
                for legacy in (self.path.with_suffix(".json"), self.path.with_suffix(".npz")):
                    legacy.unlink(missing_ok=True)  # the version 4 file pair
        except OSError:
            return  # the cache is an optimisation: a read-only cache folder only costs time

    def _drop_bases(self, *, keep: str) -> None:
        """Remove the base this build replaced, and bases and temporary files left for an hour
        (by a writer that stopped); another writer's fresh files are left alone."""
        now = time.time()
        for path in [
            *self.folder.glob(f"index-{self.digest}.base-*.bin"),
            *self.folder.glob(f"index-{self.digest}*.tmp"),
        ]:
            name = path.name.removeprefix(f"index-{self.digest}.base-").removesuffix(".bin")
            if name == keep:
                continue
            try:
                if name == self.seen_base or now - path.stat().st_mtime > STALE_BASE_SECONDS:
                    path.unlink()
            except OSError:
                continue


def _vocab_list(vocab: dict[str, int]) -> list[str]:
    out = [""] * len(vocab)
    for term, i in vocab.items():
        out[i] = term
    return out


def _postings(model: FieldModel, vocab_list: list[str], arrays: dict[str, Any], prefix: str) -> Postings:
    """Cached arrays as postings, after the checks that keep a damaged file from being used."""
    import numpy as np

    order, lengths, df = (arrays[prefix + k] for k in ("order", "slot_lengths", "df"))
    n_terms = len(vocab_list)
    if (
        order.dtype != np.int64
        or lengths.dtype != np.float32
        or df.dtype != np.int64
        or order.ndim != 1
        or lengths.shape[1:] != (len(model.fields),)
        or df.shape != (n_terms,)
    ):
        raise ValueError("cached postings have the wrong shape")
    if len(order) and (
        int(order.min()) < 0 or int(order.max()) >= len(lengths) or int(np.bincount(order).max()) > 1
    ):
        raise ValueError("cached document order is not a set of slots")
    base, delta = (_segment(model, arrays, f"{prefix}{k}_", n_terms, len(lengths)) for k in ("base", "delta"))
    if bool((df < 0).any()) or bool(
        (df > base.padded(n_terms).counts() + delta.padded(n_terms).counts()).any()
    ):
        raise ValueError("cached document frequencies do not match the rows")
    vocab = dict(zip(vocab_list, range(n_terms), strict=True))
    if len(vocab) != n_terms:
        raise ValueError("cached vocabulary repeats a term")
    return Postings(model, vocab, base, lengths, delta=delta, order=order, df=df)


def _segment(model: FieldModel, arrays: dict[str, Any], prefix: str, n_terms: int, n_slots: int) -> Segment:
    import numpy as np

    indptr, doc_ids, tf = (arrays[prefix + k] for k in ("indptr", "doc_ids", "tf"))
    rows = len(doc_ids)
    nf = len(model.fields)
    presence = model.kind == "presence"
    if (
        indptr.dtype != np.int64
        or doc_ids.dtype != np.int32
        or tf.dtype != (np.uint8 if presence else np.float32)
        or indptr.ndim != 1
        or not 1 <= len(indptr) <= n_terms + 1
        or tf.shape != ((rows,) if presence else (rows, nf))
    ):
        raise ValueError("cached segment has the wrong shape")
    if int(indptr[0]) != 0 or int(indptr[-1]) != rows or bool((np.diff(indptr) < 0).any()):
        raise ValueError("cached segment is not in term order")
    if rows and (int(doc_ids.min()) < 0 or int(doc_ids.max()) >= n_slots):
        raise ValueError("cached segment names unknown documents")
    if presence and rows and int(tf.max()) >= 1 << nf:
        raise ValueError("cached field masks name unknown fields")
    return Segment(indptr, doc_ids, tf)
