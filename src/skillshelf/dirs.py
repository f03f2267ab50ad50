"""skillshelf's own user folders, resolved once from the environment by ``Env.from_os``, and
private state.

:class:`UserDirs` is a plain value; nothing here reads the process environment: the mapping and
the home folder come from the caller (``Env.from_os`` passes ``os.environ`` and ``$HOME``).
:func:`private_dir`, :func:`private_file` and :func:`open_private` make what holds a person's
sessions (the memory database, memory folders, transcripts, usage log) readable by its owner
only: files 0600 in folders 0700.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from skillshelf.fileio import folder_lock, write_atomic

__all__ = [
    "APP",
    "UserDirs",
    "append_to_log",
    "open_output_log",
    "open_private",
    "private_dir",
    "private_file",
    "unwritable",
]

APP = "skillshelf"
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_KINDS = ("cache", "data", "config", "state")
# Where each folder lives under the home folder on Linux when its XDG variable is unset (the XDG
# base-directory defaults, as platformdirs gives them).
_LINUX_DEFAULTS = {"cache": ".cache", "data": ".local/share", "config": ".config", "state": ".local/state"}


@dataclass(frozen=True, slots=True, kw_only=True)
class UserDirs:
    """The user folders skillshelf reads and writes.

    ``cache``: parsed-skill cache and search index. ``data``: built-in and installed skills,
    memory database and folders. ``config``: the user config layer (``config.toml``).
    ``state``: agent transcripts and the usage log.
    """

    cache: Path
    data: Path
    config: Path
    state: Path

    @classmethod
    def under(cls, home: Path) -> UserDirs:
        """The Linux default layout below ``home`` (``~/.cache/skillshelf``...): what tests isolate."""
        return cls(**{kind: home / _LINUX_DEFAULTS[kind] / APP for kind in _KINDS})

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], home: Path) -> UserDirs:
        """Each folder from ``SKILLSHELF_<KIND>_DIR``, else ``$XDG_<KIND>_HOME/skillshelf``, else the
        platform's user folder (platformdirs)."""
        return cls(**{kind: _user_dir(kind, environ, home) for kind in _KINDS})


def _user_dir(kind: str, environ: Mapping[str, str], home: Path) -> Path:
    override = environ.get(f"SKILLSHELF_{kind.upper()}_DIR")
    if override:
        return Path(override)
    found = _xdg(kind, environ, home)
    if found is not None:
        return found
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))


def _xdg(kind: str, environ: Mapping[str, str], home: Path) -> Path | None:
    """On Linux: ``$XDG_<KIND>_HOME/skillshelf`` when the variable is an absolute path, the XDG
    default below ``home`` when it is unset or empty (and ``home`` is absolute); as platformdirs
    gives them.

    platformdirs (and the ``tempfile``/``shutil`` it imports) costs several milliseconds of a
    warm run; its Unix class returns exactly this in these cases. Anything else (a relative
    variable, another platform, Android) goes through platformdirs.
    """
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in environ:
        return None
    value = environ.get(f"XDG_{kind.upper()}_HOME", "")
    if value.startswith("/"):
        return Path(os.path.join(value, APP))
    if value.strip() or not home.is_absolute():
        return None
    return home / _LINUX_DEFAULTS[kind] / APP


def _tighten(path: Path, mode: int) -> None:
    """Drop group and other bits (best effort: a file another user owns keeps its mode)."""
    try:
        if path.stat().st_mode & 0o077:
            os.chmod(path, mode)
    except OSError:
        pass


def private_dir(path: Path, *, tighten: bool = False) -> Path:
    """``path`` as a folder; the folders it creates (``path`` and missing parents) are 0700.

    ``tighten`` also makes an existing ``path`` 0700: only for folders skillshelf owns (never a
    folder a person named, such as the parent of ``--db``)."""
    missing: list[Path] = []
    current = path
    while not current.is_dir() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            if not folder.is_dir():
                raise
    if tighten:
        _tighten(path, PRIVATE_DIR)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty (0600) when missing, or make an existing one 0600."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    os.close(os.open(path, flags, PRIVATE_FILE))
    _tighten(path, PRIVATE_FILE)
    return path


def open_private(path: Path, mode: str = "a") -> IO[str]:
    """Open ``path`` for text (``a`` append or ``w`` write), created 0600 (an existing file is made 0600)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_APPEND if mode == "a" else os.O_TRUNC
    fd = os.open(path, flags, PRIVATE_FILE)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    except OSError:
        pass
    return os.fdopen(fd, mode, encoding="utf-8")


def unwritable(folder: Path) -> Path | None:
    """None when ``folder`` is (or can be made) a folder this process can write in; otherwise
    the folder that stops it (set ``SKILLSHELF_CACHE_DIR`` or mend its permissions)."""
    try:
        private_dir(folder)
    except OSError:
        return folder
    return None if os.access(folder, os.W_OK | os.X_OK) else folder


def append_to_log(path: Path, line: str, *, max_bytes: int, wait: float) -> None:
    """Append ``line`` to the private log ``path``; past ``max_bytes`` the log first keeps only
    its newer half. Raises ``OSError`` (:class:`~skillshelf.fileio.FolderBusy` after ``wait``
    seconds).

    The halving and the append hold the log folder's lock, so a line another process appends
    meanwhile is never written to the file the halving replaces (the halved log replaces the
    old one in one step). Only writers that take the lock may share such a log: for a process's
    own error output, see :func:`open_output_log`."""
    private_dir(path.parent)
    with folder_lock(path.parent, wait=wait):
        if path.exists() and path.stat().st_size > max_bytes:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
            write_atomic(path, "".join(lines[len(lines) // 2 :]), prefix=f".{path.name}.")
        with open_private(path) as out:
            out.write(line)


def open_output_log(path: Path, *, max_bytes: int, wait: float) -> IO[str]:
    """Open the private log ``path`` for appending, as the output of a process that keeps it
    open and writes without the lock (a detached job's stderr). Past ``max_bytes`` the log is
    first renamed to ``<name>.1`` (replacing the older one), so a process still writing to it
    goes on writing to that file and nothing it writes is cut; at most two such files are kept.
    Raises ``OSError`` (:class:`~skillshelf.fileio.FolderBusy` after ``wait`` seconds)."""
    private_dir(path.parent)
    with folder_lock(path.parent, wait=wait):
        try:
            if path.stat().st_size > max_bytes:
                os.replace(path, path.with_name(f"{path.name}.1"))
        except FileNotFoundError:
            pass
        return open_private(path)
