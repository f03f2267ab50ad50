"""Files written and read safely: the two helpers every area uses.

* :func:`atomic_file` / :func:`write_atomic`: write a temporary file beside the target (made
  by ``mkstemp``: mode 0600 unless ``mode`` says otherwise) and move it over the target, so a
  reader sees the old file or the new one, never half of one; on any error the temporary file
  is removed and the target is left as it was.
* :func:`open_regular`: open a file for reading without blocking and refuse anything that is
  not a regular file, so a FIFO or device named like the file cannot hang a read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFile", "atomic_file", "open_regular", "write_atomic"]


class NotRegularFile(OSError):
    """The path is a folder, FIFO, socket or device: reading it could block or never end."""


@contextmanager
def atomic_file(path: Path, *, mode: int | None = None, prefix: str = ".tmp-") -> Iterator[BinaryIO]:
    """A binary handle on a temporary file in ``path``'s folder, moved over ``path`` when the
    block ends without an error (removed when it raises). ``mode``: the new file's permissions
    (default 0600, from ``mkstemp``)."""
    import tempfile  # only when writing: a warm run that changes nothing never loads it

    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, data: bytes | str, *, mode: int | None = None, prefix: str = ".tmp-") -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) in one step; see :func:`atomic_file`."""
    with atomic_file(path, mode=mode, prefix=prefix) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def open_regular(path: Path | str, *, follow_symlinks: bool = True) -> BinaryIO:
    """``path`` opened for reading without blocking on a FIFO; raises :class:`NotRegularFile`
    unless it is a regular file (checked on the open file, so a swap after a ``stat`` cannot
    slip through) and ``OSError`` when it cannot be opened (a symlink too, with
    ``follow_symlinks=False``)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        raise NotRegularFile(errno.EINVAL, "not a regular file (a folder, FIFO, socket or device)", str(path))
    return os.fdopen(fd, "rb")
