"""What the folder tools say when the file system refuses a path, in the model's terms.

A write to ``src/calc.py/test.py`` where ``src/calc.py`` is a file fails in ``mkdir`` with
``File exists`` (or ``Not a directory`` one level deeper), which names neither the file in the
way nor what to do: :func:`os_error_text` names the part of the path that is a file.
"""

from __future__ import annotations

import errno
from pathlib import Path

from skillshelf.errors import reason

__all__ = ["os_error_text"]


def os_error_text(exc: OSError, root: Path) -> str:
    """The error text for ``exc`` (raised on a path inside ``root``): a part of the path that is
    a file, not a folder, named relative to ``root``; else the reason and the path."""
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) and exc.filename:
        blocking = _file_on_path(Path(str(exc.filename)), root)
        if blocking is not None:
            shown = blocking.relative_to(root).as_posix()
            return (
                f"{shown!r} is a file, not a folder, so nothing can be created inside it; "
                "use another path, or move or remove that file first"
            )
    return f"{reason(exc)} ({exc.filename or ''})"


def _file_on_path(path: Path, root: Path) -> Path | None:
    """The first part of ``path`` below ``root`` that is not a folder but exists, if any."""
    if path != root and root not in path.parents:
        return None
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink() or not current.exists():
            return None
        if not current.is_dir():
            return current
    return None
