"""Static word vectors: a little of MiniLM's sense of meaning in the base install.

``data/static_vectors.npz`` holds one 128-dimensional vector per WordPiece token of
all-MiniLM-L6-v2, distilled from the model by ``scripts/distil_static_vectors.py`` (each token
run through the model on its own, principal components, Zipf weighting, int8). A text's
vector is the sum of its tokens' vectors (stop words left out), normalised; similarity is the
cosine. It knows that *sunny* is near *weather* and *flight* near *airline*, which no
lexical selector can, at the cost of a few microseconds per word and 4.3 MB on disk (stored
uncompressed: reading it costs a copy, not the inflation of the whole table on every start). Word
order is ignored, so it is a judge of short requests, not of long task specifications
(the default selector weighs it accordingly).

Document vectors are computed once per index (``SkillIndex.memo``) from the same text the
``semantic`` extra embeds: the name (identifier parts as words) and the descriptions; beside a
cached index they are kept on disk and updated per changed skill.

A table learnt from MiniLM's sentence vectors (as Model2Vec's tokenlearn does: the mean of a
sentence's token rows fitted to the model's vector by ridge regression towards each token's
own vector, over 80,000 or 203,581 sentences of docstrings and package documentation, every
piece of a word kept) ranks far better alone: mean MRR@10 over the skill-requests dev split,
``bench/data/authored-requests.jsonl`` and the MetaTool dev half 0.284 -> 0.536 (WordLlama 0.592,
MiniLM 0.632). Beside WordLlama in the default fusion, at 0.15 to 0.5 of a full point, it lifted
that mean from 0.750 to at most 0.757 with 384 float dimensions (a 47 MB table) and to 0.752 with
128 int8 ones: the two bags of words know the same things. So the shipped table stays as
distilled, the stand-in for WordLlama when its files are missing.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.select.semantic import doc_text
from skillshelf.select.tokenize import STOP_WORDS, WordCache
from skillshelf.select.wordpiece import WordPiece, basic_words

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from skillshelf.select.index import SkillIndex

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["DATA_FILE", "StaticVectors", "static_scores", "static_vectors"]

DATA_FILE = "static_vectors.npz"
STATIC_CACHE_VERSION = 1
MAX_QUERY_CHARS = 16 * 1024
MAX_PIECES = 2
"""A word cut into more pieces than this is left out: the vectors of stray fragments such as
``##ty`` point everywhere, so a rare or made-up word would pull a text towards everything."""
_CHUNK_DOCS = 2048


class StaticVectors:
    """The token table and the text -> unit vector function."""

    def __init__(self, tokens: Sequence[str], vectors: Any, scales: Any) -> None:
        import numpy as np

        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.wordpiece = WordPiece(self.vocab)
        # rows are scaled when used: a prompt needs a few of the 30,522 (a warm run saves
        # scaling the whole table); the values are those of the scaled table, bit for bit
        self._vectors = vectors
        self._scales = scales.astype(np.float32)
        self.dims = int(vectors.shape[1])
        self._counted: WordCache[tuple[int, ...]] = WordCache(self._counted_ids, limit=1 << 18)
        self._stop_ids = frozenset(self.vocab[w] for w in STOP_WORDS if w in self.vocab)
        self.fingerprint = hashlib.sha1(np.ascontiguousarray(scales).tobytes()).hexdigest()[:16]
        """Identifies the table (a re-distilled one has other scales)."""

    @functools.cached_property
    def table(self) -> Matrix:
        """The whole scaled table (one row per token), made on first use."""
        return self.rows(range(len(self.vocab)))

    def rows(self, ids: Sequence[int]) -> Matrix:
        """The scaled vectors of the token ``ids`` (float32), one row each."""
        import numpy as np

        picked: Matrix = (self._vectors[ids].astype(np.float32) * self._scales[ids][:, None]).astype(
            np.float32
        )
        return picked

    def token_ids(self, text: str) -> list[int]:
        """The token ids that count for ``text``: WordPiece pieces of its non-stop words."""
        return list(itertools.chain.from_iterable(map(self._counted.__getitem__, basic_words(text))))

    def _counted_ids(self, word: str) -> tuple[int, ...]:
        if word in STOP_WORDS:
            return ()
        ids = self.wordpiece.word_ids(word)
        if len(ids) > MAX_PIECES:
            return ()
        return tuple(i for i in ids if i not in self._stop_ids)

    def encode(self, text: str) -> Matrix:
        """The unit vector of ``text`` (all zeros when nothing in it is known)."""
        import numpy as np

        ids = self.token_ids(text[:MAX_QUERY_CHARS])
        if not ids:
            return np.zeros(self.dims, np.float32)
        return _unit(self.rows(ids).sum(axis=0))

    def encode_many(self, texts: Sequence[str]) -> Matrix:
        """Unit vectors of ``texts``, one row each (chunked, so memory stays bounded)."""
        import numpy as np

        out = np.zeros((len(texts), self.dims), np.float32)
        for start in range(0, len(texts), _CHUNK_DOCS):
            chunk = [self.token_ids(t) for t in texts[start : start + _CHUNK_DOCS]]
            flat = [i for ids in chunk for i in ids]
            if not flat:
                continue
            lengths = np.fromiter((len(ids) for ids in chunk), np.int64, len(chunk))
            has = lengths > 0
            offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))[has]
            sums = np.add.reduceat(self.rows(flat), offsets, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            rows = np.nonzero(has)[0] + start
            out[rows] = sums / np.maximum(norms, np.float32(1e-12))
        return out


def _unit(vec: Matrix) -> Matrix:
    import numpy as np

    norm = float(np.linalg.norm(vec))
    out: Matrix = (vec / np.float32(norm)).astype(np.float32) if norm > 0 else np.zeros_like(vec)
    return out


@functools.lru_cache(maxsize=1)
def static_vectors() -> StaticVectors:
    """The shipped table, loaded once per process."""
    import numpy as np

    with (
        resources.files("skillshelf.select").joinpath("data", DATA_FILE).open("rb") as fh,
        np.load(fh) as data,
    ):
        tokens = bytes(data["tokens"]).decode("utf-8").split("\n")
        return StaticVectors(tokens, data["vectors"], data["scales"])


def static_scores(index: SkillIndex, query: str) -> Matrix:
    """Cosine of every document of ``index`` with ``query`` (negative values as 0)."""
    import numpy as np

    table = static_vectors()
    docs: Matrix = index.memo("static_vectors", lambda: _document_vectors(index, table))
    qv = table.encode(query)
    if len(docs) == 0 or not qv.any():
        return np.zeros(len(docs), np.float32)
    # numpy's own loop, not BLAS: a threaded BLAS waits for its threads, which on a busy
    # machine costs milliseconds for a product of microseconds; and its blocks may sum rows in
    # another order than the tail's, so identical skills would no longer tie
    sims = np.einsum("ij,j->i", docs, qv)
    out: Matrix = np.maximum(sims, 0).astype(np.float32)
    return out


def _document_vectors(index: SkillIndex, table: StaticVectors) -> Matrix:
    """Every document's vector, kept beside a cached index (``index-*.static.bin``): a warm
    start reads them, and only skills whose stamp changed are encoded again. Vectors pass
    through float16 whether they come from the file or not, so a warm ranking is the cold one."""
    import numpy as np

    docs = index.docs
    path = Path(index.stats.cache_file).with_suffix(".static.bin") if index.stats.cache_file else None
    keys = [d.key for d in docs]
    stamps = [d.stamp for d in docs]
    cached = _read_cache(path, table.fingerprint) if path is not None else None
    if cached is not None and cached[1] == keys and cached[2] == stamps:
        return cached[0].astype(np.float32)
    out = np.zeros((len(docs), table.dims), np.float16)
    todo = list(range(len(docs)))
    if cached is not None:
        row_of = {(k, st): i for i, (k, st) in enumerate(zip(cached[1], cached[2], strict=True)) if st}
        rows = [row_of.get(pair, -1) for pair in zip(keys, stamps, strict=True)]
        hits = [i for i, r in enumerate(rows) if r >= 0]
        out[hits] = cached[0][[rows[i] for i in hits]]
        todo = [i for i, r in enumerate(rows) if r < 0]
    if todo:
        out[todo] = table.encode_many([doc_text(docs[i]) for i in todo]).astype(np.float16)
    if path is not None:
        _write_cache(path, out, {"keys": keys, "stamps": stamps, "table": [table.fingerprint]})
    return out.astype(np.float32)


def _read_cache(path: Path, fingerprint: str) -> tuple[Matrix, list[str], list[str]] | None:
    from skillshelf.select.indexfile import read_file

    try:
        found = read_file(path, STATIC_CACHE_VERSION)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing or damaged: encoded again, never trusted
    if found is None:
        return None
    arrays, texts = found
    vectors, keys, stamps = arrays.get("vectors"), texts.get("keys", []), texts.get("stamps", [])
    if texts.get("table") != [fingerprint] or vectors is None or vectors.ndim != 2:
        return None  # made with another word table
    if len(vectors) != len(keys) or len(keys) != len(stamps):
        return None
    return vectors, keys, stamps


def _write_cache(path: Path, vectors: Any, texts: dict[str, list[str]]) -> None:
    from skillshelf.select.indexfile import write_file

    try:
        write_file(path, STATIC_CACHE_VERSION, {"vectors": vectors}, texts)
    except OSError:
        return  # a read-only cache folder only costs time
