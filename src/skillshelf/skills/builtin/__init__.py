"""skillshelf's own skills (``writing-skills``, ``using-skillshelf``), shipped in the package.

:func:`ensure_builtin_skills` copies them into ``<user data dir>/builtin-skills`` with a marker
holding a content fingerprint, so they are rewritten only when the packaged files change (like
Codex's ``.codex-system-skills.marker``). The swap is atomic: a new copy is written beside the old
one and renamed into place. If the data folder cannot be written, the packaged folder is used
directly. Opening a :class:`~skillshelf.workspace.Workspace` installs them; discovery itself only
reads: :func:`current_builtin_dir` is the installed copy when it is current, else the package's.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

__all__ = [
    "BUILTIN_DIR_NAME",
    "MARKER",
    "builtin_fingerprint",
    "current_builtin_dir",
    "ensure_builtin_skills",
    "packaged_skills_dir",
]

BUILTIN_DIR_NAME = "builtin-skills"
MARKER = ".skillshelf-builtin.marker"


def packaged_skills_dir() -> Path:
    """The folder of built-in skills inside the installed package."""
    return Path(__file__).resolve().parent / "data"


def _files(source: Path) -> list[Path]:
    return sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def builtin_fingerprint(source: Path | None = None) -> str:
    """A SHA-256 over every packaged file's relative path and contents."""
    source = source or packaged_skills_dir()
    digest = hashlib.sha256(b"skillshelf-builtin-v1\0")
    for path in _files(source):
        digest.update(path.relative_to(source).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _current(root: Path) -> str | None:
    try:
        return (root / MARKER).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _install(source: Path, root: Path, fingerprint: str) -> None:
    import shutil  # only when installing: a warm start never copies
    import tempfile

    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{BUILTIN_DIR_NAME}.new-", dir=root.parent))
    try:
        for path in _files(source):
            target = staging / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        (staging / MARKER).write_text(fingerprint + "\n", encoding="utf-8")
        old = None
        if root.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{BUILTIN_DIR_NAME}.old-", dir=root.parent))
            os.replace(root, old / "skills")
        try:
            os.replace(staging, root)
        except OSError:
            if _current(root) != fingerprint:  # not a concurrent install of the same content
                raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def current_builtin_dir(data_dir: Path) -> Path:
    """Where the built-in skills are read from, writing nothing: the copy in ``data_dir`` when it
    holds the packaged files, else the packaged folder itself."""
    root = data_dir / BUILTIN_DIR_NAME
    return root if _current(root) == builtin_fingerprint() else packaged_skills_dir()


def ensure_builtin_skills(data_dir: Path) -> Path:
    """Install the built-in skills into ``data_dir`` if missing or changed; return the folder
    that holds them."""
    source = packaged_skills_dir()
    root = data_dir / BUILTIN_DIR_NAME
    fingerprint = builtin_fingerprint(source)
    if _current(root) == fingerprint:
        return root
    try:
        _install(source, root, fingerprint)
    except OSError:
        with contextlib.suppress(OSError):
            if _current(root) == fingerprint:
                return root
        return source
    return root
