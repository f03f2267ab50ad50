"""Watching skill folders: rediscover on change, notify clients, refresh the instructions.

Each folder is watched on its own, not recursively: the roots and the folders below them that
discovery's walk lists (:mod:`.watch_paths`, :func:`watch_list`: hidden folders skipped, symlinked
folders followed as the walk follows them, within the walk's depth, folder and entry limits). A
recursive watch would follow a symlinked folder to its end (a link to ``/usr``: some 15,000
inotify watches, which count against the user's shared limit; a link to ``/``: a failure in
``/proc`` that ended every watch). A new folder shows as a change in its parent; the reload that
follows restarts the watch with it. A folder that cannot be watched is reported once (``SV210``)
and skipped; the others stay watched. A folder whose path is not UTF-8 is never watched; its
parent's watch still sees it read, which notify cannot decode: watchfiles ends the watch (an
``ExceptionGroup``).

Roots that do not exist yet (no ``.agents/skills`` in a project) are watched through their nearest
existing parent, in a watch of its own; when one appears the skills are reloaded and both watches
restart. An error of either watch (or of handling its changes) is noted once (``SV210``) and only
that watch restarts (:func:`_follow`); after :data:`MAX_FAILURES` quick failures in a row it gives
up, which ends :func:`watch_folders` (its caller says so) only for the skill folders' watch.
Once a watch is in place, a change since the scan it follows reloads (:mod:`.watch_checks`), and
a folder that cannot be read when a pass starts (the first pass too: no watch saw it made so),
a root or a folder watched for roots to appear (a folder above a root made unreadable), is looked
at again until it can: that is no failure of the watch, which goes on meanwhile.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import anyio

from skillshelf.serve.watch_checks import changed_since, restart_when_listable, unlistable
from skillshelf.serve.watch_notes import UNDECODABLE, leaves, note_blocked, note_failed, note_unwatched
from skillshelf.serve.watch_paths import (
    DISCOVERY_LIMITS,
    decodable,
    is_folder,
    pending_parents,
    pending_roots,
    scanned_roots,
    watch_list,
    watched_folders,
)
from skillshelf.skills.walk import ScanLimits

__all__ = [
    "DISCOVERY_LIMITS",
    "Watched",
    "pending_parents",
    "pending_roots",
    "scanned_roots",
    "watch_folders",
    "watch_list",
    "watched_folders",
]

log = logging.getLogger(__name__)

Reload = Callable[[], Awaitable[None]]
OnBatch = Callable[[], Awaitable[bool]]
Folders = tuple[Path, ...]
STEP_MS = 50
"""How often a watch thread looks at its stop event. watchfiles' thread cannot be cancelled: it
only returns on a change, on its stop event or after its 5 s timeout, so a watch ends by
setting the event (cancelling alone would hold up the server's exit by up to 5 s)."""
RESTART_S = 0.2
"""The wait before a failed watch restarts, doubled for each failure in a row: four times the
watch thread's step, and short beside the 400 ms debounce of the servers' watches."""
MAX_FAILURES = 5
"""Failures in a row (each within :data:`STEADY_S` of its start) before a watch gives up: the
restarts then took 0.2 + 0.4 + 0.8 + 1.6 = 3 s, past any passing trouble."""
STEADY_S = 2.0
"""A watch that ran this long before failing starts a new count of failures (longer than the
last wait before a restart, 1.6 s): a folder read now and then never stops the watch."""
MAX_WAIT_S = 1.6
"""The longest wait before a restart after failures that are never counted (a name notify cannot
decode, read again and again): the last wait of the counted ones, so a change is seen within it."""


class Watched(Protocol):
    """What :func:`watch_folders` asks of the thing it keeps in step with the disk."""

    def watch_paths(self) -> tuple[Path, ...]: ...
    def pending_roots(self) -> tuple[Path, ...]: ...
    def pending_parents(self) -> tuple[Path, ...]: ...
    def scanned_roots(self) -> tuple[Path, ...]: ...


async def _batches(
    paths: tuple[Path, ...], debounce_ms: int, stop: anyio.Event, noted: set[str]
) -> AsyncGenerator[object, None]:
    """watchfiles' batches of changes in ``paths``, each folder watched on its own. One that cannot
    be watched (permissions, the inotify limit) is noted once, and every such folder skipped."""
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
            async with aclosing(changes):
                async for batch in changes:
                    yield batch
            return
        except OSError as exc:
            if skip_failures:
                raise
            note_unwatched(exc, noted)
            skip_failures = True


async def _follow(
    paths: Folders, on_batch: OnBatch, stop: anyio.Event, watch: _Watch, waits_for: Folders | None
) -> None:
    """Watch ``paths``, awaiting ``on_batch`` after each batch until it returns true. An error (of
    the watch, or of ``on_batch``: a folder unreadable for a moment) is noted, and after a wait the
    watch restarts, calling ``on_batch`` if the entries changed. :data:`MAX_FAILURES` quick ones in
    a row raise; a name notify cannot decode fails at each touch, so those are never counted."""
    failures = undecodable = 0
    stamps: frozenset[tuple[object, ...]] | None = None  # taken once a watch failed
    catch_up = busy = False
    while True:
        started = anyio.current_time()
        try:
            busy = catch_up
            if catch_up and await on_batch():
                return
            busy = False
            async with aclosing(_batches(paths, watch.debounce_ms, stop, watch.noted)) as batches:
                async for _batch in batches:
                    failures = undecodable = 0
                    if stamps is not None:  # before the reload: a later change shows as a difference
                        stamps = await anyio.to_thread.run_sync(_entry_stamps, paths)
                    busy = True
                    if await on_batch():
                        return
                    busy = False
            return
        except Exception as exc:  # watchfiles raises from its task group: an ExceptionGroup
            note_failed(exc, paths, watch.noted, waits_for)
            if anyio.current_time() - started > STEADY_S:
                failures = undecodable = 0
            if all(UNDECODABLE.search(str(leaf)) for leaf in leaves(exc)):
                undecodable += 1
                wait = min(RESTART_S * 2 ** (undecodable - 1), MAX_WAIT_S)
            else:
                failures += 1
                if failures >= MAX_FAILURES:
                    raise
                wait = RESTART_S * 2 ** (failures - 1)
            await anyio.sleep(wait)
            now = await anyio.to_thread.run_sync(_entry_stamps, paths)
            catch_up, stamps = busy or now != stamps, now


def _entry_stamps(folders: tuple[Path, ...]) -> frozenset[tuple[object, ...]]:
    """What a non-recursive watch of ``folders`` reports changes of: each entry's identity and
    times (without reading inside any entry, which its folder's watch would see as an event)."""
    out: set[tuple[object, ...]] = set()
    for folder in folders:
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    out.add((entry.path, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
        except OSError:
            out.add((str(folder), "unreadable"))
    return frozenset(out)


async def _watch_roots(target: Watched, reload: Reload, folders: Folders, ends: _Ends, watch: _Watch) -> None:
    """Follow the skill folders: reload on each change, restart every watch when they changed."""

    async def changed() -> bool:
        await reload()
        return await anyio.to_thread.run_sync(watch_list, target.watch_paths(), watch.limits) != folders

    try:
        await _follow(folders, changed, ends.stop, watch, None)
    except Exception:
        ends.gave_up.set()
    ends.restart.set()


async def _watch_pending(
    target: Watched, reload: Reload, paths: Folders, parents: Folders, ends: _Ends, watch: _Watch
) -> None:
    """Follow the folders above missing skill folders: reload when one appears, restart every watch
    when the folders to watch changed. When it gives up the skill folders stay watched (if any)."""
    waits_for: Folders = ()
    with suppress(OSError):  # a folder unreadable for a moment: each change reloads
        waits_for = target.pending_roots()

    async def changed() -> bool:
        if not waits_for or any(is_folder(root) is not False for root in waits_for):
            await reload()
        return target.pending_parents() != parents or target.watch_paths() != paths

    try:
        await _follow(parents, changed, ends.stop, watch, waits_for)
    except Exception:
        if ends.alone:
            ends.gave_up.set()
        else:
            log.warning(
                "SV210: stopped watching %s for new skill folders; the skill folders stay watched "
                "(fix: see the SV210 notes above; starting the server again watches them again)",
                ", ".join(map(str, parents)),
            )
            return
    ends.restart.set()


@dataclass(frozen=True, slots=True)
class _Ends:
    """How a pass of :func:`watch_folders` ends; ``alone``: no skill folder is watched in it."""

    alone: bool
    restart: anyio.Event = field(default_factory=anyio.Event)
    stop: anyio.Event = field(default_factory=anyio.Event)
    gave_up: anyio.Event = field(default_factory=anyio.Event)


@dataclass(frozen=True, slots=True)
class _Watch:
    """What every watch of one :func:`watch_folders` run shares."""

    debounce_ms: int
    limits: ScanLimits
    noted: set[str] = field(default_factory=set)


async def watch_folders(
    target: Watched,
    reload: Reload,
    debounce_ms: int = 400,
    limits: ScanLimits = DISCOVERY_LIMITS,
    *,
    since_ns: int | None = None,
) -> bool:
    """Run until cancelled: call ``reload`` whenever something changes in ``target``'s folders
    (walked within ``limits``, discovery's own by default). Each pass, once its watch is in place,
    reloads if anything changed since ``target`` was scanned (``since_ns``, :func:`time.time_ns`
    before the first scan; then before each reload): no event told of it. A folder to watch (or
    watched for roots to appear) that cannot be read when a pass starts (the first one included:
    no watch saw it made so, and none can see it made readable) is looked at again until it can,
    then the skills are reloaded.
    Returns False when there is nothing to watch, True when the watch gave up."""
    watch, restarted, failures = _Watch(debounce_ms, limits), False, 0
    blocked: frozenset[Path] = frozenset()
    while True:
        if restarted:  # catch what was written while the new folder was not watched yet
            since_ns = time.time_ns()
            await reload()
        restarted = True
        try:
            paths, parents = target.watch_paths(), target.pending_parents()
        except OSError as exc:  # a folder unreadable for a moment: wait, then try again
            note_failed(exc, (Path(exc.filename),) if exc.filename else (), watch.noted, None)
            if (failures := failures + 1) >= MAX_FAILURES:
                break
            await anyio.sleep(RESTART_S * 2 ** (failures - 1))
            continue
        failures, parents = 0, tuple(parent for parent in parents if decodable(parent))
        if not paths and not parents:
            roots = target.scanned_roots()  # one made since the scan: reload to watch it
            if since_ns is not None and await anyio.to_thread.run_sync(changed_since, (), roots, since_ns):
                continue
            log.info("no skill folder to watch")
            return False
        folders = await anyio.to_thread.run_sync(watch_list, paths, limits)
        blocked = await anyio.to_thread.run_sync(unlistable, {*folders, *parents, *blocked})
        note_blocked(blocked, watch.noted, parents)
        ends = _Ends(alone=not folders)
        async with anyio.create_task_group() as group:
            if folders:
                group.start_soon(_watch_roots, target, reload, folders, ends, watch)
            if parents:
                group.start_soon(_watch_pending, target, reload, paths, parents, ends, watch)
            if since_ns is not None:  # after the watches: in place before this task runs
                group.start_soon(_catch_up, target, folders, since_ns, ends)
            if blocked:
                group.start_soon(restart_when_listable, blocked, ends.restart)
            try:
                await ends.restart.wait()
            finally:
                ends.stop.set()  # cancelled too (serving ends): the watch threads end within a step
            group.cancel_scope.cancel()
        if ends.gave_up.is_set():
            break
    log.warning("SV210: stopped following changes in the skill folders (fix: see the SV210 notes above)")
    return True


async def _catch_up(target: Watched, folders: Folders, since_ns: int, ends: _Ends) -> None:
    """Restart the pass (which reloads) when something changed since ``since_ns``. Started after
    the pass's watches: watchfiles puts its watch in place before its first await, so by the time
    this task runs (a step later, for good measure) a change from then on is the watches'."""
    await anyio.sleep(STEP_MS / 1000)
    if await anyio.to_thread.run_sync(changed_since, folders, target.scanned_roots(), since_ns):
        ends.restart.set()
