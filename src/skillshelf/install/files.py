"""File-system steps of an install: the work folder, copying a skill, the atomic swap.

Everything is staged in ``<parent of the skills root>/.skillshelf-tmp/`` (same file system, so
``os.rename`` is atomic) and moved into place in one rename: a reader of the skills root sees
either the old skill, or the new one, never half of one. Installs into one root are
serialised with an advisory lock on the root folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from skillshelf.errors import InstallError

__all__ = ["TMP_DIR_NAME", "check_skill_tree", "copy_skill_tree", "root_lock", "swap_into_place", "workspace"]

TMP_DIR_NAME = ".skillshelf-tmp"
MAX_TREE_BYTES = 200 * 1024 * 1024
MAX_TREE_FILES = 10_000
_SKIPPED = frozenset({".git"})
_UNSAFE_HINT = "keep every file of the skill inside its folder (copy shared files in instead of linking them)"


@contextlib.contextmanager
def root_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on the skills root while installing / removing."""
    root.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: no cross-process lock, the atomic renames still hold
        yield
        return
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextlib.contextmanager
def workspace(root: Path) -> Iterator[Path]:
    """A fresh work folder beside ``root`` (call while holding :func:`root_lock`); always removed.

    Leftovers of an install that was killed are removed first: with the lock held, no other
    install can be using them.
    """
    parent = root.parent / TMP_DIR_NAME
    if parent.is_dir():
        for stale in parent.iterdir():
            _remove(stale)
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="install-", dir=parent))
    try:
        yield work
    finally:
        _remove(work)
        with contextlib.suppress(OSError):
            parent.rmdir()


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _check_link(link: Path, src_root: Path) -> str:
    target = os.readlink(link)
    real_root = src_root.resolve()
    try:
        resolved = link.resolve()
    except (OSError, RuntimeError):
        raise InstallError(f"{link}: symlink loop", hint=_UNSAFE_HINT, code="IS302") from None
    if resolved != real_root and real_root not in resolved.parents:
        raise InstallError(
            f"{link}: symlink to {target!r} leaves the skill folder; nothing was installed",
            hint=_UNSAFE_HINT,
            code="IS302",
        )
    if os.path.isabs(target):
        return os.path.relpath(resolved, link.parent.resolve())
    return target


def _plan(src: Path, rel: Path, plan: list[tuple[Path, str, str | None]], src_root: Path) -> None:
    for entry in sorted(os.scandir(src), key=lambda e: e.name):
        if entry.name in _SKIPPED:
            continue
        path = Path(entry.path)
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            plan.append((rel / entry.name, "link", _check_link(path, src_root)))
        elif stat.S_ISDIR(mode):
            plan.append((rel / entry.name, "dir", None))
            _plan(path, rel / entry.name, plan, src_root)
        elif stat.S_ISREG(mode):
            plan.append((rel / entry.name, "file", None))
        else:
            raise InstallError(
                f"{path}: device file, FIFO or socket in the skill folder; nothing was installed",
                hint="a skill holds only regular files, folders and symlinks inside itself",
                code="IS303",
            )


def check_skill_tree(src: Path) -> list[tuple[Path, str, str | None]]:
    """Walk ``src`` and refuse what cannot be installed; return the copy plan.

    Refused: symlinks leaving the folder (or looping), device files, FIFOs, sockets, more
    than the file or byte caps. Nothing is opened, so a FIFO cannot block the walk.
    """
    plan: list[tuple[Path, str, str | None]] = []
    _plan(src, Path(), plan, src)
    files = [rel for rel, kind, _ in plan if kind == "file"]
    total = sum((src / rel).stat().st_size for rel in files)
    if len(files) > MAX_TREE_FILES or total > MAX_TREE_BYTES:
        raise InstallError(
            f"{src}: {len(files)} files, {total} bytes: over the limit of {MAX_TREE_FILES} files / {MAX_TREE_BYTES} bytes",
            hint="point at the skill's own folder (use #subdir for a folder inside a repository)",
            code="IS304",
        )
    return plan


def copy_skill_tree(
    src: Path, dest: Path, *, copy_file: Callable[[Path, Path], object] = shutil.copy2
) -> int:
    """Copy the skill folder ``src`` to the new folder ``dest``; return the number of files.

    Every entry is checked first (symlinks must stay inside, no device files, size caps), so
    a refused skill writes nothing. ``.git`` is left out.
    """
    plan = check_skill_tree(src)
    dest.mkdir(parents=True, exist_ok=False)
    for rel, kind, link in plan:
        if kind == "dir":
            (dest / rel).mkdir()
        elif kind == "link":
            (dest / rel).symlink_to(link or "")
        else:
            copy_file(src / rel, dest / rel)
    return sum(1 for _, kind, _ in plan if kind == "file")


def swap_into_place(
    staged: Path, target: Path, trash: Path, *, replace: bool, then: Callable[[], object]
) -> None:
    """Rename ``staged`` to ``target`` (moving an old ``target`` to ``trash``), then run ``then``.

    If ``then`` (writing the lock) fails, the old state is restored: the new folder goes back
    to ``staged`` and the old one back to ``target``.
    """
    had_old = target.exists() or target.is_symlink()
    if had_old and not replace:
        raise InstallError(f"{target} already exists", hint="pass --force to replace it", code="IS305")
    if had_old:
        os.rename(target, trash)
    try:
        os.rename(staged, target)
    except OSError as exc:
        if had_old:
            os.rename(trash, target)
        raise InstallError(
            f"cannot move the skill into {target}: {exc}", hint="check the folder's permissions", code="IS306"
        ) from exc
    try:
        then()
    except BaseException:
        os.rename(target, staged)
        if had_old:
            os.rename(trash, target)
        raise
