"""Watching skill folders: rediscover on change, notify clients, refresh the instructions.

Existing roots are watched recursively. Roots that do not exist yet (a project without
``.agents/skills``, a user without ``~/.claude/skills``) are watched through their nearest
existing parent, not recursively; when one appears the skills are reloaded and the watch
restarts with the new folder included.

:func:`watch_folders` is the loop for anything that says which folders to watch
(:class:`Watched`, e.g. the MCP server's :class:`~skillshelf.serve.library.SkillLibrary`); what
a change does is the ``reload`` it is given.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

import anyio

__all__ = ["Watched", "watch_folders"]

log = logging.getLogger(__name__)

Reload = Callable[[], Awaitable[None]]


class Watched(Protocol):
    """What :func:`watch_folders` asks of the thing it keeps in step with the disk."""

    def watch_paths(self) -> tuple[Path, ...]: ...

    def pending_roots(self) -> tuple[Path, ...]: ...

    def pending_parents(self) -> tuple[Path, ...]: ...


async def _watch_roots(
    target: Watched, reload: Reload, paths: tuple[Path, ...], debounce_ms: int, restart: anyio.Event
) -> None:
    import watchfiles

    async for _changes in watchfiles.awatch(*paths, debounce=debounce_ms, step=50, recursive=True):
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
) -> None:
    import watchfiles

    pending = target.pending_roots()
    async for _changes in watchfiles.awatch(*parents, debounce=debounce_ms, step=50, recursive=False):
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
        restart = anyio.Event()
        async with anyio.create_task_group() as group:
            if paths:
                group.start_soon(_guarded, _watch_roots, target, reload, paths, debounce_ms, restart)
            if parents:
                group.start_soon(
                    _guarded, _watch_pending, target, reload, paths, parents, debounce_ms, restart
                )
            await restart.wait()
            group.cancel_scope.cancel()
