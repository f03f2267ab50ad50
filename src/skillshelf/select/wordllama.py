"""WordLlama, a static sentence embedding: the base install's sense of meaning.

WordLlama (MIT) is a table of token vectors trained for sentence similarity: a text's vector
is the mean of its tokens' rows, so encoding costs a lookup, not a forward pass. The PyPI
package ``wordllama`` (a dependency of skillshelf) ships the 256-wide table and its tokenizer
inside the wheel; they are read from the installed package's files, never through the
package's code (which would fetch missing files from the network). The tokenizer is run by
:class:`~skillshelf.select.bpe.BytePairEncoder` (the same ids as the ``tokenizers`` package,
checked by a differential test), and the table is mapped, not read: a request needs a few of
its 32,000 rows, so a warm start reads kilobytes, not 16 MB.

Alone it ranks below the lexical scores, but it knows which words mean the same thing:
added to the default fusion it lifts success@5 on the held-out requests of
``bench/selection.py`` (the weights were chosen on the dev split).

A query-side linear adapter (``q + qA``, 256 x 256, softmax over every skill, L2 0.01 to 1)
trained on the tuning requests (the skill-requests dev split and
``bench/data/authored-requests.jsonl``) lifted WordLlama alone on requests for skills it had not
seen (5 folds by right skill) from success@5 0.704 to 0.716 and MRR@10 0.587 to 0.614, but the
default fusion not at all (MRR@10 dev 0.866 -> 0.873, authored 0.780 -> 0.779); trained on
MetaTool queries as well it learns MetaTool's 199 tools, not requests (skill requests 0.704 ->
0.667). Nor does a map learnt from the library itself, with no labels, when the index is built:
ridge regression (towards the identity, lambda 0.1 to 1,000) from the vectors of each body's
first 8 passages (code left out) to their skill's description vector, the mapped request
blended 25 to 100 % with its own vector. Over the corpus skills (4,358 passages) the mean
MRR@10 of the dev split and the authored requests went from 0.827 to between 0.817 and 0.825
(the same map for MiniLM's request vectors, lambda 10 or 1,000: 0.830 -> 0.828 to 0.832).
So the table is used as shipped.

A text's vector stays the plain mean of its tokens' rows, as the table was trained. Tried on
the same tuning data with the MetaTool dev half, the default fusion's WordLlama weight at 0.75,
1 and 1.5 times its own: rows weighted by the token's rank in the vocabulary (Zipf), by its idf
over the skills' texts, or by SIF (``a / (a + p)``, a = 1e-3 or 1e-4); the request's vector
from its sentences (the best cosine, or the mean of the best two, blended 25 %, 50 % or 100 %
with the whole's); and the request read without its code (fenced blocks, inline spans). Mean
MRR@10 over the three sets went from 0.750 to at most 0.750, each set within 0.01 of today's.
"""

from __future__ import annotations

import importlib.util
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.errors import NotFoundError
from skillshelf.select.bpe import BytePairEncoder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["DIM", "WordLlama", "available", "package_dir"]

DIM = 256
WEIGHTS = Path("weights") / "l2_supercat_256.safetensors"
TOKENIZER = Path("tokenizers") / "l2_supercat_tokenizer_config.json"


def package_dir() -> Path | None:
    """The installed ``wordllama`` package's folder, if it holds the table and tokenizer."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location)
        if (folder / WEIGHTS).is_file() and (folder / TOKENIZER).is_file():
            return folder
    return None


def available() -> bool:
    """Whether ``wordllama`` (with its bundled 256-wide table) is installed."""
    return package_dir() is not None


class WordLlama:
    """``WordLlama().encode(texts) -> (n, 256)`` unit vectors (all zeros for a text without tokens)."""

    def __init__(self, folder: Path | None = None, *, cache_dir: Path | None = None) -> None:
        """``cache_dir``: where the parsed tokenizer is kept (the search index's cache folder)."""
        folder = folder or package_dir()
        if folder is None or not (folder / WEIGHTS).is_file() or not (folder / TOKENIZER).is_file():
            raise NotFoundError(
                "the WordLlama encoder needs the `wordllama` package (with its bundled 256-wide table)",
                hint="reinstall skillshelf with its dependencies: pip install --force-reinstall skillshelf",
                code="SE102",
            )
        try:
            self.table = _mapped_table(folder / WEIGHTS)
            self.tokenizer = _tokenizer(folder / TOKENIZER, cache_dir)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise NotFoundError(
                f"the wordllama package's files cannot be read ({type(exc).__name__}: {exc})",
                hint="reinstall it: pip install --force-reinstall wordllama",
                code="SE103",
            ) from exc

    def encode(self, texts: Sequence[str]) -> Matrix:
        """Unit vectors of ``texts``, one row each (all zeros for a text without tokens)."""
        import numpy as np

        out = np.zeros((len(texts), self.table.shape[1]), np.float32)
        rows = len(self.table)
        for i, text in enumerate(texts):
            ids = self.tokenizer.ids(text)
            if ids:
                picked = np.minimum(np.asarray(ids, dtype=np.int64), rows - 1)
                out[i] = self.table[picked].astype(np.float32).mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: Matrix = (out / np.maximum(norms, np.float32(1e-12))).astype(np.float32)
        return unit


def _mapped_table(path: Path) -> Any:
    """The ``embedding.weight`` tensor of a safetensors file, mapped read-only (float16)."""
    import numpy as np

    with path.open("rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        if size > 1 << 20:
            raise ValueError(f"a safetensors header of {size} bytes")
        header = json.loads(fh.read(size))
    info = header["embedding.weight"]
    if info["dtype"] != "F16" or len(info["shape"]) != 2:
        raise ValueError(f"unexpected table {info['dtype']} {info['shape']}")
    lo, hi = (int(x) for x in info["data_offsets"])
    rows, dims = (int(x) for x in info["shape"])
    if hi - lo != rows * dims * 2:
        raise ValueError("the table's size does not match its shape")
    return np.memmap(path, dtype="<f2", mode="r", offset=8 + size + lo, shape=(rows, dims))


def _tokenizer(path: Path, cache_dir: Path | None) -> BytePairEncoder:
    """The BPE model of a ``tokenizers`` JSON file (vocabulary and ranked merges), kept
    compiled under ``cache_dir`` when given (:mod:`skillshelf.select.modelcache`)."""
    from skillshelf.select.modelcache import bpe_tables

    return BytePairEncoder(bpe_tables(path, cache_dir))
