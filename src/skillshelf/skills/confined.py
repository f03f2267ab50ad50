"""Opening a file beneath a folder without ever passing through a symlink out of it (openat-style).

Resolving a path and then opening it leaves a window: a folder inside the skill swapped for a
symlink to elsewhere between the check and the open (or during the kernel's own walk) sends
the read outside. 137 of ~95,000 reads returned outside content that way when only the last
component was opened with ``O_NOFOLLOW``. Here every component is opened with ``O_NOFOLLOW``
relative to the descriptor of the folder before it, so the kernel never follows a link on
its own. Symlinks inside the folder still work: each is read with ``readlink`` and resolved by
hand against the descriptors already held. A relative target may climb with ``..`` above the
base folder only to come back into it by name (``../SKILL-FOLDER/x``, :func:`_back_inside`); an
absolute target must lie under the base folder's real path. After
:data:`MAX_HOPS` links the path counts as a loop (``ELOOP``).

The folder itself is opened as it is (symlinks to it followed), or, with ``exact=True``, as the
real folder at that absolute path: every component from ``/`` down opened with ``O_NOFOLLOW``
(:func:`open_real_folder`), so a folder swapped for a symlink since its path was resolved (the
skill folder discovery found, or any folder above it) is refused rather than followed.
Folders are opened with ``O_PATH`` where there is one: passing through needs search (``x``)
permission alone, as a path lookup does, so a folder of mode 0311 still serves its files.

Hard links are not refused here (the caller decides; see
:func:`skillshelf.skills.bundled.read_confined_file`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from skillshelf.errors import PathEscapeError

__all__ = ["MAX_HOPS", "open_beneath", "open_real_folder", "read_beneath"]

MAX_HOPS = 40  # Linux's MAXSYMLINKS
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_PATH_ONLY = getattr(os, "O_PATH", 0)
_OPEN_DIR = (_PATH_ONLY or os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
_DIR_FLAGS = _OPEN_DIR | _NOFOLLOW


def _escape(original: str) -> PathEscapeError:
    return PathEscapeError(f"{original!r} is a symlink that leads out of the skill folder", path=original)


def _link_parts(target: str, base_real: str, original: str) -> tuple[bool, list[str]]:
    """``(from the base, components)`` for a symlink's target; absolute ones must be inside."""
    if not os.path.isabs(target):
        return False, target.split("/")
    normal = os.path.normpath(target)
    if normal != base_real and os.path.commonpath([base_real, normal]) != base_real:
        raise _escape(original)
    rest = os.path.relpath(normal, base_real)
    return True, [] if rest == "." else rest.split(os.sep)


def _back_inside(base_real: str, todo: list[str], original: str) -> None:
    """A ``..`` out of the base folder (``base_real``, its real path): take from ``todo`` (the
    components still to open, the next last) the ones that lead back into it, so a relative link
    such as ``selfref.py -> ../SKILL-FOLDER/scripts/run.py`` is read, as one to the same file by
    its absolute path is; raise :func:`_escape` when they lead anywhere else. Above the base
    every folder is an ancestor of its real path, symlink-free, so the components are followed
    by name, and the base is reached again through the descriptor already held."""
    here = os.path.dirname(base_real)
    while here != base_real:
        if not todo:  # the path ends outside (a link to a folder above the skill's)
            raise _escape(original)
        name = todo.pop()
        if name == "..":
            here = os.path.dirname(here)
        elif name not in ("", "."):
            here = os.path.join(here, name)
            if here != base_real and not base_real.startswith(here + "/"):
                raise _escape(original)


def _open_file(name: str, dir_fd: int) -> int:
    """``name`` in ``dir_fd`` opened to read, or, when it cannot be (``ENXIO``: a Unix socket, a
    device file without its device), an ``O_PATH`` descriptor that reads nothing, for the
    caller's ``fstat`` to refuse as the special file it is (the error where there is no
    ``O_PATH``)."""
    try:
        return os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno != errno.ENXIO or not _PATH_ONLY:
            raise
    return os.open(name, _PATH_ONLY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)


def _swapped(folder: str, part: str) -> PathEscapeError:
    return PathEscapeError(
        f"the folder {folder} is no longer the one found: {part!r} on its path is now a symlink",
        path=folder,
        hint="the folder changed since it was found; rescan (or restart the server) to serve it again",
    )


def open_real_folder(folder: Path) -> int:
    """A descriptor for the real folder at the resolved path ``folder``, each component opened
    with ``O_NOFOLLOW`` relative to the one before it, from ``/`` (a relative path: from the
    current folder). Raises
    :class:`PathEscapeError` when a component is a symlink (the path no longer leads to the
    folder it led to when resolved), ``FileNotFoundError`` / ``NotADirectoryError`` when one is
    missing or not a folder."""
    text = os.path.normpath(folder)
    fd = os.open("/" if os.path.isabs(text) else ".", _DIR_FLAGS)
    try:
        for part in (p for p in text.split("/") if p):
            try:
                next_fd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                try:
                    os.readlink(part, dir_fd=fd)
                except OSError:
                    raise exc from None  # a file where a folder was
                raise _swapped(text, part) from None
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_base(folder: Path, *, exact: bool) -> tuple[str, int]:
    """``folder``'s real path and a descriptor for it (see :func:`open_beneath`)."""
    if exact:
        return os.path.normpath(folder), open_real_folder(folder)
    return os.path.realpath(folder), os.open(folder, _OPEN_DIR)


def open_beneath(folder: Path, parts: Sequence[str], original: str, *, exact: bool = False) -> int:
    """An ``O_RDONLY | O_NONBLOCK`` descriptor for ``folder/parts...``, never leaving ``folder``.

    ``folder`` itself is opened as it is (symlinks to it followed), or with ``exact`` as the real
    folder at that resolved path (:func:`open_real_folder`; :class:`PathEscapeError` when a
    symlink is on its path now). The caller owns the descriptor and checks what it is
    (``fstat``): a folder (an ``O_PATH`` descriptor where there is one), FIFO, device or socket
    can come back (a socket, or a device without its device, as an ``O_PATH`` descriptor that
    reads nothing). Raises :class:`PathEscapeError` for a way out, ``FileNotFoundError`` /
    ``NotADirectoryError`` for a missing part, ``OSError(ELOOP)`` for a loop.
    """
    if os.open not in os.supports_dir_fd:  # pragma: no cover - not POSIX
        raise OSError(errno.ENOTSUP, "this platform cannot open files relative to a folder")
    base_real, base = _open_base(folder, exact=exact)
    stack = [base]
    todo = list(reversed(parts))
    hops = 0
    try:
        while todo:
            name = todo.pop()
            if name in ("", "."):
                continue
            if name == "..":
                if len(stack) == 1:
                    _back_inside(base_real, todo, original)
                    continue
                os.close(stack.pop())
                continue
            last = not todo
            try:
                fd = _open_file(name, stack[-1]) if last else os.open(name, _DIR_FLAGS, dir_fd=stack[-1])
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                try:
                    target = os.readlink(name, dir_fd=stack[-1])
                except OSError:
                    raise exc from None  # not a symlink: a file where a folder was expected
                hops += 1
                if hops > MAX_HOPS:
                    raise OSError(errno.ELOOP, "too many levels of symbolic links", original) from None
                from_base, more = _link_parts(target, base_real, original)
                if from_base:
                    while len(stack) > 1:
                        os.close(stack.pop())
                todo.extend(reversed(more))
                continue
            if last:
                return fd
            stack.append(fd)
        # the path ended on a folder (``a/.``, or a link to one): hand back a descriptor for it
        return os.dup(stack[-1])
    finally:
        for fd in stack:
            os.close(fd)


def read_beneath(
    folder: Path,
    parts: Sequence[str],
    original: str,
    *,
    max_bytes: int,
    single_link: bool = False,
    exact: bool = False,
) -> bytes:
    """Up to ``max_bytes`` (-1: all) of the regular file ``folder/parts...``, opened by
    :func:`open_beneath` (``exact`` passed on). Raises what it raises, and ``IsADirectoryError``
    for anything but a regular file, ``OSError(EMLINK)`` for a hard-linked one when ``single_link``."""
    fd = open_beneath(folder, parts, original, exact=exact)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "not a regular file", original)
        if single_link and info.st_nlink > 1:
            raise OSError(errno.EMLINK, "hard-linked: its content may belong to a file elsewhere", original)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        return handle.read(max_bytes)
