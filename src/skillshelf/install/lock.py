"""The lock file of one skills root: where each installed skill came from.

``<skills root>/.skillshelf-lock.json`` maps the installed folder name to a
:class:`LockEntry` (source, requested ref, resolved commit, content hash). It sits beside the
skills it describes, so a project's ``.agents/skills`` lock can be committed with the skills.
Writes are atomic (temp file + rename) and the file round-trips exactly.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from skillshelf.errors import InstallError

__all__ = [
    "LOCK_FILE_NAME",
    "LOCK_VERSION",
    "Lock",
    "LockEntry",
    "content_hash",
    "lock_path",
    "read_lock",
    "write_lock",
]

LOCK_FILE_NAME = ".skillshelf-lock.json"
LOCK_VERSION = 1
_IGNORED_NAMES = frozenset({".git", "__pycache__", ".DS_Store"})


@dataclass(frozen=True, slots=True, kw_only=True)
class LockEntry:
    """One installed skill. ``name`` is its folder name under the skills root."""

    name: str
    skill_name: str
    source: str  # what the user typed, normalised (absolute folder, URL...)
    kind: str  # "folder" | "git" | "archive"
    location: str  # folder / archive path or repository URL, without #subdir and @ref
    subdir: str | None = None
    ref: str | None = None  # what was asked for (tag, branch, commit); None = default branch
    commit: str | None = None  # the commit that was installed (git only)
    content_hash: str
    installed_at: str
    agents: tuple[str, ...] = ()  # the agents it was installed for (`install --for`)
    links: tuple[str, ...] = ()  # links to it in other agents' skill folders

    def to_dict(self) -> dict[str, object]:
        extra: dict[str, object] = {}
        if self.agents:
            extra["agents"] = list(self.agents)
        if self.links:
            extra["links"] = list(self.links)
        return {
            "skill_name": self.skill_name,
            "source": self.source,
            "kind": self.kind,
            "location": self.location,
            "subdir": self.subdir,
            "ref": self.ref,
            "commit": self.commit,
            "content_hash": self.content_hash,
            "installed_at": self.installed_at,
            **extra,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Lock:
    """Every entry of one lock file, by folder name."""

    entries: Mapping[str, LockEntry] = field(default_factory=lambda: MappingProxyType({}))

    def __iter__(self) -> Iterator[LockEntry]:
        return iter(self.entries[name] for name in sorted(self.entries))

    def get(self, name: str) -> LockEntry | None:
        return self.entries.get(name)

    def with_entry(self, entry: LockEntry) -> Lock:
        return Lock(entries=MappingProxyType({**self.entries, entry.name: entry}))

    def without(self, name: str) -> Lock:
        return Lock(entries=MappingProxyType({k: v for k, v in self.entries.items() if k != name}))

    def to_dict(self) -> dict[str, object]:
        return {"version": LOCK_VERSION, "skills": {e.name: e.to_dict() for e in self}}


def lock_path(skills_root: Path) -> Path:
    """Where the lock file of ``skills_root`` lives."""
    return skills_root / LOCK_FILE_NAME


def _bad_lock(path: Path, why: str) -> InstallError:
    return InstallError(
        f"{path}: lock file cannot be read: {why}",
        hint="fix the JSON by hand, or move the file away and reinstall the skills it listed",
        code="IS401",
    )


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _entry_from(path: Path, name: str, raw: object) -> LockEntry:
    if not isinstance(raw, dict):
        raise _bad_lock(path, f"entry {name!r} is not an object")
    required = ("source", "kind", "location", "content_hash", "installed_at")
    missing = [key for key in required if not isinstance(raw.get(key), str)]
    if missing:
        raise _bad_lock(path, f"entry {name!r} lacks {', '.join(missing)}")
    return LockEntry(
        name=name,
        skill_name=_str_or_none(raw.get("skill_name")) or name,
        source=str(raw["source"]),
        kind=str(raw["kind"]),
        location=str(raw["location"]),
        subdir=_str_or_none(raw.get("subdir")),
        ref=_str_or_none(raw.get("ref")),
        commit=_str_or_none(raw.get("commit")),
        content_hash=str(raw["content_hash"]),
        installed_at=str(raw["installed_at"]),
        agents=_strings(raw.get("agents")),
        links=_strings(raw.get("links")),
    )


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def read_lock(skills_root: Path) -> Lock:
    """The lock of ``skills_root``; an empty :class:`Lock` when there is no file yet."""
    path = lock_path(skills_root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Lock()
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad_lock(path, str(exc)) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad_lock(path, f"line {exc.lineno}: {exc.msg}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise _bad_lock(path, "expected an object with a 'skills' object")
    if data.get("version") != LOCK_VERSION:
        raise _bad_lock(
            path, f"unknown version {data.get('version')!r} (this skillshelf writes {LOCK_VERSION})"
        )
    entries = {str(name): _entry_from(path, str(name), raw) for name, raw in data["skills"].items()}
    return Lock(entries=MappingProxyType(entries))


def write_lock(skills_root: Path, lock: Lock) -> Path:
    """Write ``lock`` atomically; an empty lock removes the file."""
    path = lock_path(skills_root)
    if not lock.entries:
        path.unlink(missing_ok=True)
        return path
    text = json.dumps(lock.to_dict(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    skills_root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".skillshelf-lock.", suffix=".tmp", dir=skills_root)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _walk(folder: Path, rel: str = "") -> Iterator[tuple[str, Path]]:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name in _IGNORED_NAMES:
            continue
        name = f"{rel}{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(Path(entry.path), f"{name}/")
        else:
            yield name, Path(entry.path)


def content_hash(folder: Path) -> str:
    """``sha256:<hex>`` over every file's relative path, kind, executable bit and bytes.

    Symlinks count by their target text, not what they point to; ``.git`` is left out.
    """
    digest = hashlib.sha256()
    for rel, path in _walk(folder):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            digest.update(f"L {rel}\0{os.readlink(path)}\n".encode())
        elif not stat.S_ISREG(info.st_mode):
            digest.update(f"O {rel}\0{stat.S_IFMT(info.st_mode)}\n".encode())
        else:
            file_digest = hashlib.sha256()
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 16):
                    file_digest.update(chunk)
            mode = "x" if info.st_mode & 0o100 else "f"
            digest.update(f"F {rel}\0{mode}{file_digest.hexdigest()}\n".encode())
    return f"sha256:{digest.hexdigest()}"
