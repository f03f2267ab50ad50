"""The memory queue: transcripts of finished agent sessions waiting for Phase 1.

An agent's ``Stop`` / ``SessionEnd`` hook (``skillshelf hook``) calls :func:`enqueue` with the
transcript path the agent gave it and returns at once; the extraction happens later, in
``skillshelf memory run`` (or a detached one the hook starts), never inside the agent's turn.
The run reads the queue with :func:`queued`, extracts those sessions without waiting for the
idle window (they are finished), and takes them off with :func:`dequeue`.

One small JSON file per transcript under ``<state dir>/memory/queue/``, named by a hash of the
path: queueing the same transcript again (every turn ends with ``Stop``) rewrites its entry
instead of adding one. Files are written to a temporary name and moved into place, so a reader
never sees half an entry; a damaged entry is skipped and removed.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.dirs import private_dir
from skillshelf.errors import FileAccessError, reason
from skillshelf.fileio import write_atomic

if TYPE_CHECKING:
    from skillshelf.memory.settings import MemorySettings
    from skillshelf.memory.store import Store
    from skillshelf.memory.store.base import ClaimLimits

__all__ = ["QueuedSession", "dequeue", "enqueue", "phase1_passes", "queue_dir", "queued", "settle_queue"]

MAX_ENTRIES = 1000  # the oldest beyond this are dropped: a queue nobody drains stays small


@dataclass(frozen=True, slots=True, kw_only=True)
class QueuedSession:
    """One transcript waiting for extraction, and what the agent said about it."""

    path: Path
    agent: str = ""
    session_id: str = ""
    cwd: str = ""
    ended: bool = False  # SessionEnd (the session is over), not only a turn's Stop
    queued_at: float = 0.0
    # the memory project of ``cwd`` while it existed: a git worktree removed before the run
    # still counts for its main checkout's project
    project: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "agent": self.agent,
            "session_id": self.session_id,
            "cwd": self.cwd,
            "ended": self.ended,
            "queued_at": self.queued_at,
            "project": self.project,
        }


def queue_dir(state_dir: Path) -> Path:
    return state_dir / "memory" / "queue"


def _entry_file(state_dir: Path, transcript: Path) -> Path:
    digest = hashlib.sha1(str(transcript).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return queue_dir(state_dir) / f"{digest}.json"


def enqueue(state_dir: Path, session: QueuedSession) -> Path:
    """Queue ``session`` (replacing an entry for the same transcript); returns the entry file.

    Raises:
        FileAccessError: the queue folder cannot be written.
    """
    target = _entry_file(state_dir, session.path)
    stamped = session if session.queued_at else replace(session, queued_at=time.time())
    try:
        private_dir(target.parent)
        write_atomic(target, json.dumps(stamped.to_dict(), ensure_ascii=False), prefix=f".{target.name}.")
    except OSError as exc:
        raise FileAccessError(
            f"cannot write the memory queue entry {target}: {reason(exc)}",
            hint="check the permissions of the state folder or set SKILLSHELF_STATE_DIR",
            code="ME120",
        ) from exc
    return target


def _read(path: Path) -> QueuedSession | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("path"), str) or not data["path"]:
        return None
    queued_at = data.get("queued_at")
    return QueuedSession(
        path=Path(data["path"]),
        agent=str(data.get("agent") or ""),
        session_id=str(data.get("session_id") or ""),
        cwd=str(data.get("cwd") or ""),
        ended=data.get("ended") is True,
        queued_at=float(queued_at) if isinstance(queued_at, int | float) else 0.0,
        project=data["project"] if isinstance(data.get("project"), str) else "",
    )


def queued(state_dir: Path, *, tidy: bool = True) -> list[QueuedSession]:
    """Every queued transcript, oldest first; damaged entries and the oldest beyond
    :data:`MAX_ENTRIES` are left out, and removed when ``tidy`` (``False``: the queue is only
    read, as a dry run and ``memory status`` do)."""
    folder = queue_dir(state_dir)
    try:
        files = [p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith(".")]
    except OSError:
        return []
    entries: list[QueuedSession] = []
    for file in files:
        entry = _read(file)
        if entry is not None and _entry_file(state_dir, entry.path) == file:
            entries.append(entry)
        elif tidy:
            file.unlink(missing_ok=True)
    entries.sort(key=lambda e: (e.queued_at, str(e.path)))
    for old in entries[:-MAX_ENTRIES] if tidy else ():
        _entry_file(state_dir, old.path).unlink(missing_ok=True)
    return entries[-MAX_ENTRIES:]


def dequeue(state_dir: Path, transcripts: Iterable[Path]) -> int:
    """Take the entries of ``transcripts`` off the queue; returns how many were there."""
    removed = 0
    for transcript in transcripts:
        file = _entry_file(state_dir, transcript)
        try:
            file.unlink()
        except OSError:  # already taken off (another run), or the folder is read-only
            continue
        removed += 1
    return removed


def phase1_passes(
    store: Store,
    settings: MemorySettings,
    queue: Sequence[QueuedSession],
    only: list[str] | None,
    queued_only: bool,
) -> list[tuple[MemorySettings, list[str] | None]]:
    """The Phase-1 passes of a run, as ``(settings, only these session ids)``: first the queued
    sessions, without the idle window (their agent said the session ended), then, unless
    ``queued_only``, the usual candidates."""
    passes: list[tuple[MemorySettings, list[str] | None]] = []
    ids = store.session_ids_for_paths([str(q.path) for q in queue]) if queue else []
    if ids:
        passes.append((settings.with_overrides(min_idle_hours=0), ids))
    if not queued_only:
        passes.append((settings, only))
    return passes


def settle_queue(
    store: Store, queue: Sequence[QueuedSession], limits: ClaimLimits, *, state_dir: Path
) -> int:
    """After the passes, take off the queue every entry a later run need not try again; returns
    how many. An entry stays while its session is still eligible (the call budget ran out),
    running under another worker's lease, or failed with retries left."""
    if not queue:
        return 0
    ids = store.session_ids_for_paths([str(q.path) for q in queue])
    pending = _pending_paths(store, ids, limits=limits, now_ms=int(time.time() * 1000))
    return dequeue(state_dir, [q.path for q in queue if str(q.path) not in pending])


def _pending_paths(store: Store, ids: list[str], *, limits: ClaimLimits, now_ms: int) -> set[str]:
    if not ids:
        return set()
    from skillshelf.memory.store import STAGE1

    pending = {
        str(r[2]) for r in store.stage1_candidates(now_ms=now_ms, limits=limits, limit=len(ids), only=ids)
    }
    for session_id in ids:
        job = store.job(STAGE1, session_id)
        if job is None or not (
            job["status"] == "running" or (job["status"] == "error" and int(job["retry_remaining"] or 0) > 0)
        ):
            continue
        session = store.session(session_id)
        if session is not None:
            pending.add(session.path)
    return pending
