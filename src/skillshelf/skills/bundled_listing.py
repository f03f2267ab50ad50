"""The files a skill bundles, as ``load_skill`` lists them: walked, capped, the rest counted.

The walk (:func:`bundled_listing`) visits ``scripts/``, ``references/`` and ``assets/`` first,
skips hidden names, version-control and cache folders, nested skills and symlinks that leave the
skill folder, and is cycle-safe. Within :data:`MAX_WALK_ENTRIES` folder entries each file is
checked as a confined read would (:func:`~skillshelf.skills.bundled.listable`) and can be named;
a file named is also one this process may open (a read refuses the others, ``SV405``), an
``access`` call for each file named and none for those only counted, and one a read with the
given cap serves (:func:`~skillshelf.skills.bundled_kind.fits_a_read`: a binary file over the cap is
refused, ``SV413``, so it is not named; the start of each file over the cap is read to judge
it). Past the cap on names and past those entries files are counted (past the entries by name
and type only: a read may refuse a few of those, a hard link, a link out of the folder, an
unreadable file, a binary file over the cap), up to
:data:`MAX_COUNT_ENTRIES` entries in all, where the walk stops and the count of the rest is a
lower bound, said "at least N". A count is never below what the folder holds within that bound.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from skillshelf.skills.bundled import DEFAULT_MAX_FILE_BYTES, listable, listable_name
from skillshelf.skills.bundled_kind import fits_a_read

__all__ = [
    "DEFAULT_MAX_FILES",
    "MAX_COUNT_ENTRIES",
    "MAX_WALK_ENTRIES",
    "BundledFiles",
    "bundled_listing",
    "list_bundled_files",
]

DEFAULT_MAX_FILES = 50
MAX_WALK_ENTRIES = 5000
"""Folder entries the listing walk checks as a read would (each file: inside the folder, served)."""
MAX_COUNT_ENTRIES = 100_000
"""Folder entries the walk looks at in all: past :data:`MAX_WALK_ENTRIES` it counts files by name
only, and past this it stops, the count then a lower bound ("at least N")."""
_GROUP_ORDER = ("scripts/", "references/", "assets/")
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".mypy_cache"})


def _group(relative: str) -> tuple[int, str]:
    for rank, prefix in enumerate(_GROUP_ORDER):
        if relative.startswith(prefix):
            return rank, relative
    return len(_GROUP_ORDER), relative


@dataclass(frozen=True, slots=True, kw_only=True)
class _Walk:
    checked: tuple[str, ...]  # files within MAX_WALK_ENTRIES entries, each inside the folder
    plain: frozenset[str]  # those of them no symlink leads to: regular files with a single link
    counted: int  # files past them, counted by name only
    complete: bool  # False: MAX_COUNT_ENTRIES entries stopped the walk


def _walk_files(folder: Path) -> _Walk:
    """Every regular file below ``folder`` (relative, POSIX), skipping hidden names, VCS and cache
    folders, nested skills and symlinks that lead out of ``folder`` (to a folder or a file);
    cycle-safe. Files within the first :data:`MAX_WALK_ENTRIES` entries are named; past them
    files are only counted (by name and type, no check of where a link leads), up to
    :data:`MAX_COUNT_ENTRIES` entries in all.
    ``scripts/``, ``references/`` and ``assets/`` are walked first, so a big data folder beside
    them cannot use up the bound before the files a skill points to are found."""
    found: list[str] = []
    plain: set[str] = set()
    counted = 0
    seen: set[str] = set()
    queue: deque[tuple[Path, str]] = deque([(folder, "")])
    base = os.path.realpath(folder)
    looked = 0
    while queue:
        current, prefix = queue.popleft()
        entries, straight = _entries(current, prefix, base, seen)
        for entry in entries:
            looked += 1
            if looked > MAX_COUNT_ENTRIES:
                return _Walk(checked=tuple(found), plain=frozenset(plain), counted=counted, complete=False)
            if entry.name.startswith("."):
                continue
            relative = f"{prefix}{entry.name}"
            try:
                if entry.is_dir():
                    if entry.name not in _SKIPPED_DIRS and not (Path(entry.path) / "SKILL.md").is_file():
                        queue.append((Path(entry.path), relative + "/"))
                elif not entry.is_file() or relative == "SKILL.md":
                    continue
                elif looked > MAX_WALK_ENTRIES:
                    counted += 1
                elif _inside(entry, base):
                    found.append(relative)
                    if straight and _single_regular(entry):
                        plain.add(relative)
            except OSError:
                continue
    return _Walk(checked=tuple(found), plain=frozenset(plain), counted=counted, complete=True)


def _single_regular(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is itself a regular file with one link (no symlink, no hard link)."""
    info = entry.stat(follow_symlinks=False)
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1


def _entries(current: Path, prefix: str, base: str, seen: set[str]) -> tuple[list[os.DirEntry[str]], bool]:
    """The entries of ``current`` in listing order, none when it was seen (a cycle), leads out of
    ``base`` or cannot be listed; and whether ``current`` is where its relative path says (no
    symlink on the way from ``base``)."""
    try:
        real = os.path.realpath(current)
        if real in seen or (real != base and not real.startswith(base + os.sep)):
            return [], False  # a cycle, or a symlink that leaves the skill folder
        seen.add(real)
        straight = real == os.path.normpath(os.path.join(base, prefix))
        with os.scandir(current) as iterator:
            return sorted(iterator, key=lambda e: _group(f"{prefix}{e.name}/")), straight
    except OSError:
        return [], False


def _inside(entry: os.DirEntry[str], base: str) -> bool:
    """Whether a file entry is in the skill folder ``base`` (real path): a symlink to a file
    elsewhere (``references/x.md -> /etc/passwd``) is not the skill's to list."""
    if not entry.is_symlink():
        return True
    real = os.path.realpath(entry.path)
    return real.startswith(base + os.sep)


def list_bundled_files(
    folder: Path, *, limit: int = DEFAULT_MAX_FILES, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> tuple[tuple[str, ...], int]:
    """The files a skill bundles, ``scripts/`` then ``references/`` then ``assets/`` then the
    rest, each sorted; at most ``limit`` of them plus the count of those left out. Only the
    files a confined read serves (:func:`~skillshelf.skills.bundled.listable`, and readable by
    this process: an ``access`` check for each file named, none for those counted; and, for a
    file over ``max_file_bytes``, text: a read with that cap refuses a binary one), so every
    listing (``load_skill``, ``skillshelf load``, the MCP resources) names what a read gives.
    Reads only the start of a file named that is over the cap.
    :func:`bundled_listing` tells whether the count is a lower bound."""
    listing = bundled_listing(folder, limit=limit, max_file_bytes=max_file_bytes)
    return listing.files, listing.more


@dataclass(frozen=True, slots=True, kw_only=True)
class BundledFiles:
    """At most ``limit`` bundled files and ``more``, the count of the rest: those a read serves
    within :data:`MAX_WALK_ENTRIES` folder entries plus those past them counted by name (a read
    may refuse a few of those); ``more_at_least`` when :data:`MAX_COUNT_ENTRIES` entries stopped
    the count, ``more`` then a lower bound ("at least N")."""

    files: tuple[str, ...]
    more: int
    more_at_least: bool = False


def bundled_listing(
    folder: Path, *, limit: int = DEFAULT_MAX_FILES, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> BundledFiles:
    """:func:`list_bundled_files` with whether its count of the rest is a lower bound."""
    walk = _walk_files(folder)
    served = (f for f in walk.checked if (listable_name(f) if f in walk.plain else listable(folder, f)))
    candidates = sorted(served, key=_group)
    limit = max(0, limit)
    files: list[str] = []
    rest = 0
    for index, relative in enumerate(candidates):
        if len(files) == limit:
            rest = len(candidates) - index
            break
        if _readable(folder, relative) and fits_a_read(folder, relative, max_bytes=max_file_bytes):
            files.append(relative)
    more = rest + walk.counted
    return BundledFiles(files=tuple(files), more=more, more_at_least=not walk.complete)


def _readable(folder: Path, relative: str) -> bool:
    """Whether this process may open ``relative`` for reading (a read of a file without the
    permission is refused, ``SV405``): one ``access`` call, made only for a file to be listed."""
    return os.access(os.path.join(folder, relative), os.R_OK)
