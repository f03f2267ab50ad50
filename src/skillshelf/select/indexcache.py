"""The search index's cache on disk: which cached documents a build can keep
(:class:`Reuse`), and the two memory-mapped files per set of skill roots that hold the
postings (:class:`IndexCache`, see :mod:`skillshelf.select.indexfile`). A missing or damaged
file is rebuilt, never trusted: every array is checked before it is used."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.fileio import FileIdentity, file_identity
from skillshelf.select.docs import SkillDoc
from skillshelf.select.indexfile import read_file, write_file
from skillshelf.select.postings import FieldModel, Postings
from skillshelf.select.segments import Segment
from skillshelf.skills.model import Skill

__all__ = ["CACHE_VERSION", "CachedIndex", "FileIds", "IndexCache", "Reuse"]

CACHE_VERSION = 10
STALE_BASE_SECONDS = 3600
DAMAGE = (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError)

FileIds = tuple[str, FileIdentity, FileIdentity]
"""The base id, and the identity (device, inode, size, mtime, ctime) of the main and base files."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CachedIndex:
    keys: list[str]
    stamps: list[str]
    path_words: list[str]
    meta: Postings
    content: Postings
    grams: Postings
    base_id: str


@dataclass(frozen=True, slots=True)
class Reuse:
    """Which cached documents a build can keep, worked out once per build: ``unchanged`` when
    the keys and stamps are exactly the cached ones; ``old_rows[i]`` is the cached position of
    new document ``i`` when its key is cached with the same stamp, else -1."""

    unchanged: bool
    old_rows: list[int]

    @classmethod
    def of(cls, keys: list[str], stamps: list[str], previous: CachedIndex) -> Reuse:
        if keys == previous.keys and stamps == previous.stamps:
            return cls(True, list(range(len(keys))))
        old = {k: i for i, k in enumerate(previous.keys)}
        rows = []
        for key, stamp in zip(keys, stamps, strict=True):
            j = old.get(key)
            rows.append(j if j is not None and previous.stamps[j] == stamp else -1)
        return cls(False, rows)


class IndexCache:
    """Two memory-mapped files per set of skill roots under ``cache_dir/select`` (see
    :mod:`skillshelf.select.indexfile`): ``index-D.base-ID.bin``, the base segments, written by
    a full build or a compaction and then only read; and ``index-D.bin``, naming its base and
    holding the documents' keys and stamps, the vocabularies and the small delta segments. An
    incremental update rewrites only the second."""

    def __init__(self, cache_dir: Path, skills: Iterable[Skill], models: Mapping[str, FieldModel]) -> None:
        self.models = models  # part name -> its field model, in the order of SkillIndex's parts
        roots = sorted({str(s.root) for s in skills})
        self.digest = hashlib.sha1("\0".join(roots).encode("utf-8", "surrogatepass")).hexdigest()[:20]
        self.folder = cache_dir / "select"
        self.path = self.folder / f"index-{self.digest}.bin"
        self.loaded: CachedIndex | None = None
        self.seen_base: str | None = None  # the base the main file named, even if it was unusable
        self.files: FileIds | None = None  # the two files as this cache last read or wrote them

    def _base_path(self, base_id: str) -> Path:
        return self.folder / f"index-{self.digest}.base-{base_id}.bin"

    def _file_ids(self, base_id: str) -> FileIds:
        """The two files' identities now (raises ``OSError`` when one is missing)."""
        return (base_id, _file_id(self.path), _file_id(self._base_path(base_id)))

    def unchanged(self, files: FileIds) -> bool:
        """Whether the files are still the ones ``files`` was taken from (none was replaced,
        written or removed since)."""
        try:
            return self._file_ids(files[0]) == files
        except OSError:
            return False

    def load(self) -> CachedIndex | None:
        try:
            main_id = _file_id(self.path)  # before reading: a change while reading shows next time
            found = read_file(self.path, CACHE_VERSION)
            self.seen_base = str(found[1]["base"][0]) if found else None
            base_id = _file_id(self._base_path(self.seen_base)) if self.seen_base else None
            base = read_file(self._base_path(self.seen_base), CACHE_VERSION) if self.seen_base else None
            if found is None or base is None or base_id is None:
                return None
            arrays, texts = found
            arrays |= base[0]
            keys, stamps, words = texts["keys"], texts["stamps"], texts["path_words"]
            parts = [
                _postings(m, texts[f"{name}_vocab"], arrays, f"{name}_") for name, m in self.models.items()
            ]
            if not len(keys) == len(stamps) == len(words) or any(p.n_docs != len(keys) for p in parts):
                return None
            self.loaded = CachedIndex(
                keys=keys,
                stamps=stamps,
                path_words=words,
                meta=parts[0],
                content=parts[1],
                grams=parts[2],
                base_id=texts["base"][0],
            )
            self.files = (self.loaded.base_id, main_id, base_id)
            return self.loaded
        except DAMAGE:
            return None  # a missing or damaged cache is rebuilt, never trusted

    def save(self, docs: Sequence[SkillDoc], parts: Sequence[Postings]) -> None:
        """Write an index's documents and its postings (one per model, in :attr:`models` order)."""
        arrays: dict[str, Any] = {}
        texts = {
            "keys": [d.key for d in docs],
            "stamps": [d.stamp for d in docs],
            "path_words": [d.path_words for d in docs],
        }
        for name, postings in zip(self.models, parts, strict=True):
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
            self.files = self._file_ids(base_id)
            if not same_base:
                self._drop_bases(keep=base_id)
                for legacy in (self.path.with_suffix(".json"), self.path.with_suffix(".npz")):
                    legacy.unlink(missing_ok=True)  # the version 4 file pair
        except OSError:
            self.files = None
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


def _file_id(path: Path) -> FileIdentity:
    return file_identity(os.stat(path))


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
