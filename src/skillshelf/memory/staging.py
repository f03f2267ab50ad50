"""The temporary folders a consolidator works in (:class:`~.consolidator.StagedFolder`): named
after the process that made them, and removed once that process is gone.

A run killed during Phase 2 (``kill -9``, out of memory) cannot remove its staged copy of the
memory folder, which holds the raw memories and the rollout summaries (redacted, 0700). Each
copy is named ``skillshelf-consolidate-<host>-<pid>-<start>-…``: a short hash of the host name,
the process id and a short hash of the process's start (:func:`~.leases.process_start`, so a
reused pid is told apart). Before it stages a folder, a process removes the copies of this host
whose process no longer runs. A copy of another host (a temp folder shared between machines or
containers), of a process that runs, or one whose name does not say, is left alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import stat
import tempfile
from pathlib import Path

from skillshelf.memory.leases import process_start

__all__ = ["PREFIX", "remove_stale_staging", "staging_prefix"]

PREFIX = "skillshelf-consolidate-"
_NAMED = re.compile(re.escape(PREFIX) + r"(?P<host>[0-9a-f]{6})-(?P<pid>[0-9]{1,10})-(?P<start>[0-9a-f]{8})-")


def _short(text: str, size: int) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:size]


def _host() -> str:
    return _short(socket.gethostname(), 6)


def staging_prefix() -> str:
    """The name prefix of this process's staged folders."""
    pid = os.getpid()
    return f"{PREFIX}{_host()}-{pid}-{_short(process_start(pid) or '', 8)}-"


def _gone(pid: int, start: str) -> bool:
    running = process_start(pid)
    if running is None:
        return True
    return bool(running) and _short(running, 8) != start


def remove_stale_staging(temp_dir: Path | None = None) -> list[Path]:
    """Remove the staged folders in ``temp_dir`` (default: the system's) left by processes of
    this host that have ended; returns what was removed. Only folders of this user, never
    through a symlink; a folder that cannot be read or removed is left."""
    root = Path(temp_dir if temp_dir is not None else tempfile.gettempdir())
    host, uid = _host(), os.getuid()
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(root) if n.startswith(PREFIX)]
    except OSError:
        return removed
    for name in names:
        named = _NAMED.match(name)
        if named is None or named["host"] != host or not _gone(int(named["pid"]), named["start"]):
            continue
        path = root / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == uid:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
