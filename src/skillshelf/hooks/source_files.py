"""The source files a hook server runs: whether skillshelf's ``.py`` files are still the ones
it started with (an upgrade, a ``git pull`` or an edit: the server then declines and leaves).

Only ``.py`` files count: byte-code (``__pycache__``, written by the server's own first imports
on an install without it) and any other file (an editor's swap file) never do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.hooks.address import PACKAGE_DIR

__all__ = ["SourceFiles"]


@dataclass(slots=True)
class SourceFiles:
    """The package's folders with their modification times (ns) and ``.py`` names, and each
    ``.py`` file's modification time, at start. :meth:`changed` stats every folder and file
    (~350 ``stat`` calls, about a millisecond, before every hook call); only a folder whose time
    moved is listed again, its ``.py`` names compared (an added, removed or renamed source
    file), and its new time kept, so a later call does not list it again."""

    paths: tuple[str, ...]  # the ``.py`` files
    stamps: tuple[int, ...]
    folders: dict[str, int] = field(default_factory=dict)  # folder -> its time when last listed
    names: dict[str, frozenset[str]] = field(default_factory=dict)  # folder -> its ``.py`` names

    @classmethod
    def of(cls, package: Path = PACKAGE_DIR) -> SourceFiles:
        paths: list[str] = []
        folders: dict[str, int] = {}
        names: dict[str, frozenset[str]] = {}
        for folder, dirs, files in os.walk(package):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            folders[folder] = _mtime(folder)
            names[folder] = _py_names(files, dirs)
            paths += [os.path.join(folder, f) for f in files if f.endswith(".py")]
        return cls(tuple(paths), tuple(_mtime(p) for p in paths), folders, names)

    def changed(self) -> bool:
        """Whether a ``.py`` file was edited, added or removed (or a source folder added or
        removed) since :meth:`of`."""
        if any(_mtime(p) != stamp for p, stamp in zip(self.paths, self.stamps, strict=True)):
            return True
        for folder, stamp in self.folders.items():
            now = _mtime(folder)
            if now == stamp:
                continue
            listed = _listing(folder)
            if listed != self.names[folder]:
                return True
            self.folders[folder] = now  # byte-code or another file: not a source change
        return False


def _py_names(files: list[str], dirs: list[str]) -> frozenset[str]:
    """A folder's ``.py`` files and its sub-folders but ``__pycache__`` (a package added or
    removed; its files are watched from the next server on)."""
    return frozenset([f for f in files if f.endswith(".py")] + [d + "/" for d in dirs if d != "__pycache__"])


def _listing(folder: str) -> frozenset[str] | None:
    try:
        with os.scandir(folder) as entries:
            found = list(entries)
    except OSError:
        return None
    dirs = [e.name for e in found if e.is_dir()]
    return _py_names([e.name for e in found if e.name not in dirs], dirs)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1
