"""Watching skill folders: rediscover on change, notify clients, refresh the instructions.

Existing roots are watched recursively. Roots that do not exist yet (a project without
``.agents/skills``, a user without ``~/.claude/skills``) are watched through their nearest
existing parent, not recursively; when one appears the skills are reloaded and the watch
restarts with the new folder included.

:func:`watch_folders` is the loop for anything that says which folders to watch
(:class:`Watched`: the MCP server's :class:`~skillshelf.serve.library.SkillLibrary`, the
``ui`` page's state); :func:`watched_folders` and :func:`pending_roots` work those folders out
from a discovery.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import anyio

if TYPE_CHECKING:
    from skillshelf.skills.model import Discovery

__all__ = ["Watched", "pending_parents", "pending_roots", "watch_folders", "watched_folders"]

log = logging.getLogger(__name__)

Reload = Callable[[], Awaitable[None]]
STEP_MS = 50
"""How often a watch thread looks at its stop event. watchfiles' thread cannot be cancelled: it
only returns on a change, on its stop event or after its 5 s timeout, so a watch ends by
setting the event (cancelling alone would hold up the server's exit by up to 5 s)."""


def watched_folders(discovery: Discovery | None, extra: Iterable[Path] = ()) -> tuple[Path, ...]:
    """Existing folders to watch: the discovery roots plus ``extra``, nested ones dropped."""
    candidates = list(extra)
    if discovery is not None:
        candidates += [root.path for root in discovery.roots]
    existing = sorted({p.resolve() for p in candidates if p.is_dir()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in existing:
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return tuple(kept)


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


async def _watch_roots(
    target: Watched,
    reload: Reload,
    paths: tuple[Path, ...],
    debounce_ms: int,
    restart: anyio.Event,
    stop: anyio.Event,
) -> None:
    import watchfiles

    changes = watchfiles.awatch(*paths, debounce=debounce_ms, step=STEP_MS, recursive=True, stop_event=stop)
    async for _changes in changes:
        await reload()
        if target.watch_paths() != paths:
            restart.set()
            return


async def _watch_pending(
    target: Watched,
    reload: Reload,
    paths: tuple[Path, ...],
    parents: tuple[Path, ...],
    debounce_ms: int,
    restart: anyio.Event,
    stop: anyio.Event,
) -> None:
    import watchfiles

    pending = target.pending_roots()
    changes = watchfiles.awatch(
        *parents, debounce=debounce_ms, step=STEP_MS, recursive=False, stop_event=stop
    )
    async for _changes in changes:
        if any(root.is_dir() for root in pending):
            await reload()
        if target.pending_parents() != parents or target.watch_paths() != paths:
            restart.set()
            return


async def _guarded(watcher: Callable[..., Awaitable[None]], *args: object) -> None:
    """A watcher that cannot watch (permissions, inotify limits) logs and stops; serving goes on."""
    try:
        await watcher(*args)
    except Exception as exc:
        log.warning("cannot watch skill folders for changes: %s", exc)


async def watch_folders(target: Watched, reload: Reload, debounce_ms: int = 400) -> None:
    """Run until cancelled: call ``reload`` whenever something changes in ``target``'s folders."""
    restarted = False
    while True:
        if restarted:  # catch what was written while the new folder was not watched yet
            await reload()
        restarted = True
        paths, parents = target.watch_paths(), target.pending_parents()
        if not paths and not parents:
            log.info("no skill folder to watch")
            return
        restart, stop = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            if paths:
                group.start_soon(_guarded, _watch_roots, target, reload, paths, debounce_ms, restart, stop)
            if parents:
                group.start_soon(
                    _guarded, _watch_pending, target, reload, paths, parents, debounce_ms, restart, stop
                )
            try:
                await restart.wait()
            finally:
                stop.set()  # cancelled too (serving ends): the watch threads end within a step
            group.cancel_scope.cancel()
