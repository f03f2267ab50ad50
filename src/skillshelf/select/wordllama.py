"""The semantic extra's second encoder: WordLlama, a static sentence embedding.

WordLlama (MIT) is a table of token vectors trained for sentence similarity: a text's vector
is the mean of its tokens' rows, so encoding costs a lookup, not a forward pass. The PyPI
package ``wordllama`` ships the 256-wide table and its tokenizer inside the wheel; they are
read from the installed package with numpy and ``tokenizers`` (the package itself, which
would fetch missing files from the network, is never imported).

Alone it is weaker than MiniLM, but it was trained on other data and errs elsewhere: added
to the default fusion it lifts MetaTool recall@5 (bench/selection.py).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.errors import NotFoundError
from skillshelf.select.minilm import read_safetensors

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

    def __init__(self, folder: Path | None = None) -> None:
        from tokenizers import Tokenizer

        folder = folder or package_dir()
        if folder is None or not (folder / WEIGHTS).is_file() or not (folder / TOKENIZER).is_file():
            raise NotFoundError(
                "the WordLlama encoder needs the `wordllama` package (with its bundled 256-wide table)",
                hint="pip install 'skillshelf[wordllama]' (or the whole 'skillshelf[semantic]')",
                code="SE102",
            )
        try:
            # float16 as stored, mapped: a query reads its few rows (as float32, bit for bit
            # what a float32 copy of the whole table would give)
            self.table = read_safetensors(folder / WEIGHTS, keep_dtype=True)["embedding.weight"]
            self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
        except Exception as exc:  # tokenizers raises a bare Exception for a damaged file
            raise NotFoundError(
                f"the wordllama package's files cannot be read ({type(exc).__name__}: {exc})",
                hint="reinstall it: pip install --force-reinstall wordllama",
                code="SE103",
            ) from exc
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def encode(self, texts: Sequence[str]) -> Matrix:
        import numpy as np

        out = np.zeros((len(texts), self.table.shape[1]), np.float32)
        rows = len(self.table)
        for i, enc in enumerate(self.tokenizer.encode_batch(list(texts), add_special_tokens=False)):
            if enc.ids:
                ids = np.minimum(np.asarray(enc.ids, dtype=np.int64), rows - 1)
                out[i] = self.table[ids].astype(np.float32).mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: Matrix = (out / np.maximum(norms, np.float32(1e-12))).astype(np.float32)
        return unit
