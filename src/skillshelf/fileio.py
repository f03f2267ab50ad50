"""Files written and read safely: the two helpers every area uses.

* :func:`atomic_file` / :func:`write_atomic`: write a temporary file beside the target
  (created exclusively, never through a link) and move it over the target, so a reader sees the
  old file or the new one, never half of one; on any error the temporary file is removed and
  the target is left as it was. The new file is 0600 (private state) unless ``mode`` says
  otherwise: exact bits, or ``"umask"`` for what ``open`` would give it; ``keep_mode`` keeps an
  existing target's bits; ``sync`` puts the data on disk before the rename.
* :func:`open_regular`: open a file for reading without blocking and refuse anything that is
  not a regular file, so a FIFO or device named like the file cannot hang a read;
  :func:`read_regular_text` reads such a file as text up to a size cap (:class:`FileTooLarge`
  past it; :data:`MAX_SETTINGS_BYTES` for config, settings and source files), for every file a
  user or a project can name or plant; :func:`regular_or_missing` checks a path that another
  library (SQLite) will open.
* :func:`file_identity`: what tells a file from its replacement or an edit of it, for what a
  process keeps in memory while a file stays the same; :func:`stat_of`, the modification time
  and size a cache stamp keeps for a file it read.
* :func:`resolve_path`: ``Path.resolve()`` that says so when a loop of symlinks stops it, with
  the same ``OSError`` (``ELOOP``) on every Python (3.11 and 3.12 raise ``RuntimeError``; 3.13
  returns the path where the loop begins as if it were resolved).
* :func:`folder_lock`: one process at a time reads, changes and writes a file of a folder (an
  advisory ``flock`` on the folder itself, so no lock file is left behind), so two commands
  editing one config file at once both keep their change instead of the last one winning.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Literal

if sys.platform != "win32":
    import fcntl

__all__ = [
    "MAX_SETTINGS_BYTES",
    "FileIdentity",
    "FileTooLarge",
    "FolderBusy",
    "NotRegularFile",
    "atomic_file",
    "file_identity",
    "folder_lock",
    "open_regular",
    "read_regular_text",
    "regular_or_missing",
    "resolve_path",
    "stat_of",
    "write_atomic",
]

#: A config, settings or source file is kilobytes; one past this is not what the reader expects.
MAX_SETTINGS_BYTES = 16 * 1024 * 1024
Mode = int | Literal["umask"] | None
FileIdentity = tuple[int, int, int, int, int]
_TEMP_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)


class NotRegularFile(OSError):
    """The path is a folder, FIFO, socket or device: reading it could block or never end."""


class FileTooLarge(OSError):
    """The file is larger than the reader's cap (``errno.EFBIG``)."""


class FolderBusy(OSError):
    """Another process held the folder's lock for longer than the caller would wait."""


def _temp_file(folder: Path, prefix: str, permissions: int) -> tuple[int, Path]:
    """A new file in ``folder`` named ``prefix`` + random + ``.tmp`` (``permissions`` less the umask)."""
    for _ in range(100):
        tmp = folder / f"{prefix}{os.urandom(6).hex()}.tmp"
        try:
            return os.open(tmp, _TEMP_FLAGS, permissions), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", str(folder))


def _permissions(path: Path, mode: Mode, keep_mode: bool) -> int | None:
    """The bits to give the new file (None: those it was created with)."""
    if keep_mode:
        try:
            return os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            pass
    return mode if isinstance(mode, int) else None


@contextmanager
def atomic_file(
    path: Path, *, mode: Mode = None, keep_mode: bool = False, sync: bool = False, prefix: str = ".tmp-"
) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file in ``path``'s folder, moved over ``path`` when the
    block ends without an error (removed when it raises). ``mode``: the new file's permissions
    (default 0600; ``"umask"``: 0666 less the umask); ``keep_mode``: an existing ``path`` keeps
    its permissions; ``sync``: fsync the data before the rename."""
    bits = _permissions(path, mode, keep_mode)
    fd, tmp = _temp_file(path.parent, prefix, 0o666 if mode == "umask" else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        if bits is not None:
            os.chmod(tmp, bits)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(
    path: Path,
    data: bytes | str,
    *,
    mode: Mode = None,
    keep_mode: bool = False,
    sync: bool = False,
    prefix: str = ".tmp-",
) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, newlines as given) in one step;
    see :func:`atomic_file`."""
    with atomic_file(path, mode=mode, keep_mode=keep_mode, sync=sync, prefix=prefix) as handle:
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
        raise _not_regular(path)
    return os.fdopen(fd, "rb")


def regular_or_missing(path: Path | str) -> None:
    """Raise :class:`NotRegularFile` when ``path`` (followed through links) exists and is not a
    regular file: for a file another library opens itself, which could block on a FIFO."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise _not_regular(path)


def _not_regular(path: Path | str) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, "not a regular file (a folder, FIFO, socket or device)", str(path))


BYTE_ORDER_MARK = "\ufeff"


def read_toml_text(path: Path | str, *, limit: int = MAX_SETTINGS_BYTES) -> str:
    """A TOML file's text (:func:`read_regular_text`) without the byte-order mark an editor may
    have put first: Codex reads such a ``config.toml``, Python's ``tomllib`` refuses it."""
    return read_regular_text(path, limit=limit).removeprefix(BYTE_ORDER_MARK)


def had_byte_order_mark(path: Path) -> bool:
    """Whether the file at ``path`` starts with a UTF-8 byte-order mark (False when unreadable)."""
    try:
        with open_regular(path) as handle:
            return handle.read(3) == BYTE_ORDER_MARK.encode("utf-8")
    except OSError:
        return False


def read_regular_text(path: Path | str, *, limit: int, errors: str = "strict") -> str:
    """The text of the regular file ``path`` (UTF-8, decoded with ``errors``), read through
    :func:`open_regular`; raises :class:`NotRegularFile`, :class:`FileTooLarge` past ``limit``
    bytes, ``OSError`` and (with ``errors="strict"``) ``UnicodeDecodeError``."""
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return data.decode("utf-8", errors=errors)


def resolve_path(path: Path) -> Path:
    """``path`` absolute, its symlinks followed; a missing end is kept as written, as
    ``Path.resolve()`` keeps it. Raises ``OSError`` with ``errno.ELOOP`` when a loop of symlinks
    stops the resolution."""
    try:
        resolved = path.resolve()
    except RuntimeError as exc:  # Python 3.11 and 3.12: "Symlink loop from ..."
        raise _loop(path) from exc
    try:
        info = os.lstat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _loop(path) from exc
        return resolved  # a missing end (or one this process cannot see): as resolve() leaves it
    if stat.S_ISLNK(info.st_mode):  # Python 3.13 stops at the loop and returns the link
        raise _loop(path)
    return resolved


def _loop(path: Path) -> OSError:
    return OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))


def file_identity(info: os.stat_result) -> FileIdentity:
    """Device, inode, size, mtime and ctime (ns): a file renamed into place (every writer here)
    or edited in place gets another identity."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def stat_of(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path`` (symlinks followed), ``None`` if it cannot be looked at."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_mtime_ns, info.st_size)


@contextmanager
def folder_lock(folder: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``folder`` (created when missing) for the block.

    ``wait``: seconds to wait for another holder before raising :class:`FolderBusy` (``None``:
    as long as it takes). Only processes that take the same lock are kept out. Where there is
    no ``flock`` (Windows) or the file system refuses it (some network mounts) the block runs
    unlocked: the writes stay atomic, only the read-change-write of two processes can meet.
    """
    folder.mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":
        yield
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        locked = _flock(fd, folder, wait)
        try:
            yield
        finally:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _flock(fd: int, folder: Path, wait: float | None) -> bool:
    """Take the lock on ``fd``; False when the file system does not support it."""
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if deadline is None else fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if deadline is not None and time.monotonic() >= deadline:
                raise FolderBusy(errno.EWOULDBLOCK, "another process holds its lock", str(folder)) from None
            time.sleep(0.02)
        except OSError as exc:
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EBADF, errno.EINVAL):
                return False
            raise
