"""Watching skill folders: rediscover on change, notify clients, refresh the instructions.

Existing roots are watched recursively. Roots that do not exist yet (a project without
``.agents/skills``, a user without ``~/.claude/skills``) are watched through their nearest
existing parent, not recursively; when one appears the skills are reloaded and the watch
restarts with the new folder included.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

if TYPE_CHECKING:
    from skillshelf.serve.mcp_server import SkillServer

__all__ = ["watch_skills"]

log = logging.getLogger(__name__)


async def _reload(server: SkillServer, prebuild: bool) -> None:
    from skillshelf.serve.mcp_server import prebuild_index, server_instructions

    try:
        change = await anyio.to_thread.run_sync(server.library.reload)
    except Exception as exc:  # a broken reload (bad config, missing required skill) keeps the old snapshot
        log.warning("reloading skills failed: %s", exc)
        return
    if change.any:
        server.instructions = server_instructions(server.library)
        await server.notifier.publish(prompts=change.prompts or change.skills, resources=change.resources)
    if prebuild:
        await prebuild_index(server.library, delay=0)


async def _watch_roots(
    server: SkillServer, paths: tuple[Path, ...], debounce_ms: int, prebuild: bool, restart: anyio.Event
) -> None:
    import watchfiles

    async for _changes in watchfiles.awatch(*paths, debounce=debounce_ms, step=50, recursive=True):
        await _reload(server, prebuild)
        if server.library.watch_paths() != paths:
            restart.set()
            return


async def _watch_pending(
    server: SkillServer,
    paths: tuple[Path, ...],
    parents: tuple[Path, ...],
    debounce_ms: int,
    prebuild: bool,
    restart: anyio.Event,
) -> None:
    import watchfiles

    pending = server.library.pending_roots()
    async for _changes in watchfiles.awatch(*parents, debounce=debounce_ms, step=50, recursive=False):
        if any(root.is_dir() for root in pending):
            await _reload(server, prebuild)
        if server.library.pending_parents() != parents or server.library.watch_paths() != paths:
            restart.set()
            return


async def _guarded(watcher: Callable[..., Awaitable[None]], *args: object) -> None:
    """A watcher that cannot watch (permissions, inotify limits) logs and stops; serving goes on."""
    try:
        await watcher(*args)
    except Exception as exc:
        log.warning("cannot watch skill folders for changes: %s", exc)


async def watch_skills(server: SkillServer, debounce_ms: int = 400, prebuild: bool = True) -> None:
    """Run until cancelled: keep the served skills in step with the folders on disk."""
    restarted = False
    while True:
        if restarted:  # catch what was written while the new folder was not watched yet
            await _reload(server, prebuild)
        restarted = True
        paths, parents = server.library.watch_paths(), server.library.pending_parents()
        if not paths and not parents:
            log.info("no skill folder to watch")
            return
        restart = anyio.Event()
        async with anyio.create_task_group() as group:
            if paths:
                group.start_soon(_guarded, _watch_roots, server, paths, debounce_ms, prebuild, restart)
            if parents:
                group.start_soon(
                    _guarded, _watch_pending, server, paths, parents, debounce_ms, prebuild, restart
                )
            await restart.wait()
            group.cancel_scope.cancel()
