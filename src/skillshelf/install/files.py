"""File-system steps of an install: the work folder, copying a skill, the atomic swap, the
content hash a lock records.

Everything is staged in ``<parent of the skills root>/.skillshelf-tmp/`` (same file system, so
``os.rename`` is atomic) and moved into place in one rename: a reader of the skills root sees
either the old skill, or the new one, never half of one. Installs into one root are
serialised with an advisory lock on the root folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from skillshelf.errors import InstallError
from skillshelf.fileio import folder_lock, resolve_path

__all__ = [
    "TMP_DIR_NAME",
    "check_skill_tree",
    "content_hash",
    "copy_skill_tree",
    "io_failure",
    "remove_tree",
    "root_lock",
    "sorted_listing",
    "swap_into_place",
    "workspace",
]

TMP_DIR_NAME = ".skillshelf-tmp"
MAX_TREE_BYTES = 200 * 1024 * 1024
MAX_TREE_FILES = 10_000
_GIT = ".git"
_SKIPPED = frozenset({_GIT})
#: Left out of a skill's content hash (what ``install`` does not copy, and system clutter).
_IGNORED_NAMES = frozenset({_GIT, "__pycache__", ".DS_Store"})
_UNSAFE_HINT = "keep every file of the skill inside its folder (copy shared files in instead of linking them)"


@contextlib.contextmanager
def root_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on the skills root while installing / removing (waits for
    another install into the same root to end)."""
    with folder_lock(root):
        yield


@contextlib.contextmanager
def workspace(root: Path) -> Iterator[Path]:
    """A fresh work folder beside ``root`` (call while holding :func:`root_lock`); always removed.

    Leftovers of an install that was killed are removed first: with the lock held, no other
    install can be using them. A leftover that cannot be removed is left alone: the new work
    folder has its own name, so it never blocks an install.
    """
    parent = _work_parent(root)
    _clear_stale(parent)
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="install-", dir=parent))
    try:
        yield work
    finally:
        remove_tree(work)
        with contextlib.suppress(OSError):
            parent.rmdir()


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def _work_parent(root: Path) -> Path:
    """``<parent of root>/.skillshelf-tmp``, never through a symlink.

    A project can commit a symlink of that name (to any folder of the user's); clearing
    leftovers through it would delete what it points to. Such a link is removed, never what it
    points to; any other entry of that name that is not a folder is refused.
    """
    parent = root.parent / TMP_DIR_NAME
    try:
        mode = os.lstat(parent).st_mode
    except OSError:
        return parent
    if stat.S_ISLNK(mode):
        try:
            os.unlink(parent)
        except OSError as exc:
            raise InstallError(
                f"{parent} is a symlink, not the work folder, and cannot be removed: {exc}; "
                "nothing was changed",
                hint=f"delete the symlink {parent} (never what it points to), then try again",
                code="IS313",
            ) from exc
    elif not stat.S_ISDIR(mode):
        raise InstallError(
            f"{parent} is not a folder; nothing was changed",
            hint=f"move {parent} away (skillshelf keeps its work folder under that name), then try again",
            code="IS313",
        )
    return parent


def _clear_stale(parent: Path) -> None:
    """Remove the leftovers in the work folder ``parent``: opened without following a symlink,
    each entry removed through that open folder (links removed, never followed)."""
    try:
        folder = os.open(parent, _DIR_FLAGS)
    except OSError:
        return
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries]
        for name in names:
            _remove_entry(folder, name)
    except OSError:
        pass
    finally:
        os.close(folder)


def remove_tree(path: Path) -> None:
    """Delete ``path`` (file, symlink or folder tree) as far as possible; never raises ``OSError``.

    ``shutil.rmtree`` recurses once per folder level (before Python 3.13), so a tree 1,100
    folders deep ends in ``RecursionError``. This walk keeps one open folder at a time and
    climbs back through ``..``, checking that each parent is still the folder it came from
    (device and inode), so a folder moved away during the walk stops it instead of leading
    it elsewhere. Symlinks are removed, never followed. What cannot be removed is left.
    """
    try:
        top = os.open(path.parent, _DIR_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    try:
        _remove_entry(top, path.name)
    finally:
        os.close(top)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _remove_entry(top: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=top)
        return
    except OSError:
        pass
    try:
        current = os.open(name, _DIR_FLAGS, dir_fd=top)
    except OSError:
        return
    names, parents = [name], [_identity(top)]
    stuck: set[tuple[int, int]] = set()  # folders that could not be removed: not entered again
    while True:
        child = _clear_files(current, stuck)
        if child is not None:
            try:
                below = os.open(child, _DIR_FLAGS, dir_fd=current)
            except OSError:
                stuck.add(_lstat_identity(current, child))
                continue
            parents.append(_identity(current))
            names.append(child)
            os.close(current)
            current = below
            continue
        cleared = _identity(current)
        up = os.open("..", os.O_RDONLY, dir_fd=current) if len(names) > 1 else os.dup(top)
        os.close(current)
        if _identity(up) != parents.pop():
            os.close(up)  # moved during the walk: stop rather than follow it
            return
        try:
            os.rmdir(names.pop(), dir_fd=up)
        except OSError:
            stuck.add(cleared)
        if not names:
            os.close(up)
            return
        current = up


def _clear_files(folder: int, stuck: set[tuple[int, int]]) -> str | None:
    """Unlink every non-folder in ``folder``; return a sub-folder still to clear, or None."""
    child = None
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    os.unlink(entry.name, dir_fd=folder)
                elif child is None and _lstat_identity(folder, entry.name) not in stuck:
                    child = entry.name
            except OSError:
                continue
    return child


def _lstat_identity(folder: int, name: str) -> tuple[int, int]:
    info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    return info.st_dev, info.st_ino


def _check_link(link: Path, src_root: Path) -> str:
    target = os.readlink(link)
    real_root = src_root.resolve()
    try:
        resolved = resolve_path(link)
    except OSError:
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


def _plan(src_root: Path) -> list[tuple[Path, str, str | None]]:
    """Every entry below ``src_root`` as (relative path, kind, link target), depth first by name.

    A stack of listings instead of recursion: a tree thousands of folders deep (a git
    repository can hold one) cannot overflow Python's stack.
    """
    plan: list[tuple[Path, str, str | None]] = []
    stack = [(sorted_listing(src_root, _SKIPPED), Path())]
    while stack:
        entries, rel = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        path = Path(entry.path)
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            plan.append((rel / entry.name, "link", _check_link(path, src_root)))
        elif stat.S_ISDIR(mode):
            plan.append((rel / entry.name, "dir", None))
            stack.append((sorted_listing(path, _SKIPPED), rel / entry.name))
        elif stat.S_ISREG(mode):
            plan.append((rel / entry.name, "file", None))
        else:
            raise InstallError(
                f"{path}: device file, FIFO or socket in the skill folder; nothing was installed",
                hint="a skill holds only regular files, folders and symlinks inside itself",
                code="IS303",
            )
    return plan


def sorted_listing(folder: Path, skip: frozenset[str]) -> Iterator[os.DirEntry[str]]:
    """The entries of ``folder`` by name, without the names in ``skip`` (the folder is closed)."""
    with os.scandir(folder) as found:
        return iter(sorted((e for e in found if e.name not in skip), key=lambda e: e.name))


def check_skill_tree(src: Path) -> list[tuple[Path, str, str | None]]:
    """Walk ``src`` and refuse what cannot be installed; return the copy plan.

    Refused: symlinks leaving the folder (or looping), device files, FIFOs, sockets, more
    than the file or byte caps. Nothing is opened, so a FIFO cannot block the walk.
    """
    plan = _plan(src)
    files = [rel for rel, kind, _ in plan if kind == "file"]
    total = sum((src / rel).stat().st_size for rel in files)
    if len(files) > MAX_TREE_FILES or total > MAX_TREE_BYTES:
        raise InstallError(
            f"{src}: {len(files)} files, {total} bytes: over the limit of {MAX_TREE_FILES} files / "
            f"{MAX_TREE_BYTES} bytes",
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


def _walk(folder: Path, *, with_git: bool = False) -> Iterator[tuple[str, Path]]:
    """Every non-folder entry and empty folder (its path ending in ``/``) below ``folder`` as
    (relative path, path), depth first by name; with ``with_git``, each ``.git`` too (unentered).

    A stack of sorted listings instead of recursion, so a tree thousands of folders deep
    cannot overflow Python's stack; the order (and so every stored hash) is what the
    recursive walk gave.
    """
    skip = _IGNORED_NAMES - {_GIT} if with_git else _IGNORED_NAMES
    stack: list[tuple[Iterator[os.DirEntry[str]], str]] = [(sorted_listing(folder, skip), "")]
    while stack:
        entries, rel = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
        elif entry.is_dir(follow_symlinks=False) and entry.name != _GIT:
            listing = list(sorted_listing(Path(entry.path), skip))
            if not listing:
                yield f"{rel}{entry.name}/", Path(entry.path)
            stack.append((iter(listing), f"{rel}{entry.name}/"))
        else:
            yield f"{rel}{entry.name}", Path(entry.path)


def content_hash(folder: Path, *, with_git: bool = False, folders: bool = True) -> str:
    """``sha256:<hex>`` over every file's relative path, kind, executable bit and bytes, and
    with ``folders`` (what lock entries record now) each empty folder's relative path: a
    folder made by hand is a change even while empty. Paths count by their bytes.

    Symlinks count by their target text, not what they point to; ``.git`` is left out, as
    ``install`` leaves it out of the copy. ``with_git`` (for an installed folder, which
    ``install`` never gives a ``.git``): each ``.git`` file or folder counts by its place
    alone, so a repository made in the folder is a change while the hash of a folder without
    one stays what ``install`` recorded, and the repository's own files are not read.
    """
    digest = hashlib.sha256()
    for rel, path in _walk(folder, with_git=with_git):
        name = os.fsencode(rel)
        if path.name == _GIT or rel.endswith("/"):
            if folders or not rel.endswith("/"):
                digest.update((b"D " if rel.endswith("/") else b"G ") + name + b"\n")
            continue
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            digest.update(b"L " + name + b"\0" + os.fsencode(os.readlink(path)) + b"\n")
        elif not stat.S_ISREG(info.st_mode):
            digest.update(b"O " + name + b"\0" + str(stat.S_IFMT(info.st_mode)).encode() + b"\n")
        else:
            file_digest = hashlib.sha256()
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 16):
                    file_digest.update(chunk)
            mode = b"x" if info.st_mode & 0o100 else b"f"
            digest.update(b"F " + name + b"\0" + mode + file_digest.hexdigest().encode() + b"\n")
    return f"sha256:{digest.hexdigest()}"


def io_failure(root: Path, exc: OSError) -> InstallError:
    """An I/O error during install/update/remove, as an error with a hint (nothing was changed)."""
    return InstallError(
        f"cannot complete the change in {root}: {exc}; nothing was changed",
        hint="check free disk space and the permissions of the source and of the skills folder",
        code="IS307",
    )
