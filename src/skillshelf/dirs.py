"""skillshelf's own user folders, from platformdirs (so ``XDG_*`` variables move them), and
private state: :func:`private_dir`, :func:`private_file` and :func:`open_private` make what
holds a person's sessions (the memory database, memory folders, transcripts, usage log)
readable by its owner only: files 0600 in folders 0700."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO

__all__ = [
    "open_private",
    "private_dir",
    "private_file",
    "user_cache_dir",
    "user_config_dir",
    "user_data_dir",
    "user_state_dir",
]

APP = "skillshelf"
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def _override(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _xdg(name: str) -> Path | None:
    """``$XDG_*/skillshelf`` on Linux when the variable is an absolute path, as platformdirs gives it.

    platformdirs (and the ``tempfile``/``shutil`` it imports) costs several milliseconds of a
    warm run; its Unix class returns exactly this when the variable is absolute. Anything
    else (unset or relative variable, another platform, Android) goes through platformdirs.
    """
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ:
        return None
    value = os.environ.get(name, "")
    return Path(os.path.join(value, APP)) if value.startswith("/") else None


def _user_dir(kind: str) -> Path:
    """``SKILLSHELF_<KIND>_DIR``, else ``$XDG_<KIND>_HOME/skillshelf``, else platformdirs' ``user_<kind>_dir``."""
    found = _override(f"SKILLSHELF_{kind.upper()}_DIR") or _xdg(f"XDG_{kind.upper()}_HOME")
    if found is not None:
        return found
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))


def user_cache_dir() -> Path:
    """Parsed-skill cache, search index. ``SKILLSHELF_CACHE_DIR`` overrides."""
    return _user_dir("cache")


def user_data_dir() -> Path:
    """Built-in skills, installed skills, memory database. ``SKILLSHELF_DATA_DIR`` overrides."""
    return _user_dir("data")


def user_config_dir() -> Path:
    """The user config layer (``config.toml``). ``SKILLSHELF_CONFIG_DIR`` overrides."""
    return _user_dir("config")


def user_state_dir() -> Path:
    """Agent transcripts, usage statistics. ``SKILLSHELF_STATE_DIR`` overrides."""
    return _user_dir("state")


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
