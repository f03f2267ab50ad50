"""The page's live state: the folder opened once as a :class:`~skillshelf.workspace.Workspace`,
opened again whenever the watcher sees a skill folder change, or a settings file it read
(config layers, the trust store, Codex's and Claude Code's settings: :mod:`.stamps`) changed:
:meth:`UiState.refresh` looks at their stamps (before each request, and from the watcher).

Requests read :attr:`UiState.snapshot` (one immutable value, swapped in one assignment, so a
request never sees half a reload). Each reload bumps :attr:`Snapshot.version`; the page's event
stream waits on :meth:`UiState.wait_for_change`. What is costly and depends only on the
snapshot (validation per profile) is kept per version.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from skillshelf.env import Env
from skillshelf.errors import FileAccessError, SkillshelfError, reason
from skillshelf.serve.loading import workspace_tools
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.ui.stamps import Stamp, settings_files, stamps_of
from skillshelf.serve.watch import pending_parents, pending_roots, scanned_roots, watched_folders
from skillshelf.workspace import Workspace, WorkspaceOptions

if TYPE_CHECKING:
    from skillshelf.context import ContextOptions

__all__ = ["Snapshot", "UiOptions", "UiState"]

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class UiOptions:
    """What the page looks at: the folder's workspace options, and whether ranking uses the
    installed embedding models (None: those installed, as ``skillshelf search``; False: none)."""

    workspace: WorkspaceOptions = WorkspaceOptions()
    semantic: bool | None = None

    def context_options(self, **values: object) -> ContextOptions:
        """``ContextOptions`` over the same folder options (``values``: profile, window...)."""
        from skillshelf.context import ContextOptions

        return ContextOptions.over(self.workspace, **values)


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """One opening of the folder: the workspace, the tools a server would offer over it."""

    workspace: Workspace
    tools: SkillTools
    version: int
    opened_at: float  # wall-clock seconds
    scanned_ns: int = 0  # time.time_ns() when the open began: the watch looks for changes since
    stamps: tuple[Stamp, ...] = ()  # of the settings files, taken before the folder was opened
    error: str | None = None  # the last reload failed with this (the snapshot is the one before)
    error_code: str | None = None  # that failure's code, when it is one of ours
    error_fix: str | None = None  # and its fix


class UiState:
    """The current snapshot, its reloads, and per-version results."""

    def __init__(self, env: Env, options: UiOptions | None = None) -> None:
        self.env = env
        self.options = options or UiOptions()
        self._changed = threading.Condition()
        self._closed = False
        self._memo: dict[tuple[int, str], object] = {}
        self._memo_lock = threading.Lock()
        self._reloading = threading.Lock()
        self._settings = settings_files(env)
        self.project_root = env.project_root  # worked out once: a gone cwd would climb to its parent
        self.watching = True  # False once the watch of the skill folders ended for good
        self.snapshot = self._open(version=1, stamps=stamps_of(self._settings))

    def check_folder(self) -> None:
        """Raise ``FileAccessError`` (``SS006``, as the CLI does) when the page's folder is gone or
        cannot be searched: every view worked out from it would describe another folder."""
        try:
            os.stat(os.path.join(self.env.cwd, os.curdir))
        except OSError as exc:
            gone = isinstance(exc, (FileNotFoundError, NotADirectoryError))
            raise FileAccessError(
                f"the page's folder ({self.env.cwd}) "
                + ("no longer exists" if gone else f"cannot be searched: {reason(exc)}"),
                hint="run `skillshelf ui` again in a folder that exists; until then the page keeps "
                "what it read last",
                code="SS006",
            ) from exc

    def _open(self, *, version: int, stamps: tuple[Stamp, ...]) -> Snapshot:
        scanned_ns = time.time_ns()
        self.check_folder()
        workspace = Workspace.open(self.env, self.options.workspace)
        return Snapshot(
            workspace=workspace,
            tools=workspace_tools(workspace),
            version=version,
            opened_at=time.time(),
            stamps=stamps,
            scanned_ns=scanned_ns,
        )

    @property
    def memories_folder(self) -> Path:
        """Where the memory pipeline writes (watched too, so the memory view follows it)."""
        return self.env.dirs.data / "memories"

    def settings_changed(self) -> bool:
        """Whether a settings file changed since the current snapshot was opened."""
        return stamps_of(self._settings) != self.snapshot.stamps

    def refresh(self) -> Snapshot:
        """The current snapshot, after opening the folder again if a settings file changed."""
        if not self.settings_changed():
            return self.snapshot
        with self._reloading:  # one reload for the requests that saw the change at once
            return self._reload() if self.settings_changed() else self.snapshot

    def reload(self) -> Snapshot:
        """Open the folder again; a failure keeps the last snapshot and records the error."""
        with self._reloading:
            return self._reload()

    def _reload(self) -> Snapshot:
        current = self.snapshot
        stamps = stamps_of(self._settings)  # before reading: an edit during the open shows next time
        try:
            fresh = self._open(version=current.version + 1, stamps=stamps)
        except Exception as exc:  # a bad config or a vanished root must not stop the page
            log.warning("reloading the skills failed: %s", exc)
            fresh = Snapshot(
                workspace=current.workspace,
                tools=current.tools,
                version=current.version + 1,
                opened_at=current.opened_at,
                stamps=stamps,
                scanned_ns=current.scanned_ns,
                error=exc.message if isinstance(exc, SkillshelfError) else str(exc),
                error_code=exc.code if isinstance(exc, SkillshelfError) else None,
                error_fix=exc.hint if isinstance(exc, SkillshelfError) else None,
            )
        with self._changed:
            self.snapshot = fresh
            with self._memo_lock:
                self._memo = {k: v for k, v in self._memo.items() if k[0] == fresh.version}
            self._changed.notify_all()
        return fresh

    def memo(self, key: str, compute: Callable[[Snapshot], T]) -> T:
        """``compute(snapshot)`` once per snapshot version and ``key``."""
        snapshot = self.snapshot
        slot = (snapshot.version, key)
        with self._memo_lock:
            if slot in self._memo:
                return self._memo[slot]  # type: ignore[return-value]
        value = compute(snapshot)
        with self._memo_lock:
            if snapshot.version == self.snapshot.version:
                self._memo[slot] = value
        return value

    def wait_for_change(self, version: int, timeout: float, watching: bool = True) -> int:
        """The current version, once it differs from ``version``, :attr:`watching` differs from
        ``watching``, or ``timeout`` seconds passed."""
        with self._changed:
            self._changed.wait_for(
                lambda: self._closed or self.snapshot.version != version or self.watching != watching,
                timeout,
            )
            return self.snapshot.version

    def stop_watching(self) -> None:
        """Say that the skill folders are no longer watched (wakes the event streams)."""
        with self._changed:
            self.watching = False
            self._changed.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Wake every waiter for good (the server is stopping)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    # -- what the watcher watches (serve.watch.Watched) ------------------------------------
    def watch_paths(self) -> tuple[Path, ...]:
        extra = (*self.options.workspace.extra_roots, self.memories_folder)
        return watched_folders(self.snapshot.workspace.discovery, extra)

    def pending_roots(self) -> tuple[Path, ...]:
        return pending_roots(self.snapshot.workspace.discovery)

    def pending_parents(self) -> tuple[Path, ...]:
        return pending_parents(self.pending_roots())

    def scanned_roots(self) -> tuple[Path, ...]:
        return scanned_roots(self.snapshot.workspace.discovery)
