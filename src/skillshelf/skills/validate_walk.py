"""The inventory walk of ``skillshelf validate``: every file that looks like a skill, and where.

Unlike discovery, this walk does not stop where Codex stops: it enters hidden folders, goes
deeper than Codex's six levels and looks at ``skill.md`` / ``Skill.md`` / ``SKILL.MD`` too, so
that validation can explain every skill an agent would *not* load. It is bounded (folders,
entries, depth: five times Codex's per-root limits, so a link to ``/`` in a skills root costs
seconds, not minutes) and cycle-safe (a folder is entered once, by device and inode); what it
could not visit is reported, with the reason the system gave.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path

__all__ = [
    "CLAUDE_ROOT_OWNERS",
    "CODEX_ROOT_OWNERS",
    "Candidate",
    "Inventory",
    "WalkLimits",
    "real_path",
    "rebase",
    "take_inventory",
]

#: Folders whose ``skills`` subfolder an agent scans as a skills root, whatever the hidden name:
#: Codex's ``<dir>/.agents/skills`` and ``<dir>/.codex/skills``, Claude Code's ``<dir>/.claude/skills``.
CODEX_ROOT_OWNERS = frozenset({".agents", ".codex"})
CLAUDE_ROOT_OWNERS = frozenset({".claude"})

SKILL_FILE = "SKILL.md"
_SKIPPED = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox", ".mypy_cache"})


@dataclass(frozen=True, slots=True, kw_only=True)
class WalkLimits:
    """Bounds of the inventory walk: generous (validation is asked for explicitly, and looks past
    Codex's depth and into hidden folders), yet five times Codex's 2,000 folders and 20,000 entries
    per root at most, so a skills root that links to ``/`` is reported in seconds."""

    max_depth: int = 16
    max_dirs: int = 10_000
    max_entries: int = 100_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """One file named ``skill.md`` in any letter case, found below ``base``.

    ``depth`` is how many folders below ``base`` its folder sits (0: in ``base`` itself);
    ``hidden`` names the first folder starting with ``.`` between ``base`` and the file;
    ``parent_skill`` is the nearest enclosing folder that holds a skill file of its own.
    """

    path: Path
    base: Path
    depth: int
    hidden: str | None = None
    symlink_file: bool = False
    parent_skill: Path | None = None

    @property
    def exact_name(self) -> bool:
        return self.path.name == SKILL_FILE

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(frozen=True, slots=True, kw_only=True)
class Inventory:
    """What the walk of one PATH found: candidates in walk order, folders and entries seen."""

    base: Path
    candidates: tuple[Candidate, ...]
    dirs: int = 0
    entries: int = 0
    truncated: str | None = None
    unvisited: int = 0  # folders the walk had found but not listed when a limit stopped it
    unreadable: tuple[tuple[Path, int], ...] = ()  # folder, errno of its listing (0: not known)
    special: tuple[
        Path, ...
    ] = ()  # named skill.md but neither a file nor a folder (FIFO, device, broken or looping link)


@dataclass(frozen=True, slots=True)
class _Dir:
    path: Path
    depth: int
    hidden: str | None
    parent_skill: Path | None
    identity: tuple[int, int] | None  # device and inode (None: not known, the folder is listed anyway)


def real_path(path: Path | str) -> str:
    """``os.path.realpath(path)``, or the absolute path as written when a link on the way cannot
    be read (``readlink`` of ``/proc/1/cwd`` is refused without privileges): a key, never a crash."""
    try:
        return os.path.realpath(path)
    except OSError:
        return os.path.abspath(path)


def _identity(info: os.stat_result) -> tuple[int, int]:
    return (info.st_dev, info.st_ino)


def _entry_identity(entry: os.DirEntry[str]) -> tuple[int, int] | None:
    """The folder ``entry`` leads to (links followed; the stat ``is_dir()`` made is reused)."""
    try:
        return _identity(entry.stat())
    except OSError:
        return None


def _base_identity(base: Path) -> tuple[int, int] | None:
    try:
        return _identity(os.stat(base))
    except OSError:
        return None


def _skill_files(entries: list[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    return [e for e in entries if e.name.lower() == "skill.md" and _is_file(e)]


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _special_skill_files(entries: list[os.DirEntry[str]]) -> list[Path]:
    """Entries named ``skill.md`` that an agent cannot read as a file: FIFOs, devices, broken or
    looping links."""
    return [
        Path(e.path) for e in entries if e.name.lower() == "skill.md" and not _is_file(e) and not _is_dir(e)
    ]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _list(path: Path) -> list[os.DirEntry[str]] | OSError | None:
    """The sorted entries of ``path``, or the error that refused them."""
    try:
        with os.scandir(path) as iterator:
            return sorted(iterator, key=lambda e: e.name)
    except OSError as exc:
        return exc


def take_inventory(base: Path, limits: WalkLimits | None = None) -> Inventory:
    """Walk ``base`` (a folder) breadth-first, sorted, and list every skill-like file."""
    limits = limits or WalkLimits()
    found: list[Candidate] = []
    seen: set[tuple[int, int]] = set()
    queue: deque[_Dir] = deque([_Dir(base, 0, None, None, _base_identity(base))])
    dirs = entries = 0
    truncated: str | None = None
    unreadable: list[tuple[Path, int]] = []
    special: list[Path] = []
    while queue:
        current = queue.popleft()
        if current.identity is not None:
            if current.identity in seen:
                continue
            seen.add(current.identity)
        if dirs >= limits.max_dirs:
            truncated = f"the {limits.max_dirs:,}-folder limit"
            break
        dirs += 1
        listing = _list(current.path)
        if not isinstance(listing, list):
            unreadable.append((current.path, (listing.errno or 0) if listing is not None else 0))
            continue
        entries += len(listing)
        if entries > limits.max_entries:
            truncated = f"the {limits.max_entries:,}-entry limit"
            break
        skill_files = _skill_files(listing)
        special += _special_skill_files(listing)
        found += [
            Candidate(
                path=Path(e.path),
                base=base,
                depth=current.depth,
                hidden=current.hidden,
                symlink_file=e.is_symlink(),
                parent_skill=current.parent_skill,
            )
            for e in skill_files
        ]
        inner_parent = (
            current.path if any(e.name == SKILL_FILE for e in skill_files) else current.parent_skill
        )
        for entry in listing:
            if entry.name in _SKIPPED or not _is_dir(entry):
                continue
            if current.depth + 1 > limits.max_depth:
                truncated = truncated or f"the depth limit of {limits.max_depth}"
                continue
            hidden = current.hidden or (entry.name if entry.name.startswith(".") else None)
            identity = _entry_identity(entry)
            queue.append(_Dir(Path(entry.path), current.depth + 1, hidden, inner_parent, identity))
    return Inventory(
        base=base,
        candidates=tuple(found),
        dirs=dirs,
        entries=entries,
        truncated=truncated,
        unvisited=len(queue),
        unreadable=tuple(unreadable),
        special=tuple(special),
    )


def nested_root(cand: Candidate, owners: frozenset[str], known: frozenset[Path]) -> Path | None:
    """The deepest skills root strictly below ``cand.base`` that holds ``cand``, else ``None``.

    A root is a ``<owner>/skills`` folder (``owners``: the agent's conventional roots) or one
    of the ``known`` folders (the user's roots, as walked below the base).
    """
    parts = cand.folder.relative_to(cand.base).parts
    for end in range(len(parts), 0, -1):
        folder = cand.base.joinpath(*parts[:end])
        if (end >= 2 and parts[end - 1] == "skills" and parts[end - 2] in owners) or folder in known:
            return folder
    return None


def rebase(cand: Candidate, root: Path) -> Candidate:
    """``cand`` as seen from the skills root ``root`` (a folder between its base and itself)."""
    parts = cand.folder.relative_to(root).parts
    parent = cand.parent_skill
    if parent is not None and not parent.is_relative_to(root):
        parent = None
    hidden = next((p for p in parts if p.startswith(".")), None)
    return replace(cand, base=root, depth=len(parts), hidden=hidden, parent_skill=parent)
