"""One self-describing binary file of named arrays and string lists, memory-mapped on read.

Layout: an 8-byte magic, the header length (little-endian uint64), a JSON header (format
version; per array its dtype, shape and offset; per string list its count), then the array
bytes, each at a 64-byte aligned offset. String lists are stored as NUL-joined UTF-8 bytes
(keys, stamps and terms never contain NUL).

Reading maps the file read-only and returns views into it: no copy and no parsing of the
arrays, so a warm start costs little more than the ``open``. Writing goes to a temporary file
in the same folder and is moved into place with ``os.replace``: a reader sees the old file
or the new one, never a mix, and two writers cannot interleave.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Any

from skillshelf.fileio import atomic_file, open_regular

__all__ = ["read_file", "write_file"]

MAGIC = b"SKSHIDX\x01"
_ALIGN = 64


def write_file(path: Path, version: int, arrays: dict[str, Any], texts: dict[str, list[str]]) -> None:
    """Write ``arrays`` and ``texts`` to ``path`` atomically (raises ``OSError``)."""
    import numpy as np

    blobs: dict[str, Any] = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    for name, items in texts.items():
        blobs[f"text:{name}"] = np.frombuffer("\0".join(items).encode("utf-8", "surrogatepass"), np.uint8)
    header: dict[str, Any] = {
        "version": version,
        "arrays": {},
        "counts": {k: len(v) for k, v in texts.items()},
    }
    offset = 0
    for name, a in blobs.items():
        header["arrays"][name] = [a.dtype.str, list(a.shape), offset]
        offset += -(-a.nbytes // _ALIGN) * _ALIGN
    head = json.dumps(header).encode("utf-8")
    start = -(-(len(MAGIC) + 8 + len(head)) // _ALIGN) * _ALIGN
    with atomic_file(path, mode=0o644, prefix=f".{path.name}.") as f:
        f.write(MAGIC + len(head).to_bytes(8, "little") + head)
        f.write(b"\0" * (start - f.tell()))
        for a in blobs.values():
            if a.nbytes:
                f.write(memoryview(a.reshape(-1)).cast("B"))
            f.write(b"\0" * (-a.nbytes % _ALIGN))


def read_file(path: Path, version: int) -> tuple[dict[str, Any], dict[str, list[str]]] | None:
    """``(arrays, texts)`` from ``path`` (read-only views), ``None`` for another format version.

    Raises ``OSError`` or ``ValueError`` for a missing, truncated or malformed file (and for a
    FIFO, socket or device, which is never opened for a blocking read)."""
    import numpy as np

    with open_regular(path) as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if data[: len(MAGIC)] != MAGIC:
        raise ValueError("not an index file")
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    head_end = len(MAGIC) + 8 + size
    if head_end > len(data):
        raise ValueError("truncated header")
    header = json.loads(bytes(data[len(MAGIC) + 8 : head_end]).decode("utf-8"))
    if header.get("version") != version:
        return None
    start = -(-head_end // _ALIGN) * _ALIGN
    arrays: dict[str, Any] = {}
    for name, (dtype, shape, offset) in header["arrays"].items():
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        if dt.hasobject or start + offset + count * dt.itemsize > len(data):
            raise ValueError(f"array {name} is out of bounds")
        arrays[name] = np.frombuffer(data, dt, count, start + offset).reshape(shape)
    texts: dict[str, list[str]] = {}
    for name, count in header["counts"].items():
        raw = arrays.pop(f"text:{name}").tobytes().decode("utf-8", "surrogatepass")
        items = raw.split("\0") if count else []
        if len(items) != count:
            raise ValueError(f"text list {name} has {len(items)} items, not {count}")
        texts[name] = items
    return arrays, texts
