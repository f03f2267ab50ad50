"""A tokenizer's BPE model read once, then kept in the cache folder in :mod:`marshal` form.

``tokenizers`` JSON files are large (WordLlama's: 1.8 MB, 32,000 pieces and 61,000 merges), and
parsing one is most of what loading the base install's embedding costs, on every prompt an
agent's hook answers. The vocabulary and merges are kept beside the search index in
``<cache>/select/bpe-<digest>.marshal``, the digest naming the source file's path, size and
modification time: a changed or reinstalled file is parsed again. The cache holds plain data
only (marshal cannot run code), is checked for its shape when read, and is written atomically;
a missing, damaged or unwritable one costs only the parse.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from pathlib import Path
from typing import Any

from skillshelf.fileio import write_atomic

__all__ = ["bpe_model"]

FORMAT = 1

Model = tuple[dict[str, int], list[str]]


def bpe_model(path: Path, cache_dir: Path | None = None) -> Model:
    """``(vocabulary, merges)`` of the BPE ``tokenizers`` file at ``path``, each merge written
    as its two pieces with one space between. Raises ``OSError`` (unreadable) or
    ``ValueError`` / ``KeyError`` / ``TypeError`` (not a BPE model)."""
    if cache_dir is None:
        return _parsed(path)
    st = path.stat()
    key = f"{FORMAT}\0{path.absolute()}\0{st.st_size}\0{st.st_mtime_ns}"
    cached = cache_dir / "select" / f"bpe-{hashlib.sha1(key.encode()).hexdigest()[:20]}.marshal"
    found = _read(cached)
    if found is not None:
        return found
    model = _parsed(path)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cached, marshal.dumps(model), mode=0o644, prefix=f".{cached.name}.")
    except OSError:
        pass  # a read-only cache folder only costs the parse
    return model


def _parsed(path: Path) -> Model:
    model = json.loads(path.read_text(encoding="utf-8"))["model"]
    if model.get("type") != "BPE":
        raise ValueError(f"a {model.get('type')!r} tokenizer, not BPE")
    vocab, merges = model["vocab"], model["merges"]
    if merges and not isinstance(merges[0], str):  # newer files hold [left, right] pairs
        merges = [" ".join(pair) for pair in merges]
    if not _valid((vocab, merges)):
        raise TypeError("the vocabulary or the merges are not text")
    return vocab, merges


def _read(path: Path) -> Model | None:
    try:
        data: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return (data[0], data[1]) if _valid(data) else None


def _valid(data: Any) -> bool:
    if not (isinstance(data, tuple) and len(data) == 2):
        return False
    vocab, merges = data
    if not (isinstance(vocab, dict) and isinstance(merges, list)):
        return False
    # the types present, gathered in C: a check of every entry that costs no Python loop
    return (
        set(map(type, vocab)) <= {str}
        and set(map(type, vocab.values())) <= {int}
        and set(map(type, merges)) <= {str}
    )
