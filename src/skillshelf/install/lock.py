"""The lock file of one skills root: where each installed skill came from.

``<skills root>/.skillshelf-lock.json`` maps the installed folder name to a
:class:`LockEntry` (source, requested ref, resolved commit, content hash). It sits beside the
skills it describes, so a project's ``.agents/skills`` lock can be committed with the skills.
Writes are atomic (temp file + rename) and the file round-trips exactly. Links to a skill in
other agents' folders are stored relative to the lock file's folder, so the project's lock
still names the project's links in a clone at another path.

A lock file is content anyone can commit, so its keys are not trusted: a key is used only
when it is a plain folder name (what ``install`` writes, :data:`FOLDER_NAME`) whose folder,
if present, is a real folder directly inside the skills root (not a symlink). Any other
entry, or one that is not an object with the required fields, is left out of
:attr:`Lock.entries` and reported in :attr:`Lock.diagnostics` (``IS402`` / ``IS403``);
``update``, ``remove`` and ``list`` never act on it, the other entries still work, and a
rewrite of the file keeps it as it was. A key an object repeats is read as ``json`` reads it
(the last one wins) and reported (``IS409``). The ``packs`` object records the sources installed
whole with ``install --all`` (:mod:`skillshelf.install.lock_packs`). An entry or pack an older
version recorded with a password or token in its URL is read without it
(:mod:`skillshelf.install.lock_secrets`; records of one pack that differed only in it are
merged, ``IS410``), and :func:`write_without_secrets` writes it so. An entry or pack left out is
kept without the secrets of the URLs in it too (its key included), so neither a message nor a
rewrite of the file holds one.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import InstallError, reason
from skillshelf.fileio import read_regular_text, write_atomic
from skillshelf.install.files import content_hash
from skillshelf.install.lock_checks import FOLDER_NAME, entry_problem, noting_repeats, repeated_keys
from skillshelf.install.lock_packs import PackRecord, read_packs
from skillshelf.install.lock_secrets import (
    ignored_without_secrets,
    kept_apart,
    merged_packs_note,
    packs_without_secrets,
)

__all__ = [
    "FOLDER_NAME",
    "LOCK_FILE_NAME",
    "LOCK_VERSION",
    "Lock",
    "LockEntry",
    "PackRecord",
    "content_hash",
    "hash_as_recorded",
    "lock_diagnostics",
    "lock_path",
    "read_lock",
    "write_lock",
    "write_without_secrets",
]

LOCK_FILE_NAME = ".skillshelf-lock.json"
LOCK_VERSION = 1
#: A lock lists a few hundred skills in some kilobytes; a bigger file is not one we wrote.
MAX_LOCK_BYTES = 8 * 1024 * 1024


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
    pack: str | None = None  # the key of the pack it was installed with (``install --all``)
    #: What the source URL held that the lock does not keep (``url_secrets.secret_parts``: a
    #: password, ``token``...): a download needs it again to be updated.
    credentials: tuple[str, ...] = ()
    #: The URL as an older version recorded it, with its secret (:mod:`.lock_secrets`): used to
    #: fetch only, never written or shown.
    secret_location: str | None = field(default=None, compare=False, repr=False)
    #: ``content_hash`` counts empty folders (entries written before it did are compared without)
    hash_counts_folders: bool = False

    @property
    def needs_credentials(self) -> bool:
        """A download whose URL held a token the lock does not keep: fetched without it, the server
        refuses or sends another file, so ``update`` asks for it. A git source is fetched with
        git's own credentials (a credential helper, SSH)."""
        return bool(self.credentials) and self.kind == "archive" and self.secret_location is None

    def to_dict(self, *, root: Path | None = None) -> dict[str, object]:
        """The entry as JSON; with ``root`` (the lock file's folder) as the file stores it, the
        links relative to ``root`` (:func:`_stored_link`)."""
        extra: dict[str, object] = {}
        if self.agents:
            extra["agents"] = list(self.agents)
        if self.links:
            extra["links"] = [_stored_link(link, root) for link in self.links] if root else list(self.links)
        if self.pack:
            extra["pack"] = self.pack
        if self.credentials:
            extra["credentials"] = list(self.credentials)
        if self.hash_counts_folders:
            extra["hash_counts_folders"] = True
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
    """Every usable entry of one lock file, by folder name, and the packs they came in.

    ``ignored`` and ``ignored_packs`` hold the raw entries and records that were not used (kept
    so a rewrite loses nothing); ``diagnostics`` says why each was left out.
    """

    entries: Mapping[str, LockEntry] = field(default_factory=lambda: MappingProxyType({}))
    ignored: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    diagnostics: tuple[Diagnostic, ...] = ()
    packs: Mapping[str, PackRecord] = field(default_factory=lambda: MappingProxyType({}))
    ignored_packs: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    held_secrets: tuple[str, ...] = ()  # the entries and packs read without a secret (.lock_secrets)
    #: the keys of the entries and packs left out that were read without a secret
    ignored_secrets: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[LockEntry]:
        return iter(self.entries[name] for name in sorted(self.entries))

    def get(self, name: str) -> LockEntry | None:
        return self.entries.get(name)

    def with_entry(self, entry: LockEntry) -> Lock:
        return self._replace({**self.entries, entry.name: entry}, exclude=entry.name)

    def without(self, name: str) -> Lock:
        return self._replace({k: v for k, v in self.entries.items() if k != name}, exclude=name)

    def with_pack(self, record: PackRecord) -> Lock:
        """This lock with ``record`` in place of any record of the same key."""
        return dataclasses.replace(
            self,
            packs=MappingProxyType({**self.packs, record.key: record}),
            ignored_packs=MappingProxyType({k: v for k, v in self.ignored_packs.items() if k != record.key}),
        )

    def members(self, key: str) -> tuple[LockEntry, ...]:
        """The installed skills of the pack ``key``."""
        return tuple(entry for entry in self if entry.pack == key)

    def _replace(self, entries: dict[str, LockEntry], *, exclude: str) -> Lock:
        ignored = {k: v for k, v in self.ignored.items() if k != exclude}
        return dataclasses.replace(
            self,
            entries=MappingProxyType(entries),
            ignored=MappingProxyType(ignored),
            diagnostics=tuple(d for d in self.diagnostics if d.field != exclude),
        )

    def to_dict(self, *, root: Path | None = None) -> dict[str, object]:
        """The lock as JSON (``root``: as the file in that folder stores it). A pack none of
        whose skills is installed any longer is left out."""
        skills: dict[str, object] = {e.name: e.to_dict(root=root) for e in self}
        skills.update(self.ignored)
        data: dict[str, object] = {"version": LOCK_VERSION, "skills": dict(sorted(skills.items()))}
        kept = {key: record.to_dict() for key, record in self.packs.items() if self.members(key)}
        packs = {**kept, **self.ignored_packs}
        if packs:
            data["packs"] = dict(sorted(packs.items()))
        return data


def _stored_link(link: str, root: Path) -> str:
    """``link`` (absolute) as the lock file in ``root`` stores it: relative to ``root``
    (``../../.claude/skills/NAME``), so a committed project lock still names the project's own
    links in a clone at another path; absolute where no relative path exists (another drive)."""
    try:
        return Path(os.path.relpath(link, root)).as_posix()
    except ValueError:
        return link


def _read_link(text: str, root: Path) -> str:
    """A link as the lock file in ``root`` stores it, made absolute (a relative one against
    ``root``, normalised); older lock files hold absolute links, used as they are."""
    if os.path.isabs(text):
        return text
    return os.path.normpath(os.path.join(root, text))


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


def _entry_from(name: str, raw: dict[str, object], root: Path) -> LockEntry:
    pack, credentials = _str_or_none(raw.get("pack")), _strings(raw.get("credentials"))
    apart = kept_apart(str(raw["location"]), str(raw["source"]), pack, credentials)
    return LockEntry(
        name=name,
        skill_name=_str_or_none(raw.get("skill_name")) or name,
        source=apart.source,
        kind=str(raw["kind"]),
        location=apart.location,
        subdir=_str_or_none(raw.get("subdir")),
        ref=_str_or_none(raw.get("ref")),
        commit=_str_or_none(raw.get("commit")),
        content_hash=str(raw["content_hash"]),
        installed_at=str(raw["installed_at"]),
        agents=_strings(raw.get("agents")),
        links=tuple(_read_link(link, root) for link in _strings(raw.get("links"))),
        pack=apart.pack,
        credentials=apart.credentials,
        secret_location=apart.secret_location,
        hash_counts_folders=raw.get("hash_counts_folders") is True,
    )


def hash_as_recorded(folder: Path, entry: LockEntry, *, with_git: bool = False) -> str:
    """:func:`content_hash` of ``folder`` as ``entry`` recorded its own, to compare with it.

    An entry without ``hash_counts_folders`` may have lost it: an older skillshelf sharing the
    lock rewrites entries without the field but keeps their hash. When the hash without empty
    folders differs, the one with them is returned if it is the recorded one (the two differ
    only for a folder holding an empty folder)."""
    found = content_hash(folder, with_git=with_git, folders=entry.hash_counts_folders)
    if found == entry.content_hash or entry.hash_counts_folders:
        return found
    counted = content_hash(folder, with_git=with_git, folders=True)
    return counted if counted == entry.content_hash else found


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def read_lock(skills_root: Path) -> Lock:
    """The lock of ``skills_root``; an empty :class:`Lock` when there is no file yet.

    Raises ``IS401`` when the file as a whole cannot be read; a bad entry only lands in
    :attr:`Lock.diagnostics` (see the module docstring).
    """
    path = lock_path(skills_root)
    try:
        text = read_regular_text(path, limit=MAX_LOCK_BYTES)
    except FileNotFoundError:
        return Lock()
    except UnicodeDecodeError as exc:
        raise _bad_lock(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise _bad_lock(path, reason(exc)) from exc
    repeated: dict[str, None] = {}
    try:
        data = json.loads(text, object_pairs_hook=noting_repeats(repeated))
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f"line {exc.lineno}: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else reason(exc)
        raise _bad_lock(path, where) from exc
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        raise _bad_lock(path, "expected an object with a 'skills' object")
    if not isinstance(data.get("packs", {}), dict):
        raise _bad_lock(path, "'packs' is not an object")
    if data.get("version") != LOCK_VERSION:
        raise _bad_lock(
            path, f"unknown version {data.get('version')!r} (this skillshelf writes {LOCK_VERSION})"
        )
    entries: dict[str, LockEntry] = {}
    ignored: dict[str, object] = {}
    diagnostics: list[Diagnostic] = []
    held: list[str] = []
    for name, raw in data["skills"].items():
        problem = entry_problem(path, name, raw)
        if problem is None:
            entries[name] = entry = _entry_from(name, raw, skills_root)
            as_written = (raw["source"], _str_or_none(raw.get("pack")))
            if entry.secret_location or (entry.source, entry.pack) != as_written:
                held.append(name)
        else:
            ignored[name] = raw
            diagnostics.append(problem)
    packs, ignored_packs, pack_problems = read_packs(path, data.get("packs", {}))
    safe = packs_without_secrets(packs)
    held += [key for key in safe.held if key not in held]  # the keys as read, without the secret
    ignored, ignored_held = ignored_without_secrets(ignored, entries, entries=True)
    ignored_packs, packs_held = ignored_without_secrets(ignored_packs, safe.records)
    return Lock(
        entries=MappingProxyType(entries),
        ignored=MappingProxyType(ignored),
        diagnostics=(
            *([repeated_keys(path, list(repeated))] if repeated else []),
            *diagnostics,
            *pack_problems,
            *([merged_packs_note(path, safe.merged)] if safe.merged else []),
        ),
        packs=MappingProxyType(safe.records),
        ignored_packs=MappingProxyType(ignored_packs),
        held_secrets=tuple(held),
        ignored_secrets=(*ignored_held, *packs_held),
    )


def lock_diagnostics(roots: Iterable[Path]) -> tuple[Diagnostic, ...]:
    """The problems of the lock files in ``roots``: entries left out, files that cannot be read."""
    found: list[Diagnostic] = []
    for root in dict.fromkeys(roots):
        try:
            found.extend(read_lock(root).diagnostics)
        except InstallError as exc:
            found.append(
                Diagnostic(
                    code=exc.code,
                    severity=Severity.ERROR,
                    message=exc.message.removeprefix(f"{lock_path(root)}: "),
                    fix=exc.hint,
                    path=lock_path(root),
                )
            )
    return tuple(found)


def write_without_secrets(skills_root: Path) -> tuple[str, ...]:
    """Write the lock of ``skills_root`` again when it holds an entry or pack an older version
    recorded with a secret in its URL (:attr:`Lock.held_secrets`, which this returns) or one left
    out that holds one (:attr:`Lock.ignored_secrets`); the caller holds the root's lock. A file
    that cannot be read is left for the caller to report."""
    try:
        lock = read_lock(skills_root)
    except InstallError:
        return ()
    if lock.held_secrets or lock.ignored_secrets:
        write_lock(skills_root, lock)
    return lock.held_secrets


def write_lock(skills_root: Path, lock: Lock) -> Path:
    """Write ``lock`` atomically (ignored entries as they were); an empty lock removes the file."""
    path = lock_path(skills_root)
    if not lock.entries and not lock.ignored and not lock.ignored_packs:
        path.unlink(missing_ok=True)
        return path
    text = json.dumps(lock.to_dict(root=skills_root), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    skills_root.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text, prefix=".skillshelf-lock.")
    return path
