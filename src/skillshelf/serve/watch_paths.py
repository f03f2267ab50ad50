"""Which folders a watch of skill folders watches (:mod:`.watch`): the roots and the folders
below them that discovery's walk lists, and the nearest existing folder above each root that is
not there yet.

A root below a folder that cannot be searched (a parent made unreadable) cannot be looked at at
all: discovery takes it for missing, and so does :func:`pending_roots`, whose parent to watch
(:func:`pending_parents`) is then the folder that cannot be searched. That folder cannot be
watched or listed, and a root given to watch (``--root``) is kept among the folders to watch,
where it cannot be listed either: the watch looks at both again until they can be listed
(:func:`~skillshelf.serve.watch_checks.restart_when_listable`), as it does for a root that
cannot be read itself. No event tells when they can: the folder above them is not watched.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.skills.walk import ScanLimits, unlisted_name

if TYPE_CHECKING:
    from skillshelf.skills.model import Discovery

__all__ = [
    "DISCOVERY_LIMITS",
    "decodable",
    "is_folder",
    "pending_parents",
    "pending_roots",
    "scanned_roots",
    "watch_list",
    "watched_folders",
]

DISCOVERY_LIMITS = ScanLimits()
"""The limits a watch walks within unless told otherwise: discovery's (Codex's) own."""


def is_folder(path: Path) -> bool | None:
    """Whether ``path`` is a folder; None when that cannot be told: a folder above it cannot be
    searched (``Path.is_dir`` raises then, before Python 3.14; any other error it raises too)."""
    try:
        return path.is_dir()
    except PermissionError:
        return None


def watched_folders(discovery: Discovery | None, extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """Existing folders whose trees to watch: the discovery roots plus ``extra``, resolved, each
    once (a root inside another stays: the outer one's walk may not reach it, as a hidden
    ``.system`` root inside ``$CODEX_HOME/skills``), and those below a folder that cannot be
    searched (resolved as far as they can be)."""
    candidates = list(extra)
    if discovery is not None:
        candidates += [root.path for root in discovery.roots]
    out: set[Path] = set()
    for path in candidates:
        if is_folder(path) is not False:
            try:
                out.add(path.resolve())
            except (OSError, RuntimeError):  # a symlink loop made since the check
                continue
    return tuple(sorted(out, key=lambda p: (len(p.parts), p)))


def watch_list(tops: Iterable[Path], limits: ScanLimits = DISCOVERY_LIMITS) -> tuple[Path, ...]:
    """Every folder to watch (each on its own) for the trees of ``tops``: each top and the folders
    below it that discovery's walk lists, within ``limits`` per top."""
    out: dict[Path, None] = {}
    for top in tops:
        if decodable(top):
            out.update(dict.fromkeys(_walked(top, limits)))
    return tuple(out)


def decodable(path: Path) -> bool:
    """Whether ``path`` is valid UTF-8 (watchfiles cannot report changes in any other): no lone
    surrogate, which is how ``os.fsdecode`` keeps a byte that is not UTF-8."""
    return not any("\ud800" <= char <= "\udfff" for char in str(path))


def _walked(top: Path, limits: ScanLimits) -> list[Path]:
    """``top`` and its folders breadth-first as :func:`~skillshelf.skills.walk.walk_root` enters
    them: not hidden, not past ``max_depth``, symlinked ones followed once each, at most
    ``max_dirs`` folders and ``max_entries`` entries."""
    folders = [top]
    queue: deque[tuple[str, int, bool]] = deque([(str(top), 0, False)])
    seen, entries = {str(top)}, 0
    while queue:
        path, depth, via_link = queue.popleft()
        try:
            with os.scandir(path) as listing:
                found = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in found:
            entries += 1
            if entries > limits.max_entries:
                return folders
            if depth >= limits.max_depth or entry.name.startswith(".") or unlisted_name(entry.name):
                continue
            link = entry.is_symlink()
            if not _entry_is_folder(entry):
                continue
            identity = os.path.realpath(entry.path) if link or via_link else entry.path
            if identity in seen or len(folders) >= limits.max_dirs:
                continue
            seen.add(identity)
            folders.append(Path(entry.path))
            queue.append((entry.path, depth + 1, via_link or link))
    return folders


def _entry_is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def pending_roots(discovery: Discovery | None) -> tuple[Path, ...]:
    """Roots that were scanned but do not exist yet (``.agents/skills`` before the first skill),
    or cannot be told from missing ones (below a folder that cannot be searched)."""
    if discovery is None:
        return ()
    return tuple(scan.root.path for scan in discovery.scans if not is_folder(scan.root.path))


def scanned_roots(discovery: Discovery | None) -> tuple[Path, ...]:
    """Every root the scan looked at, whether it was there or not."""
    return () if discovery is None else tuple(scan.root.path for scan in discovery.scans)


def pending_parents(roots: Iterable[Path]) -> tuple[Path, ...]:
    """The nearest existing folder above each of ``roots``, to watch (not recursively) for it: past
    those that cannot be told from missing ones, so up to one that cannot be searched."""
    parents: set[Path] = set()
    for root in roots:
        folder = root.parent
        while not is_folder(folder) and folder.parent != folder:
            folder = folder.parent
        if is_folder(folder):
            try:
                parents.add(folder.resolve())
            except (OSError, RuntimeError):
                continue
    return tuple(sorted(parents))
