"""Watching skill folders: rediscover on change, notify clients, refresh the instructions.

Each folder is watched on its own, not recursively: the roots and the folders below them that
discovery's walk lists (:func:`watch_list`: hidden folders skipped, symlinked folders followed
as the walk follows them, within the walk's depth, folder and entry limits). A recursive watch
would follow a symlinked folder to its end (a link to ``/usr``: some 15,000 inotify watches,
which count against the user's shared limit; a link to ``/``: a failure in ``/proc`` that ended
every watch). A new folder shows as a change in its parent; the reload that follows restarts
the watch with it. A folder that cannot be watched is reported once (``SV210``) and skipped;
the others stay watched.

Roots that do not exist yet (a project without ``.agents/skills``, a user without
``~/.claude/skills``) are watched through their nearest existing parent; when one appears the
skills are reloaded and the watch restarts with the new folder included.

:func:`watch_folders` is the loop for anything that says which folders to watch
(:class:`Watched`: the MCP server's :class:`~skillshelf.serve.library.SkillLibrary`, the
``ui`` page's state); :func:`watched_folders` and :func:`pending_roots` work those folders out
from a discovery.
"""

from __future__ import annotations

import errno
import logging
import os
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import anyio

from skillshelf.skills.walk import ScanLimits, unlisted_name

if TYPE_CHECKING:
    from skillshelf.skills.model import Discovery

__all__ = [
    "Watched",
    "pending_parents",
    "pending_roots",
    "watch_folders",
    "watch_list",
    "watched_folders",
]

log = logging.getLogger(__name__)

Reload = Callable[[], Awaitable[None]]
DISCOVERY_LIMITS = ScanLimits()
"""The limits a watch walks within unless told otherwise: discovery's (Codex's) own."""
STEP_MS = 50
"""How often a watch thread looks at its stop event. watchfiles' thread cannot be cancelled: it
only returns on a change, on its stop event or after its 5 s timeout, so a watch ends by
setting the event (cancelling alone would hold up the server's exit by up to 5 s)."""


def watched_folders(discovery: Discovery | None, extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """Existing folders whose trees to watch: the discovery roots plus ``extra``, resolved, each
    once (a root inside another stays: the outer one's walk may not reach it, as a hidden
    ``.system`` root inside ``$CODEX_HOME/skills``)."""
    candidates = list(extra)
    if discovery is not None:
        candidates += [root.path for root in discovery.roots]
    return tuple(sorted({p.resolve() for p in candidates if p.is_dir()}, key=lambda p: (len(p.parts), p)))


def watch_list(tops: Iterable[Path], limits: ScanLimits = DISCOVERY_LIMITS) -> tuple[Path, ...]:
    """Every folder to watch (each on its own) for the trees of ``tops``: each top and the folders
    below it that discovery's walk lists, within ``limits`` per top."""
    out: dict[Path, None] = {}
    for top in tops:
        out.update(dict.fromkeys(_walked(top, limits)))
    return tuple(out)


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
            if not _is_folder(entry):
                continue
            identity = os.path.realpath(entry.path) if link or via_link else entry.path
            if identity in seen or len(folders) >= limits.max_dirs:
                continue
            seen.add(identity)
            folders.append(Path(entry.path))
            queue.append((entry.path, depth + 1, via_link or link))
    return folders


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def pending_roots(discovery: Discovery | None) -> tuple[Path, ...]:
    """Roots that were scanned but do not exist yet (``.agents/skills`` before the first skill)."""
    if discovery is None:
        return ()
    return tuple(scan.root.path for scan in discovery.scans if not scan.root.path.is_dir())


def pending_parents(roots: Iterable[Path]) -> tuple[Path, ...]:
    """The nearest existing folder above each of ``roots``, to watch (not recursively) for it."""
    parents: set[Path] = set()
    for root in roots:
        folder = root.parent
        while not folder.is_dir() and folder.parent != folder:
            folder = folder.parent
        if folder.is_dir():
            parents.add(folder.resolve())
    return tuple(sorted(parents))


class Watched(Protocol):
    """What :func:`watch_folders` asks of the thing it keeps in step with the disk."""

    def watch_paths(self) -> tuple[Path, ...]: ...

    def pending_roots(self) -> tuple[Path, ...]: ...

    def pending_parents(self) -> tuple[Path, ...]: ...


async def _batches(
    paths: tuple[Path, ...], debounce_ms: int, stop: anyio.Event, noted: set[str]
) -> AsyncIterator[object]:
    """watchfiles' batches of changes in ``paths``, each folder watched on its own. When one cannot
    be watched (permissions, the inotify limit), that is noted once (:func:`_note_unwatched`) and
    the watch starts again skipping every folder that cannot be watched."""
    import watchfiles

    skip_failures = False
    while True:
        try:
            changes = watchfiles.awatch(
                *paths,
                debounce=debounce_ms,
                step=STEP_MS,
                recursive=False,
                stop_event=stop,
                ignore_permission_denied=skip_failures,
            )
            async for batch in changes:
                yield batch
            return
        except OSError as exc:
            if skip_failures:
                raise
            _note_unwatched(exc, noted)
            skip_failures = True


def _note_unwatched(exc: OSError, noted: set[str]) -> None:
    """Log a folder that cannot be watched (SV210), once per message while the watch runs; a folder
    gone since the walk needs no note (its parent's change reloads the skills)."""
    text = str(exc)
    if isinstance(exc, FileNotFoundError) or text in noted:
        return
    noted.add(text)
    if exc.errno == errno.EACCES or isinstance(exc, PermissionError):
        fix = "make the folder readable, or remove the symlink in the skill root that leads to it"
    elif exc.errno == errno.ENOSPC or "limit" in text:
        fix = "raise fs.inotify.max_user_watches (sysctl), or keep large folders out of the skill roots"
    else:
        fix = "check the folder and the symlinks that lead to it"
    log.warning(
        "SV210: cannot watch a skill folder for changes: %s; it is skipped, the other folders stay "
        "watched (fix: %s)",
        text,
        fix,
    )


async def _folders(tops: tuple[Path, ...], limits: ScanLimits) -> tuple[Path, ...]:
    return await anyio.to_thread.run_sync(watch_list, tops, limits)


async def _watch_roots(
    target: Watched,
    reload: Reload,
    folders: tuple[Path, ...],
    watch: _Watch,
    restart: anyio.Event,
    stop: anyio.Event,
) -> None:
    async for _batch in _batches(folders, watch.debounce_ms, stop, watch.noted):
        await reload()
        if await _folders(target.watch_paths(), watch.limits) != folders:
            restart.set()
            return


async def _watch_pending(
    target: Watched,
    reload: Reload,
    paths: tuple[Path, ...],
    parents: tuple[Path, ...],
    watch: _Watch,
    restart: anyio.Event,
    stop: anyio.Event,
) -> None:
    pending = target.pending_roots()
    async for _batch in _batches(parents, watch.debounce_ms, stop, watch.noted):
        if any(root.is_dir() for root in pending):
            await reload()
        if target.pending_parents() != parents or target.watch_paths() != paths:
            restart.set()
            return


async def _guarded(watcher: Callable[..., Awaitable[None]], *args: object) -> None:
    """A watcher that cannot watch at all logs and stops; serving goes on."""
    try:
        await watcher(*args)
    except Exception as exc:
        log.warning("SV210: cannot watch skill folders for changes: %s", exc)


@dataclass(frozen=True, slots=True)
class _Watch:
    """What every watch of one :func:`watch_folders` run shares."""

    debounce_ms: int
    limits: ScanLimits
    noted: set[str] = field(default_factory=set)


async def watch_folders(
    target: Watched, reload: Reload, debounce_ms: int = 400, limits: ScanLimits = DISCOVERY_LIMITS
) -> None:
    """Run until cancelled: call ``reload`` whenever something changes in ``target``'s folders
    (walked within ``limits``, discovery's own by default)."""
    watch = _Watch(debounce_ms, limits)
    restarted = False
    while True:
        if restarted:  # catch what was written while the new folder was not watched yet
            await reload()
        restarted = True
        paths, parents = target.watch_paths(), target.pending_parents()
        if not paths and not parents:
            log.info("no skill folder to watch")
            return
        folders = await _folders(paths, limits)
        restart, stop = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            if folders:
                group.start_soon(_guarded, _watch_roots, target, reload, folders, watch, restart, stop)
            if parents:
                group.start_soon(
                    _guarded, _watch_pending, target, reload, paths, parents, watch, restart, stop
                )
            try:
                await restart.wait()
            finally:
                stop.set()  # cancelled too (serving ends): the watch threads end within a step
            group.cancel_scope.cancel()
