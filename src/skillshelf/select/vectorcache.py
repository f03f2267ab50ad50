"""The embedding models' document vectors kept on disk, one file per model shared by every project.

``<cache>/select/<model>-vectors.bin`` (an :mod:`~skillshelf.select.indexfile` file) holds the
vectors a model gave, each under the SHA-1 of the text it encoded (hex, sorted) with the time
it was last used. A build maps the file and copies out the rows it needs only, so a cache of
tens of thousands of vectors costs a lookup, not a read of every vector. Going from one
project to another and back encodes nothing again.

Saving merges: under the folder's lock the file is read again and every vector in it is kept
beside the new ones, so processes that save at once (an agent's hooks) both keep what they
encoded; the write is atomic (temporary file and rename). Past :data:`CAPACITY_BYTES` the
least recently used vectors go, never those of the build that saves. A build that encodes
nothing writes only when its vectors were last stamped more than :data:`REFRESH_SECONDS` ago.

The cache is an optimisation: a missing, damaged or unwritable file costs only the encoding
(and a damaged one is replaced by the next save); a vector holding a value that is not finite
(NaN or inf inside a file of the right size) is looked up as missing, encoded again and
replaced by that save. The ``<model>-vectors.npz`` file of earlier
versions is read while no new file exists, and removed by the first save.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillshelf.fileio import folder_lock
from skillshelf.select.indexfile import read_file, write_file

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["CAPACITY_BYTES", "REFRESH_SECONDS", "Found", "cache_file", "lookup", "save"]

FORMAT = 1
CAPACITY_BYTES = 64 << 20  # 43,690 MiniLM vectors (384 float32), 65,536 WordLlama ones (256)
REFRESH_SECONDS = 86_400.0  # a project used every day keeps its vectors' stamps at most this old
LOCK_WAIT = 5.0  # seconds a save waits for another process's save, then gives up
STALE_TEMP_SECONDS = 3_600.0  # a temporary file this old was left by a writer that stopped
_KEY = "S40"  # a SHA-1 in hex
_BROKEN = (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """The cached vectors of the digests asked for, and the oldest last-use time among them."""

    vectors: dict[str, Matrix]
    oldest: float


@dataclass(frozen=True, slots=True, kw_only=True)
class _Table:
    keys: Any  # sorted, distinct (S40)
    vectors: Matrix  # (len(keys), dim)
    used: Any  # float64 seconds since the epoch


def cache_file(cache_dir: Path, model: str) -> Path:
    """Where ``model``'s vectors are kept."""
    return cache_dir / "select" / f"{model}-vectors.bin"


def _legacy_file(cache_dir: Path, model: str) -> Path:
    return cache_dir / "select" / f"{model}-vectors.npz"


def lookup(cache_dir: Path | None, model: str, dim: int, digests: Sequence[str]) -> Found:
    """The vectors of ``digests`` found in the cache (missing, damaged file: none)."""
    import numpy as np

    table = None if cache_dir is None else _read_any(cache_dir, model, dim)
    if table is None or not len(table.keys) or not digests:
        return Found(vectors={}, oldest=float("inf"))
    wanted = np.asarray(digests, dtype=_KEY)
    pos = np.minimum(np.searchsorted(table.keys, wanted), len(table.keys) - 1)
    hit = table.keys[pos] == wanted
    vectors = np.array(table.vectors[pos], dtype=np.float32)  # a copy: the file may be replaced
    hit &= np.isfinite(vectors).all(axis=1)  # a damaged vector (NaN, inf) is encoded again
    rows, vectors = pos[hit], vectors[hit]
    names = [d for d, h in zip(digests, hit.tolist(), strict=True) if h]
    oldest = float(table.used[rows].min()) if len(rows) else float("inf")
    return Found(vectors=dict(zip(names, vectors, strict=True)), oldest=oldest)


def save(
    cache_dir: Path | None,
    model: str,
    dim: int,
    fresh: Mapping[str, Matrix],
    *,
    used: Sequence[str],
    now: float | None = None,
) -> None:
    """Add ``fresh`` vectors to the cache and stamp ``used`` digests (the build's) as used ``now``,
    merged with the file as it is when written; silently nothing when it cannot be written."""
    if cache_dir is None:
        return
    stamp = time.time() if now is None else now
    path = cache_file(cache_dir, model)
    try:
        with folder_lock(path.parent, wait=LOCK_WAIT):
            table = _merged(_finite(_read_any(cache_dir, model, dim)), fresh, used, stamp, dim)
            table = _bounded(table, used, max(1, CAPACITY_BYTES // (4 * dim)))
            arrays = {"keys": table.keys, "vectors": table.vectors, "used": table.used}
            write_file(path, FORMAT, arrays, {})
            _legacy_file(cache_dir, model).unlink(missing_ok=True)
            _drop_stale_temps(path, stamp)
    except OSError:
        return  # a read-only or busy cache folder only costs the encoding


def _read_any(cache_dir: Path, model: str, dim: int) -> _Table | None:
    path = cache_file(cache_dir, model)
    if path.exists():
        return _read(path, dim)
    return _read_legacy(_legacy_file(cache_dir, model), dim)


def _read(path: Path, dim: int) -> _Table | None:
    import numpy as np

    try:
        found = read_file(path, FORMAT)
        if found is None:
            return None
        arrays = found[0]
        keys, vectors, used = arrays["keys"], arrays["vectors"], arrays["used"]
        n = len(keys)
        shaped = keys.dtype == np.dtype(_KEY) and keys.shape == (n,) and used.shape == (n,)
        if not (shaped and vectors.dtype == np.float32 and vectors.shape == (n, dim)):
            return None
        if used.dtype != np.float64 or (n > 1 and not bool((keys[1:] > keys[:-1]).all())):
            return None
        return _Table(keys=keys, vectors=vectors, used=used)
    except _BROKEN:
        return None


def _finite(table: _Table | None) -> _Table | None:
    """``table`` without the vectors holding a value that is not finite (NaN, inf: a damaged
    file of the right size), so a save replaces them with the ones encoded again."""
    import numpy as np

    if table is None:
        return None
    sound = np.isfinite(table.vectors).all(axis=1)
    if bool(sound.all()):
        return table
    return _Table(keys=table.keys[sound], vectors=table.vectors[sound], used=table.used[sound])


def _read_legacy(path: Path, dim: int) -> _Table | None:
    """The ``.npz`` file of earlier versions (keys and vectors, no stamps), sorted by key."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            keys = np.asarray([str(k) for k in data["keys"]], dtype=_KEY)
            vectors = np.asarray(data["vectors"], dtype=np.float32)
        if vectors.shape != (len(keys), dim) or len(keys) != len(np.unique(keys)):
            return None
        order = np.argsort(keys, kind="stable")
        return _Table(keys=keys[order], vectors=vectors[order], used=np.zeros(len(keys), np.float64))
    except (*_BROKEN, UnicodeError):
        return None


def _merged(
    old: _Table | None, fresh: Mapping[str, Matrix], used: Sequence[str], now: float, dim: int
) -> _Table:
    """``old`` (its vector kept where both hold a key) and ``fresh``, ``used`` stamped ``now``."""
    import numpy as np

    names = sorted(fresh)
    keys = np.asarray(names, dtype=_KEY)
    empty = np.zeros((0, dim), np.float32)
    vectors = np.stack([np.asarray(fresh[k], np.float32) for k in names]) if names else empty
    stamps = np.full(len(names), now, np.float64)
    if old is not None:
        keys = np.concatenate([old.keys, keys])
        vectors = np.concatenate([old.vectors, vectors])
        stamps = np.concatenate([old.used, stamps])
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    latest = np.zeros(len(unique), np.float64)
    np.maximum.at(latest, inverse.reshape(-1), stamps)
    if used:
        latest[np.isin(unique, np.asarray(list(used), dtype=_KEY))] = now
    return _Table(keys=unique, vectors=np.asarray(vectors[first], np.float32), used=latest)


def _bounded(table: _Table, used: Sequence[str], capacity: int) -> _Table:
    """``table`` without its least recently used vectors past ``capacity`` (ties: by key);
    the ``used`` digests stay, even past it."""
    import numpy as np

    if len(table.keys) <= capacity:
        return table
    priority = table.used.copy()
    if used:
        priority[np.isin(table.keys, np.asarray(list(used), dtype=_KEY))] = np.inf
    order = np.argsort(-priority, kind="stable")  # keys are sorted: ties keep key order
    keep = np.sort(order[: max(capacity, int(np.isinf(priority).sum()))])
    return _Table(keys=table.keys[keep], vectors=table.vectors[keep], used=table.used[keep])


def _drop_stale_temps(path: Path, now: float) -> None:
    """Remove temporary files of this cache left by a writer that stopped long ago."""
    for temp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if now - temp.stat().st_mtime > STALE_TEMP_SECONDS:
                temp.unlink()
        except OSError:
            continue
