"""Safe extraction of zip (``.zip`` / ``.skill``) and tar (``.tar``, ``.tar.gz``, ``.tgz``,
``.tar.bz2``, ``.tar.xz``) archives.

A small reader per format lists the entries as neutral :class:`RawEntry` values and opens a
file entry; everything else is shared. Every entry is checked *before* anything is written:
names with ``..``, absolute names, drive letters, symlinks whose target leaves the extraction
folder, hard links, device files, FIFOs and sockets are refused with
:class:`~skillshelf.errors.InstallError`, and the target folder is left untouched. Size and
entry-count limits stop zip bombs; the entries are read one at a time, so a tar bomb is refused
at the first header that passes a limit (``archive_tar`` also caps what a tar may decompress).
Extraction writes into a folder that the caller owns (a staging folder), so a failure half-way
leaves nothing installed.
"""

from __future__ import annotations

import os
import posixpath
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Literal, Protocol

from skillshelf.errors import InstallError
from skillshelf.fileio import resolve_path
from skillshelf.install.archive_tar import TAR_ERRORS, TAR_SUFFIXES, TarStream
from skillshelf.install.files import remove_tree

__all__ = [
    "ARCHIVE_SUFFIXES",
    "ArchiveLimits",
    "ArchiveMember",
    "RawEntry",
    "archive_suffix",
    "check_archive",
    "extract_archive",
]

ARCHIVE_SUFFIXES = (".zip", ".skill", *TAR_SUFFIXES)
EntryKind = Literal["file", "dir", "symlink", "hardlink", "special"]
_MAX_LINK = 4096
_REFUSED_HINT = "the archive is unsafe; ask its author for one whose paths stay inside the skill folder"
_MAX_NAME_BYTES = 255  # the longest file name Linux, macOS and Windows file systems keep
_HINTS = {
    "IS205": "a skill archive is small: ask its author for one within the limits (a skill's own files, "
    "no data sets or builds)",
    "IS206": "the archive names one path twice, so which copy is meant is unclear; ask its author for one "
    "that holds each file once",
    "IS207": "file systems keep names of at most 255 bytes; ask the archive's author to shorten that name",
}


def archive_suffix(name: str) -> str | None:
    """The archive suffix ``name`` ends with (any case), e.g. ``.tar.gz``; None if it has none."""
    lower = name.lower()
    return next((suffix for suffix in ARCHIVE_SUFFIXES if lower.endswith(suffix)), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveLimits:
    """Caps on what one archive may contain."""

    max_entries: int = 10_000
    max_total_bytes: int = 200 * 1024 * 1024
    max_file_bytes: int = 50 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class RawEntry:
    """One entry as a format's reader lists it, before any check."""

    name: str  # as stored in the archive
    kind: EntryKind
    size: int = 0  # declared size of the stored bytes
    mode: int = 0  # permission bits
    link_target: str = ""  # what a symlink or hard link points to
    index: int = 0  # the reader's handle for open_file()


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveMember:
    """One checked entry: a relative path and what it is."""

    name: str  # normalised posix path, relative, no trailing slash
    kind: str  # "file" | "dir" | "symlink"
    size: int = 0
    link_target: str | None = None
    executable: bool = False
    index: int = 0  # the reader's handle for open_file()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Format:
    label: str  # "zip archive"
    damage: str  # how a broken one is described
    hint: str
    errors: tuple[type[Exception], ...]  # what its library raises on bad data


_ZIP = _Format(
    label="zip archive",
    damage="damaged, encrypted or unsupported",
    hint="download it again; a .zip or .skill file must be an unencrypted zip archive of one skill folder",
    errors=(zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, EOFError),
)
_TAR = _Format(
    label="tar archive",
    damage="damaged or unsupported",
    hint="download it again; a .tar, .tar.gz, .tgz, .tar.bz2 or .tar.xz file must be a tar archive "
    "of one skill folder",
    errors=TAR_ERRORS,
)


class _Reader(Protocol):
    format: _Format

    def entries(self) -> Iterator[RawEntry]: ...
    def open_file(self, index: int) -> IO[bytes]: ...
    def close(self) -> None: ...


class _ZipReader:
    format = _ZIP

    def __init__(self, archive: Path, limits: ArchiveLimits) -> None:
        self._zf = zipfile.ZipFile(archive)
        self._infos = self._zf.infolist()

    def entries(self) -> Iterator[RawEntry]:
        for index, info in enumerate(self._infos):
            mode = (info.external_attr >> 16) & 0xFFFF
            kind = _zip_kind(info, mode)
            target = b""
            if kind == "symlink" and info.file_size <= _MAX_LINK:
                target = self._zf.read(info)
            yield RawEntry(
                name=info.filename,
                kind=kind,
                size=info.file_size,
                mode=mode & 0o7777,
                link_target=target.decode("utf-8", errors="replace"),
                index=index,
            )

    def open_file(self, index: int) -> IO[bytes]:
        return self._zf.open(self._infos[index])

    def close(self) -> None:
        self._zf.close()


def _zip_kind(info: zipfile.ZipInfo, mode: int) -> EntryKind:
    fmt = stat.S_IFMT(mode)
    if fmt == stat.S_IFLNK:
        return "symlink"
    if fmt not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "special"
    return "dir" if info.is_dir() or fmt == stat.S_IFDIR else "file"


class _TarReader:
    format = _TAR

    def __init__(self, archive: Path, limits: ArchiveLimits) -> None:
        self._tar = TarStream(archive, max_data_bytes=limits.max_total_bytes, max_entries=limits.max_entries)
        self._infos: list[tarfile.TarInfo] = []

    def entries(self) -> Iterator[RawEntry]:
        for info in self._tar.members():
            self._infos.append(info)
            yield RawEntry(
                name=info.name,
                kind=_tar_kind(info),
                size=info.size if info.isreg() else 0,
                mode=info.mode & 0o7777,
                link_target=info.linkname,
                index=len(self._infos) - 1,
            )

    def open_file(self, index: int) -> IO[bytes]:
        return self._tar.open(self._infos[index])

    def close(self) -> None:
        self._tar.close()


def _tar_kind(info: tarfile.TarInfo) -> EntryKind:
    if info.issym():
        return "symlink"
    if info.islnk():
        return "hardlink"
    if info.isdir():
        return "dir"
    return "file" if info.isreg() else "special"


def _unusable(archive: Path, fmt: _Format, what: str, exc: BaseException) -> InstallError:
    return InstallError(
        f"{archive.name}: {what} {fmt.label} ({exc}); nothing was written", hint=fmt.hint, code="IS200"
    )


@contextmanager
def _reading(archive: Path, limits: ArchiveLimits) -> Iterator[_Reader]:
    """The reader for ``archive``'s format; its library's errors become ``IS200``."""
    kind = _TarReader if archive.name.lower().endswith(TAR_SUFFIXES) else _ZipReader
    fmt = kind.format
    unreadable: tuple[type[Exception], ...] = (OSError, *fmt.errors)
    try:
        reader: _Reader = kind(archive, limits)
    except unreadable as exc:
        raise _unusable(archive, fmt, "not a readable", exc) from exc
    try:
        yield reader
    except fmt.errors as exc:
        raise _unusable(archive, fmt, fmt.damage, exc) from exc
    finally:
        reader.close()


def _refuse(archive: Path, entry: str, why: str, code: str) -> InstallError:
    return InstallError(
        f"{archive.name}: refused entry {entry!r}: {why}; nothing was written",
        hint=_HINTS.get(code, _REFUSED_HINT),
        code=code,
    )


def _too_much(archive: Path, what: str) -> InstallError:
    return InstallError(f"{archive.name}: {what}; nothing was written", hint=_HINTS["IS205"], code="IS205")


def _normalise(archive: Path, raw: str) -> str:
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or name.startswith("//"):
        raise _refuse(archive, raw, "absolute path", "IS202")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise _refuse(archive, raw, "path goes up with '..'", "IS201")
    if any("\x00" in p for p in parts):
        raise _refuse(archive, raw, "NUL byte in name", "IS201")
    if any(len(os.fsencode(p)) > _MAX_NAME_BYTES for p in parts):
        raise _refuse(archive, raw, f"a file or folder name over {_MAX_NAME_BYTES} bytes", "IS207")
    return "/".join(parts)


def _link_stays_inside(member_name: str, target: str) -> bool:
    if target.startswith("/") or "\\" in target or (len(target) > 1 and target[1] == ":"):
        return False
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(member_name), target))
    return joined != ".." and not joined.startswith("../") and joined != "."


def _classify(archive: Path, entry: RawEntry, limits: ArchiveLimits) -> ArchiveMember:
    name = _normalise(archive, entry.name)
    if entry.kind == "special":
        raise _refuse(archive, entry.name, "device file, FIFO, socket or other special entry", "IS203")
    if entry.kind == "hardlink":
        raise _refuse(archive, entry.name, f"hard link to {entry.link_target!r} (not supported)", "IS203")
    if entry.kind == "symlink":
        if entry.size > _MAX_LINK or len(entry.link_target) > _MAX_LINK:
            raise _refuse(archive, entry.name, "symlink target too long", "IS204")
        if not name or not _link_stays_inside(name, entry.link_target):
            why = f"symlink to {entry.link_target!r} leaves the skill folder"
            raise _refuse(archive, entry.name, why, "IS204")
        return ArchiveMember(name=name, kind="symlink", link_target=entry.link_target, index=entry.index)
    if entry.kind == "dir":
        return ArchiveMember(name=name, kind="dir", index=entry.index)
    if not name:
        raise _refuse(archive, entry.name, "empty file name", "IS201")
    if entry.size > limits.max_file_bytes:
        raise _refuse(archive, entry.name, f"file larger than {limits.max_file_bytes} bytes", "IS205")
    executable = bool(entry.mode & 0o111)
    return ArchiveMember(name=name, kind="file", size=entry.size, executable=executable, index=entry.index)


def _check_conflicts(archive: Path, members: list[ArchiveMember]) -> None:
    kinds: dict[str, str] = {}
    for member in members:
        previous = kinds.get(member.name)
        if previous is not None and (previous != "dir" or member.kind != "dir"):
            raise _refuse(archive, member.name, "appears twice in the archive", "IS206")
        kinds[member.name] = member.kind
    for member in members:
        parent = posixpath.dirname(member.name)
        while parent:
            if kinds.get(parent) in ("file", "symlink"):
                raise _refuse(archive, member.name, f"its parent {parent!r} is a file or symlink", "IS204")
            parent = posixpath.dirname(parent)


def check_archive(archive: Path, *, limits: ArchiveLimits = ArchiveLimits()) -> tuple[ArchiveMember, ...]:
    """Read and check every entry of ``archive``; raise :class:`InstallError` on the first bad one."""
    with _reading(archive, limits) as reader:
        return _check_entries(archive, reader.entries(), limits)


def _check_entries(
    archive: Path, entries: Iterator[RawEntry], limits: ArchiveLimits
) -> tuple[ArchiveMember, ...]:
    """Check entries as they are read, stopping at the first that passes a limit."""
    members: list[ArchiveMember] = []
    total = 0
    for entry in entries:
        if len(members) >= limits.max_entries:
            raise _too_much(archive, f"more than the limit of {limits.max_entries} entries")
        member = _classify(archive, entry, limits)
        total += member.size
        if total > limits.max_total_bytes:
            raise _too_much(archive, f"more than the limit of {limits.max_total_bytes} bytes uncompressed")
        members.append(member)
    _check_conflicts(archive, members)
    return tuple(m for m in members if m.name)


def extract_archive(
    archive: Path, target: Path, *, limits: ArchiveLimits = ArchiveLimits()
) -> tuple[str, ...]:
    """Extract ``archive`` into the new folder ``target`` after checking every entry.

    ``target`` must not exist; on any failure it is removed again, so either the whole archive
    is there or nothing is. Returns the relative names of the files written.
    """
    with _reading(archive, limits) as reader:
        members = _check_entries(archive, reader.entries(), limits)
        target.mkdir(parents=False, exist_ok=False)
        try:
            for member in members:
                _write_member(reader, member, target, limits)
            _check_links_resolve_inside(archive, members, target)
        except BaseException:
            remove_tree(target)
            raise
    return tuple(m.name for m in members if m.kind == "file")


def _check_links_resolve_inside(archive: Path, members: tuple[ArchiveMember, ...], target: Path) -> None:
    # Lexical checks cannot see chains of links (a -> b/.., b -> ../x); resolve each for real.
    real_target = target.resolve()
    for member in members:
        if member.kind != "symlink":
            continue
        try:
            resolved = resolve_path(target.joinpath(*member.name.split("/")))
        except OSError:  # a loop of links
            raise _refuse(archive, member.name, "symlink loop", "IS204") from None
        if resolved != real_target and real_target not in resolved.parents:
            raise _refuse(
                archive,
                member.name,
                f"symlink chain to {member.link_target!r} leaves the skill folder",
                "IS204",
            )


def _write_member(reader: _Reader, member: ArchiveMember, target: Path, limits: ArchiveLimits) -> None:
    dest = target.joinpath(*member.name.split("/"))
    if member.kind == "dir":
        dest.mkdir(parents=True, exist_ok=True)
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    if member.kind == "symlink":
        dest.symlink_to(member.link_target or "")
        return
    written = 0
    with reader.open_file(member.index) as src, open(dest, "xb") as out:
        while chunk := src.read(1 << 16):
            written += len(chunk)
            if written > limits.max_file_bytes:
                raise InstallError(
                    f"{member.name}: grows past {limits.max_file_bytes} bytes when unpacked",
                    hint=_HINTS["IS205"],
                    code="IS205",
                )
            out.write(chunk)
    if member.executable:
        dest.chmod(0o755)


def single_top(unpacked: Path) -> Path | None:
    """The one folder an unpacked archive holds (a release archive's ``repo-1.0/``), None when
    it holds anything else or more."""
    tops = list(unpacked.iterdir())
    return tops[0] if len(tops) == 1 and tops[0].is_dir() and not tops[0].is_symlink() else None
