"""Reading a tar archive with bounded work, so a compressed tar cannot run away.

:class:`TarStream` walks the members one header at a time (``TarFile.next()``), so its caller
can stop as soon as a limit is passed without decompressing the rest. Every read and seek of the
decompressed stream is held to a byte budget (the file bytes the caller allows plus room for
headers), so an oversized pax or GNU long-name header, which ``tarfile`` reads in one piece, is
refused before it is decompressed. The compression (gzip, bzip2, xz or none) is told from the
file's first bytes, not its name. A tar that stops before its end-of-archive block is damaged
(``tarfile`` alone would take a tar cut at a member boundary for a shorter whole one), and the
stream is read to its end once, so gzip, bzip2 and xz check their checksums.

Decompression errors surface as :class:`tarfile.ReadError` (:data:`TAR_ERRORS`); going over the
budget is an :class:`~skillshelf.errors.InstallError` (``IS205``).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import tarfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

from skillshelf.errors import InstallError

__all__ = ["TAR_ERRORS", "TAR_SUFFIXES", "TarStream"]

TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
TAR_ERRORS: tuple[type[Exception], ...] = (tarfile.TarError,)
_HEADER_ROOM = 4096  # decompressed bytes allowed per entry beyond its file bytes (headers, padding)
_TRAILER_ROOM = 64 * 1024
_DECOMPRESS_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)
_END_BLOCK = tarfile.NUL * tarfile.BLOCKSIZE


class _Seekable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...
    def seek(self, pos: int, /) -> int: ...
    def tell(self) -> int: ...
    def close(self) -> None: ...


def _decompressed(archive: Path) -> _Seekable:
    with open(archive, "rb") as probe:
        head = probe.read(6)
    if head.startswith(b"\x1f\x8b"):
        return gzip.open(archive, "rb")
    if head.startswith(b"BZh"):
        return bz2.open(archive, "rb")
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(archive, "rb")
    return open(archive, "rb")


class _Budgeted:
    """The decompressed stream as ``tarfile`` sees it: nothing past ``budget`` bytes is read."""

    def __init__(self, archive: Path, inner: _Seekable, budget: int) -> None:
        self._archive = archive
        self._inner = inner
        self._budget = budget

    def _refuse_past(self, end: int) -> None:
        if end > self._budget:
            raise InstallError(
                f"{self._archive.name}: its headers and files pass {self._budget} bytes once "
                "decompressed, more than the limits allow; nothing was written",
                hint="a skill archive should be small; ask its author for one without huge headers",
                code="IS205",
            )

    def read(self, size: int, /) -> bytes:
        self._refuse_past(self.tell() + size if size >= 0 else self._budget + 1)  # tarfile always sizes
        try:
            return self._inner.read(size)
        except _DECOMPRESS_ERRORS as exc:
            raise tarfile.ReadError(str(exc) or type(exc).__name__) from exc

    def seek(self, pos: int, /) -> int:
        self._refuse_past(pos)
        try:
            return self._inner.seek(pos)
        except _DECOMPRESS_ERRORS as exc:
            raise tarfile.ReadError(str(exc) or type(exc).__name__) from exc

    def tell(self) -> int:
        return self._inner.tell()

    def drain(self) -> None:
        """Read on to the end, so a compressor checks its checksum; past the budget is refused."""
        while self.read(max(1, min(1 << 16, self._budget - self.tell()))):
            pass

    def write(self, data: bytes, /) -> int:
        raise tarfile.ReadError("the archive is open for reading only")

    def close(self) -> None:
        self._inner.close()


class TarStream:
    """One tar archive open for reading: its members one at a time, then their contents.

    ``max_data_bytes`` and ``max_entries`` are the caller's limits on the sum of file sizes and
    on the entry count; the stream refuses to decompress more than they can explain.
    """

    def __init__(self, archive: Path, *, max_data_bytes: int, max_entries: int) -> None:
        budget = max_data_bytes + max_entries * _HEADER_ROOM + _TRAILER_ROOM
        self._stream = _Budgeted(archive, _decompressed(archive), budget)
        try:
            self._tar = tarfile.TarFile(fileobj=self._stream, mode="r", encoding="utf-8")
        except BaseException:
            self._stream.close()
            raise

    def members(self) -> Iterator[tarfile.TarInfo]:
        """Each member as its header is read (pax global headers are folded in, never listed)."""
        while (info := self._tar.next()) is not None:
            yield info
        self._stream.seek(self._tar.offset)
        if self._stream.read(tarfile.BLOCKSIZE) != _END_BLOCK:
            raise tarfile.ReadError("it ends before its end-of-archive block (cut short?)")
        self._stream.drain()

    def open(self, info: tarfile.TarInfo) -> IO[bytes]:
        """The contents of the regular file ``info``, read through the budget."""
        file = self._tar.extractfile(info)
        if file is None:
            raise tarfile.ReadError(f"{info.name!r} is not a regular file")
        return file

    def close(self) -> None:
        self._tar.close()
        self._stream.close()
