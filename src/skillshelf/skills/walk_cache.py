"""Reusing a root's walk: a listing is trusted again while no listed folder has changed.

A folder's change time (``st_ctime_ns``) moves whenever an entry is added, removed or renamed in
it, and on permission changes. So if every folder the walk listed still has the change time it
had when it was listed, the walk would find the same files; only the files' own sizes and times
(modification and change) need a fresh look (they key the parsed-skill cache). Walks that saw a
broken symlink (its target may appear without any listed folder changing) or folders changed in
the last two seconds (too close to trust a timestamp) are not kept.
"""

from __future__ import annotations

import os
import time
from typing import Any

from skillshelf.skills.cache import _diag_from, _diag_json
from skillshelf.skills.walk import FoundFile, WalkResult, found_file

__all__ = ["restore_walk", "snapshot_walk"]

_RACY_NS = 2_000_000_000


def snapshot_walk(walk: WalkResult) -> dict[str, Any] | None:
    """What to store for ``walk``, or ``None`` when it must not be reused."""
    if not walk.dir_stamps or any(d.code == "SK205" for d in walk.diagnostics):
        return None
    newest = max(stamp for _, stamp in walk.dir_stamps)
    if newest > time.time_ns() - _RACY_NS:
        return None
    return {
        "dirs": walk.dir_stamps,
        "files": [[f.path, f.canonical, f.has_agents] for f in walk.files],
        "counts": [
            walk.dirs_visited,
            walk.entries_seen,
            walk.truncated,
            walk.limit,
            walk.unvisited_dirs,
            walk.depth_pruned,
            walk.stopped_in,
            walk.has_plugin_markers,
        ],
        "plain": sorted(walk.plain_dirs),
        "diags": [_diag_json(d) for d in walk.diagnostics],
    }


def _unchanged(dirs: list[list[Any]]) -> bool:
    stat = os.stat
    try:
        return all(stat(path).st_ctime_ns == stamp for path, stamp in dirs)
    except (OSError, TypeError, ValueError):
        return False


def restore_walk(data: Any) -> WalkResult | None:
    """The stored walk if every listed folder is unchanged (with fresh file stats), else ``None``."""
    try:
        if not _unchanged(data["dirs"]):
            return None
        files: list[FoundFile] = []
        lstat = os.lstat
        for path, canonical, has_agents in data["files"]:
            files.append(found_file(path, canonical, has_agents is True, lstat(path)))
        visited, entries, truncated, limit, unvisited, pruned, stopped, markers = data["counts"]
        diags = [_diag_from(r) for r in data["diags"]]
    except (OSError, KeyError, TypeError, ValueError):
        return None
    return WalkResult(
        files=files,
        dirs_visited=visited,
        entries_seen=entries,
        truncated=truncated,
        limit=limit,
        unvisited_dirs=unvisited,
        depth_pruned=pruned,
        stopped_in=stopped,
        has_plugin_markers=markers,
        plain_dirs=set(data["plain"]),
        diagnostics=diags,
    )
