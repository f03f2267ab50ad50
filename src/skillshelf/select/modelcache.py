"""A tokenizer's BPE model read once, then kept compiled in the cache folder in :mod:`marshal` form.

``tokenizers`` JSON files are large (WordLlama's: 1.8 MB, 32,000 pieces and 61,000 merges), and
parsing one is most of what loading the base install's embedding costs, on every prompt an
agent's hook answers. The compiled tables (:class:`~skillshelf.select.bpe.BpeTables`: the
merges as sorted integer arrays, kept as raw bytes) are kept beside the search index in
``<cache>/select/bpe-<digest>.marshal``, the digest naming the format, the byte order and the
source file's path, size and modification time: a changed or reinstalled file is parsed again.
The cache holds plain data only (marshal cannot run code), is checked for its shape and order
when read, and is written atomically; a missing, damaged or unwritable one costs only the parse.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import sys
from array import array
from pathlib import Path
from typing import Any

from skillshelf.fileio import write_atomic
from skillshelf.select.bpe import ID_BITS, BpeTables, compile_tables

__all__ = ["bpe_tables"]

FORMAT = 2


def bpe_tables(path: Path, cache_dir: Path | None = None) -> BpeTables:
    """The compiled BPE model of the ``tokenizers`` file at ``path``. Raises ``OSError``
    (unreadable) or ``ValueError`` / ``KeyError`` / ``TypeError`` (not a BPE model)."""
    if cache_dir is None:
        return _parsed(path)
    st = path.stat()
    key = f"{FORMAT}\0{sys.byteorder}\0{path.absolute()}\0{st.st_size}\0{st.st_mtime_ns}"
    cached = cache_dir / "select" / f"bpe-{hashlib.sha1(key.encode()).hexdigest()[:20]}.marshal"
    found = _read(cached)
    if found is not None:
        return found
    tables = _parsed(path)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cached, _dumped(tables), mode=0o644, prefix=f".{cached.name}.")
    except OSError:
        pass  # a read-only cache folder only costs the parse
    return tables


def _parsed(path: Path) -> BpeTables:
    model = json.loads(path.read_text(encoding="utf-8"))["model"]
    if model.get("type") != "BPE":
        raise ValueError(f"a {model.get('type')!r} tokenizer, not BPE")
    vocab, merges = model["vocab"], model["merges"]
    if merges and not isinstance(merges[0], str):  # newer files hold [left, right] pairs
        merges = [" ".join(pair) for pair in merges]
    texts = isinstance(vocab, dict) and isinstance(merges, list) and set(map(type, merges)) <= {str}
    if not (texts and set(map(type, vocab)) <= {str} and set(map(type, vocab.values())) <= {int}):
        raise TypeError("the vocabulary or the merges are not text")
    return compile_tables(vocab, merges)


def _dumped(tables: BpeTables) -> bytes:
    return marshal.dumps(
        (tables.chars, tables.pairs.tobytes(), tables.merges.tobytes(), tables.byte_ids, tables.joinable)
    )


def _read(path: Path) -> BpeTables | None:
    try:
        data: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 5):
        return None
    chars, pairs_raw, merges_raw, byte_ids, joinable = data
    if not (
        isinstance(pairs_raw, bytes)
        and isinstance(merges_raw, bytes)
        and len(pairs_raw) == len(merges_raw)
        and len(pairs_raw) % 8 == 0
        and isinstance(joinable, str)
        and _ids(chars, byte_ids)
        and _increasing(pairs_raw)
    ):
        return None
    pairs, merges = array("q"), array("q")
    pairs.frombytes(pairs_raw)
    merges.frombytes(merges_raw)
    return BpeTables(chars=chars, pairs=pairs, merges=merges, byte_ids=byte_ids, joinable=joinable)


def _ids(chars: Any, byte_ids: Any) -> bool:
    """One-character pieces to ids and the 256 byte ids, every id in range (checked in C: no
    Python loop over the entries)."""
    if not (isinstance(chars, dict) and isinstance(byte_ids, list) and len(byte_ids) == 256):
        return False
    if not (set(map(type, chars)) <= {str} and set(map(type, chars.values())) <= {int}):
        return False
    if not set(map(type, byte_ids)) <= {int}:
        return False
    values = [*chars.values(), *byte_ids, 0]
    return min(values) >= -1 and max(values) < 1 << ID_BITS and -1 not in chars.values()


def _increasing(raw: bytes) -> bool:
    """Whether the pairs are sorted without repeats, all at least 0 (bisection needs it)."""
    import numpy as np  # loaded already: the embedding table it tokenizes for is a numpy map

    keys = np.frombuffer(raw, dtype=np.int64)
    return not len(keys) or (int(keys[0]) >= 0 and bool((keys[1:] > keys[:-1]).all()))
