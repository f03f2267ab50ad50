"""Keeping what a forced install, update or remove would otherwise delete.

``install --force``, ``update --force`` and ``remove --force`` replace or take away a skill
folder. When that folder holds work skillshelf cannot fetch again (it was changed by hand
since it was installed, or skillshelf never installed it), it is moved to
``<user data folder>/replaced-skills/<name>-<UTC time>`` instead of being deleted, and the
result names that folder. The user deletes it when done; nothing here ever does.

On the same file system the move is a rename and doubles as the swap's trash (a failed swap
moves it straight back). Across file systems the folder is copied there first, symlinks as
symlinks, and the copy is dropped again if the change then fails.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import InstallError
from skillshelf.install.files import remove_tree
from skillshelf.install.lock import LockEntry
from skillshelf.install.provenance import locally_modified

__all__ = ["SetAside", "kept_root", "needs_keeping", "set_aside"]


def kept_root(env: Env) -> Path:
    """The folder kept copies go to: ``replaced-skills`` in the user data folder."""
    return env.dirs.data / "replaced-skills"


def needs_keeping(folder: Path, entry: LockEntry | None) -> bool:
    """Whether ``folder`` exists and is not the unchanged copy its lock ``entry`` records (no
    entry: skillshelf did not install it, so it is someone's own work)."""
    if folder.is_symlink():
        return True
    if not folder.exists():
        return False
    if entry is None:
        return True
    try:
        return locally_modified(folder, entry)
    except OSError:
        return True  # a part cannot be read: keep it rather than judge it unchanged


@dataclass(frozen=True, slots=True)
class SetAside:
    """Where the folder a change replaces goes: ``trash`` for the swap, and ``kept`` (None
    when nothing is kept) for the user; ``copied``: ``kept`` is a copy made across file
    systems. Call :meth:`drop_copy` when the change fails."""

    trash: Path
    kept: Path | None
    copied: bool

    @property
    def trash_is_kept(self) -> bool:
        """True when the swap's trash is the kept folder itself (it must not be deleted)."""
        return self.kept is not None and self.trash == self.kept

    def drop_copy(self) -> None:
        """Remove a copy made across file systems (the change failed, the original stays)."""
        if self.copied and self.kept is not None:
            remove_tree(self.kept)


def set_aside(folder: Path, name: str, kept_root: Path, trash: Path, *, keep: bool) -> SetAside:
    """Plan where ``folder`` goes when a change replaces or removes it.

    ``keep`` False: into ``trash`` (deleted with the change's work folder). ``keep`` True: a
    fresh folder under ``kept_root``, reached by rename when it is on the same file system;
    otherwise copied there now.

    Raises:
        InstallError: (IS309) the copy cannot be kept; nothing was changed.
    """
    if not keep:
        return SetAside(trash, None, copied=False)
    try:
        kept_root.mkdir(parents=True, exist_ok=True, mode=0o700)
        kept = _fresh(kept_root, name)
        if _same_device(folder.parent, kept_root):
            return SetAside(kept, kept, copied=False)
        _copy(folder, kept)
    except (OSError, RecursionError) as exc:
        raise InstallError(
            f"cannot keep a copy of {folder} in {kept_root} ({exc}); nothing was changed",
            hint=f"move {folder} elsewhere yourself, then run the command again",
            code="IS309",
        ) from exc
    return SetAside(trash, kept, copied=True)


def _fresh(root: Path, name: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    candidate = root / f"{name}-{stamp}"
    n = 1
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = root / f"{name}-{stamp}-{n}"
    return candidate


def _same_device(a: Path, b: Path) -> bool:
    return os.stat(a).st_dev == os.stat(b).st_dev


def _copy(folder: Path, kept: Path) -> None:
    try:
        if folder.is_symlink():
            os.symlink(os.readlink(folder), kept)
        elif folder.is_dir():
            shutil.copytree(folder, kept, symlinks=True)
        else:
            shutil.copy2(folder, kept, follow_symlinks=False)
    except BaseException:
        remove_tree(kept)
        raise
