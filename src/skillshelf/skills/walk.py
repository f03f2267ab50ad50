"""Walk one skill root for ``SKILL.md`` files, the way Codex does, but never silently.

Breadth-first; entries of each folder sorted by name; a folder is entered when it is less than
``max_depth`` levels below the root, is not hidden (name starting with ``.``; the root itself may
be hidden) and has not been seen (symlinks resolved, so loops end). At most ``max_dirs``
folders (root included) and ``max_entries`` entries are examined per root. A symlinked
``SKILL.md`` file is ignored, like Codex does; directory symlinks are followed when the root
allows it. Codex only logs when it hits a limit; here the result says which limit, how much was
left, and carries a diagnostic whose fix names the option that raises it.

A folder (or folder link) whose name is not valid UTF-8 or holds a line feed, carriage return or
tab is skipped with everything below it (``SK214``): Codex 0.171.0 lists no skill under such a
name (other control characters, U+0085, U+2028 and bidirectional marks it lists as they are;
checked with the oracle). Claude Code's roots skip them too: Claude Code lists no folder whose
name is not UTF-8, and a line break in a listed name would let a folder write its own lines
into the model's skills section.
"""

from __future__ import annotations

import errno
import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.namespace import MANIFESTS
from skillshelf.skills.slots import slot_setters

__all__ = [
    "CODEX_MAX_DEPTH",
    "FoundFile",
    "ScanLimits",
    "WalkResult",
    "found_file",
    "shown_name",
    "unlisted_name",
    "unlisted_reason",
    "walk_claude_root",
    "walk_root",
]

SKILL_FILE = "SKILL.md"
#: How many folder levels below a root Codex scans, whatever skillshelf's own limit is.
CODEX_MAX_DEPTH = 6
PLUGIN_MARKERS = frozenset(MANIFESTS)  # a folder listing one of these may be a plugin
# An undecodable byte of a file name is a lone surrogate (U+DC80..U+DCFF) in Python's str.
_UNLISTED_NAME = re.compile("[\t\n\r\udc80-\udcff]")
_SHOWN = str.maketrans({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanLimits:
    """Per-root traversal limits (Codex: depth 6, 2,000 folders, 20,000 entries)."""

    max_depth: int = CODEX_MAX_DEPTH
    max_dirs: int = 2000
    max_entries: int = 20000


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A ``SKILL.md`` as reached by the walk: ``path`` under the root, ``canonical`` resolved.

    ``has_agents`` says whether the skill folder lists an ``agents`` entry (saves a probe).
    ``size``, ``mtime_ns`` and ``ctime_ns`` key the parsed-skill cache: the change time moves
    on a change of mode or owner too, which can make the file unreadable.
    """

    path: str
    canonical: str
    has_agents: bool
    size: int
    mtime_ns: int
    ctime_ns: int


_FOUND_SETTERS = slot_setters(FoundFile, ("path", "canonical", "has_agents", "size", "mtime_ns", "ctime_ns"))


def found_file(path: str, canonical: str, has_agents: bool, st: os.stat_result) -> FoundFile:
    """``FoundFile(...)`` with the size and times of ``st``, without the frozen ``__init__`` (a
    warm run restores thousands)."""
    if _FOUND_SETTERS is None:
        return FoundFile(path, canonical, has_agents, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    found = object.__new__(FoundFile)
    set_path, set_canonical, set_agents, set_size, set_mtime, set_ctime = _FOUND_SETTERS
    set_path(found, path)
    set_canonical(found, canonical)
    set_agents(found, has_agents)
    set_size(found, st.st_size)
    set_mtime(found, st.st_mtime_ns)
    set_ctime(found, st.st_ctime_ns)
    return found


@dataclass(slots=True, kw_only=True)
class WalkResult:
    """What one root's walk found (mutable while walking, then read by discovery)."""

    files: list[FoundFile] = field(default_factory=list)
    dirs_visited: int = 0
    entries_seen: int = 0
    truncated: bool = False
    limit: str | None = None
    unvisited_dirs: int = 0
    depth_pruned: int = 0
    stopped_in: str | None = None
    plain_dirs: set[str] = field(default_factory=set)
    dir_stamps: list[tuple[str, int]] = field(default_factory=list)
    has_plugin_markers: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _note(result: WalkResult, code: str, severity: Severity, message: str, fix: str, path: str) -> None:
    result.diagnostics.append(
        Diagnostic(code=code, severity=severity, message=message, fix=fix, path=Path(path))
    )


def _list(folder: str, result: WalkResult) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError as exc:
        denied = isinstance(exc, PermissionError)
        why = " (permission denied); skills in it are not found" if denied else f": {exc.strerror}"
        fix = "fix its permissions (chmod u+rx)" if denied else "check the folder"
        _note(result, "SK203", Severity.WARNING, f"folder cannot be read{why}", fix, folder)
        return None
    entries.sort(key=lambda e: e.name)
    return entries


def unlisted_name(name: str) -> bool:
    """Whether a folder named ``name`` is skipped: not valid UTF-8, or a line feed, carriage
    return or tab in it."""
    return _UNLISTED_NAME.search(name) is not None


def unlisted_reason(name: str) -> str:
    """Why :func:`unlisted_name` refuses ``name``, as a clause."""
    if any("\udc80" <= char <= "\udcff" for char in name):
        return "its name is not valid UTF-8"
    return "its name holds a line break or tab"


def shown_name(name: str) -> str:
    """``name`` as printable, valid text: undecodable bytes as ``\\xNN``, ``\\n``, ``\\r``, ``\\t``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace").translate(_SHOWN)


def _skip_unlisted(entry: os.DirEntry[str], result: WalkResult) -> None:
    """Note that the folder ``entry`` (a name :func:`unlisted_name` refuses) is not scanned.

    The note points at the folder holding it and shows the name escaped: a path that is not
    valid Unicode cannot be printed or sent as JSON as it is.
    """
    _note(
        result,
        "SK214",
        Severity.WARNING,
        f"the folder `{shown_name(entry.name)}` here is skipped with every skill in it: "
        f"{unlisted_reason(entry.name)} (Codex lists no skill under such a name)",
        "rename the folder to valid UTF-8 text without line breaks or tabs",
        os.path.dirname(entry.path),
    )


def _skill_file(entry: os.DirEntry[str], via_link: bool, has_agents: bool, result: WalkResult) -> None:
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return
    canonical = os.path.realpath(entry.path) if via_link else entry.path
    result.files.append(found_file(entry.path, canonical, has_agents, st))


class _Walker:
    def __init__(self, root: str, follow: bool, limits: ScanLimits, result: WalkResult, record: bool) -> None:
        self.record = record
        self.follow = follow
        self.limits = limits
        self.result = result
        # (path as walked, depth, reached through a symlink, canonical path)
        self.queue: deque[tuple[str, int, bool, str]] = deque([(root, 0, False, root)])
        self.seen: set[str] = {root}
        self.dirs = 1

    def enter(self, path: str, depth: int, via_link: bool, identity: str) -> None:
        if depth >= self.limits.max_depth:
            self.result.depth_pruned += 1
            self.too_deep(path, depth + 1, pruned=True)
            return
        if identity in self.seen:
            return
        if self.dirs >= self.limits.max_dirs:
            self.result.truncated = True
            self.result.limit = self.result.limit or "max_dirs"
            self.result.unvisited_dirs += 1
            return
        if depth >= CODEX_MAX_DEPTH:  # skillshelf's depth was raised past Codex's
            self.too_deep(path, depth + 1, pruned=False)
        self.seen.add(identity)
        self.dirs += 1
        self.queue.append((path, depth + 1, via_link, identity))

    def too_deep(self, folder: str, levels: int, *, pruned: bool) -> None:
        """SK210 when ``folder``, ``levels`` below the root, holds a skill past Codex's depth, or
        past a lowered depth of skillshelf's own scan (``pruned``: the walk does not enter it)."""
        skill_file, limit = os.path.join(folder, SKILL_FILE), self.limits.max_depth
        if not os.path.isfile(skill_file):
            return
        where = f"this skill is {levels} folders below the root, deeper than the"
        if levels <= CODEX_MAX_DEPTH:
            message = f"{where} {limit} levels SKILLSHELF_SCAN_MAX_DEPTH lets skillshelf scan; it is not "
            message += f"listed (Codex, which scans {CODEX_MAX_DEPTH} levels, loads it)"
            fix = f"unset SKILLSHELF_SCAN_MAX_DEPTH, or set it to at least {levels}"
        else:
            listed = "" if pruned else f"; skillshelf lists it only because SKILLSHELF_SCAN_MAX_DEPTH={limit}"
            message = f"{where} {CODEX_MAX_DEPTH} levels Codex scans; Codex does not load it{listed}"
            fix = (
                f"move the skill folder up, at most {CODEX_MAX_DEPTH} levels below the root "
                "(SKILLSHELF_SCAN_MAX_DEPTH changes only skillshelf's own scan; Codex does not follow it)"
            )
        _note(self.result, "SK210", Severity.WARNING, message, fix, skill_file)

    def dead_link(self, path: str) -> None:
        """SK204 for a link in a loop, SK205 for one to nothing (a loop may be undone outside the
        walked folders, so that walk is not reused)."""
        try:
            os.stat(path)
            return
        except OSError as exc:
            loop = exc.errno == errno.ELOOP
        message = "symlink loop (it leads back to itself); not followed" if loop else "broken symlink skipped"
        fix = "remove the link or point it at a folder that exists"
        _note(self.result, "SK204" if loop else "SK205", Severity.INFO, message, fix, path)
        if loop:
            self.record = False
            self.result.dir_stamps.clear()

    def link(self, entry: os.DirEntry[str], depth: int) -> None:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if not is_dir:
            if entry.name == SKILL_FILE:
                _note(
                    self.result,
                    "SK206",
                    Severity.WARNING,
                    "SKILL.md is a symlink; Codex ignores symlinked SKILL.md files",
                    "symlink the skill's folder instead of its SKILL.md",
                    entry.path,
                )
            else:
                self.dead_link(entry.path)
            return
        if not self.follow or entry.name.startswith("."):
            return
        real = os.path.realpath(entry.path)
        if real in self.seen and depth < self.limits.max_depth:
            _note(
                self.result,
                "SK204",
                Severity.INFO,
                f"symlink to a folder already scanned ({real}); not entered again",
                "nothing to do unless the link is a mistake",
                entry.path,
            )
        self.enter(entry.path, depth, True, real)

    def would_enter(self, entry: os.DirEntry[str], depth: int) -> bool:
        """Whether the walk would enter ``entry`` if its name were allowed."""
        if entry.name.startswith(".") or depth >= self.limits.max_depth:
            return False
        try:
            return entry.is_dir() if self.follow or not entry.is_symlink() else False
        except OSError:
            return False

    def cut(self, path: str, depth: int, unread: list[os.DirEntry[str]]) -> None:
        """The entry budget ran out listing ``path``: the folders of ``unread`` the walk would enter
        are left unscanned, and ``path`` when its SKILL.md is unread (bundled files hide no skill)."""
        result = self.result
        result.truncated, result.limit, result.stopped_in = True, "max_entries", path
        folders = sum(1 for e in unread if not unlisted_name(e.name) and self.would_enter(e, depth))
        own_skill = any(e.name == SKILL_FILE and e.is_file(follow_symlinks=False) for e in unread)
        result.unvisited_dirs += folders + own_skill

    def folder(self, path: str, depth: int, via_link: bool, canonical: str) -> bool:
        """List one folder; False when the entry budget ran out. A folder without a plugin
        manifest folder is noted as plain under its canonical path (the one namespaces are
        looked up by), so skills linked into a root need no manifest probes."""
        if self.record:  # the change time, taken before listing, lets a later run trust the listing
            try:
                self.result.dir_stamps.append((path, os.stat(path).st_ctime_ns))
            except OSError:
                self.record = False
                self.result.dir_stamps.clear()
        entries = _list(path, self.result)
        if entries is None:
            return True
        names = {e.name for e in entries}
        has_agents = "agents" in names or any(n.lower() == "agents" for n in names)
        if names.isdisjoint(PLUGIN_MARKERS):
            self.result.plain_dirs.add(canonical)
        else:
            self.result.has_plugin_markers = True
        for index, entry in enumerate(entries):
            if self.result.entries_seen >= self.limits.max_entries:
                self.cut(path, depth, entries[index:])
                return False
            self.result.entries_seen += 1
            if unlisted_name(entry.name):
                if self.would_enter(entry, depth):
                    _skip_unlisted(entry, self.result)
                continue
            if entry.is_symlink():
                self.link(entry, depth)
            elif entry.is_dir(follow_symlinks=False):
                if not entry.name.startswith("."):
                    identity = os.path.realpath(entry.path) if via_link else entry.path
                    self.enter(entry.path, depth, via_link, identity)
                elif os.path.isfile(os.path.join(entry.path, SKILL_FILE)):
                    _note(
                        self.result,
                        "SK208",
                        Severity.WARNING,
                        "this skill is in a hidden folder (name starting with `.`), "
                        "which Codex does not scan; it is not loaded",
                        "rename the folder without the leading `.`, or link it under a visible name",
                        os.path.join(entry.path, SKILL_FILE),
                    )
            elif entry.name == SKILL_FILE:
                _skill_file(entry, via_link, has_agents, self.result)
        return True

    def run(self) -> None:
        while self.queue:
            path, depth, via_link, canonical = self.queue.popleft()
            self.result.dirs_visited += 1
            if not self.folder(path, depth, via_link, canonical):
                self.result.unvisited_dirs += len(self.queue)
                return


def walk_root(
    root: str, *, follow_symlinks: bool, limits: ScanLimits = ScanLimits(), record: bool = False
) -> WalkResult:
    """Walk ``root`` (already canonical) breadth-first; see the module docstring.

    ``record=True`` keeps each listed folder's change time in ``dir_stamps`` (for the cache).
    """
    result = WalkResult()
    _Walker(root, follow_symlinks, limits, result, record).run()
    return result


def walk_claude_root(root: str, *, limits: ScanLimits = ScanLimits()) -> WalkResult:
    """Claude Code's layout: only ``<root>/<name>/SKILL.md``; hidden folders and links included."""
    result = WalkResult(dirs_visited=1)
    entries = _list(root, result) or []
    for index, entry in enumerate(entries):
        if result.entries_seen >= limits.max_entries:
            result.truncated, result.limit, result.stopped_in = True, "max_entries", root
            result.unvisited_dirs = sum(1 for e in entries[index:] if os.path.isdir(e.path))
            break
        result.entries_seen += 1
        try:
            if not entry.is_dir():
                continue
            if unlisted_name(entry.name):
                _skip_unlisted(entry, result)
                continue
            candidate = os.path.join(entry.path, SKILL_FILE)
            st = os.stat(candidate)
        except OSError:
            continue
        result.dirs_visited += 1
        canonical = os.path.realpath(candidate)
        has_agents = os.path.isdir(os.path.join(entry.path, "agents"))
        result.files.append(found_file(candidate, canonical, has_agents, st))
    return result
