"""Which project files a bash command changed, also in a project too big to walk.

:class:`ChangeWatch` asks :class:`~skillshelf.agent.shell_effects.TreeWatch` first (every file
beneath the root, capped). Once that watch is off (the tree has more than its cap of files, or
takes too long to list), a git repository is watched through git instead: before and after the
command, ``git status --porcelain -z --untracked-files=all`` (files changed against the index
and HEAD, untracked files one by one, ignored ones left out) and the size, mtime and inode of
each file it lists (:class:`GitWatch`). A file that changes shows up in the list, leaves it, or
keeps its place with another size or mtime. Each run is bounded (:data:`MAX_GIT_SECONDS`,
:data:`MAX_GIT_BYTES` of output, :data:`MAX_GIT_ENTRIES` files listed) and takes no lock on the
index (``--no-optional-locks``), so it neither stalls the loop nor races the model's own git
commands. Files that are tool state (the folders and files the tree watch skips: caches,
``__pycache__``, virtual environments) are not counted.

Outside a git repository, or when git fails or hits a bound, what a command changed is unknown
(``None``): the caller must treat it as a command that *may* have changed files, and say so in
those words.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from skillshelf.agent.shell_effects import SKIPPED_FILES, SKIPPED_FOLDERS, Snapshot, TreeWatch, changed_paths

__all__ = ["MAX_GIT_BYTES", "MAX_GIT_ENTRIES", "MAX_GIT_SECONDS", "ChangeWatch", "GitWatch", "WatchState"]

MAX_GIT_SECONDS = 2.0
MAX_GIT_BYTES = 8 << 20
MAX_GIT_ENTRIES = 100_000


@dataclass(frozen=True, slots=True)
class WatchState:
    """A snapshot taken before a command: by the tree watch or by git (``None``: none could be taken)."""

    kind: str
    files: Snapshot | None


class GitWatch:
    """Snapshots of the files ``git status`` lists beneath ``root`` (see the module docstring)."""

    def __init__(
        self, root: Path, *, environ: Mapping[str, str] | None = None, timeout: float = MAX_GIT_SECONDS
    ) -> None:
        self.root = root
        self.environ = dict(environ) if environ is not None else None  # the bash tool's own
        self.timeout = timeout
        self._top_folder: Path | None = None

    def snapshot(self) -> Snapshot | None:
        """``{path: (size, mtime_ns, inode)}`` of each listed file (``(-1, -1, -1)`` when gone,
        and the status code in the key's entry too), or ``None`` when git cannot tell."""
        out = self._git(
            "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "."
        )
        if out is None or len(out) > MAX_GIT_BYTES:
            return None
        return self._stat(_listed(out))

    def _git(self, *args: str) -> bytes | None:
        """``git ARGS``' output in the project, None when it fails or runs past the timeout."""
        try:
            run = subprocess.run(
                ["git", "-c", "core.fsmonitor=false", *args],  # no command the project's config names
                cwd=self.root,
                env=self.environ,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except (OSError, subprocess.SubprocessError, ValueError):
            return None
        return run.stdout if run.returncode == 0 else None

    def _stat(self, listed: Mapping[str, str]) -> Snapshot | None:
        if len(listed) > MAX_GIT_ENTRIES:
            return None
        files: dict[str, tuple[int, int, int]] = {}
        top = self._top()
        if top is None:
            return None
        for path, code in listed.items():
            if _tool_state(path):
                continue
            try:
                info = os.lstat(top / path)
            except OSError:
                files[f"{path}\0{code}"] = (-1, -1, -1)
                continue
            if stat.S_ISDIR(info.st_mode):
                return None  # a nested repository or a submodule: its files' edits are not listed
            stamp = (info.st_size, info.st_mtime_ns, info.st_ino)
            files[f"{path}\0{code}"] = stamp
        return files

    def _top(self) -> Path | None:
        """The repository's top folder, which the paths ``git status`` prints are relative to."""
        if self._top_folder is not None:
            return self._top_folder
        out = self._git("rev-parse", "--show-toplevel")
        top = out.decode("utf-8", errors="surrogateescape").rstrip("\n") if out is not None else ""
        if top:
            self._top_folder = Path(top)
        return self._top_folder


class ChangeWatch:
    """The tree watch while it is on, then git; :meth:`changed_since` is ``None`` when unknown."""

    def __init__(self, root: Path, *, environ: Mapping[str, str] | None = None) -> None:
        self.tree = TreeWatch(root)
        self.git = GitWatch(root, environ=environ)
        self._told = False

    @property
    def off(self) -> bool:
        """Whether the tree is too big to walk (git, or nothing, tells what changed)."""
        return self.tree.off

    def snapshot(self) -> WatchState:
        if not self.tree.off:
            files = self.tree.snapshot()
            if files is not None:
                return WatchState("tree", files)
        return WatchState("git", self.git.snapshot())

    def changed_since(self, before: WatchState) -> tuple[str, ...] | None:
        """The project files changed since ``before``, sorted; ``None`` when that cannot be told."""
        if before.files is None:
            return None
        after = self.tree.snapshot() if before.kind == "tree" else self.git.snapshot()
        if after is None:
            return None
        return tuple(dict.fromkeys(key.split("\0")[0] for key in changed_paths(before.files, after)))

    def first_unknown(self) -> str | None:
        """For the user, the first time what a command changed could not be told: why, and that
        such a command counts as one that may have changed files; ``None`` after that."""
        if self._told:
            return None
        self._told = True
        return (
            f"over {self.tree.max_entries} files (or {self.tree.max_seconds} s to list them) and "
            "`git status` cannot tell what changed: every command counts as one that may have changed files"
        )


def _listed(output: bytes) -> dict[str, str]:
    """``{path: status code}`` from ``git status --porcelain=v1 -z`` (a rename's source too)."""
    listed: dict[str, str] = {}
    fields = output.decode("utf-8", errors="surrogateescape").split("\0")
    index = 0
    while index < len(fields):
        entry = fields[index]
        index += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        listed[path] = code
        if code[0] in "RC" and index < len(fields):  # the source path follows a rename or copy
            listed[fields[index]] = code
            index += 1
    return listed


def _tool_state(path: str) -> bool:
    """Whether ``path`` lies where the tree watch does not look (caches, generated folders)."""
    *folders, name = path.split("/")
    if any(part in SKIPPED_FOLDERS or part.endswith(".egg-info") for part in folders):
        return True
    return name.endswith((".pyc", ".pyo")) or name in SKIPPED_FILES or name.startswith(".coverage.")
