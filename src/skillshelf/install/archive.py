"""Safe extraction of ``.zip`` / ``.skill`` archives.

Every entry is checked *before* anything is written: names with ``..``, absolute names,
drive letters, symlinks whose target leaves the extraction folder, device files, FIFOs and
sockets are refused with :class:`~skillshelf.errors.InstallError`, and the target folder is
left untouched. Size and entry-count limits stop zip bombs. Extraction writes into a folder
that the caller owns (a staging folder), so a failure half-way leaves nothing installed.
"""

from __future__ import annotations

import posixpath
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skillshelf.errors import InstallError
from skillshelf.install.files import remove_tree

__all__ = ["ArchiveLimits", "ArchiveMember", "check_archive", "extract_archive"]

_REFUSED_HINT = "the archive is unsafe; ask its author for one whose paths stay inside the skill folder"


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveLimits:
    """Caps on what one archive may contain."""

    max_entries: int = 10_000
    max_total_bytes: int = 200 * 1024 * 1024
    max_file_bytes: int = 50 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveMember:
    """One checked entry: a relative path and what it is."""

    name: str  # normalised posix path, relative, no trailing slash
    kind: str  # "file" | "dir" | "symlink"
    size: int = 0
    link_target: str | None = None
    executable: bool = False
    info: zipfile.ZipInfo | None = None


_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, EOFError)


def _damaged(archive: Path, exc: BaseException) -> InstallError:
    return InstallError(
        f"{archive.name}: damaged, encrypted or unsupported zip ({exc}); nothing was written",
        hint="download the archive again, or ask its author for an unencrypted zip",
        code="IS200",
    )


def _refuse(archive: Path, entry: str, why: str, code: str) -> InstallError:
    return InstallError(
        f"{archive.name}: refused entry {entry!r}: {why}; nothing was written", hint=_REFUSED_HINT, code=code
    )


def _normalise(archive: Path, raw: str) -> str:
    name = raw.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or name.startswith("//"):
        raise _refuse(archive, raw, "absolute path", "IS202")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise _refuse(archive, raw, "path goes up with '..'", "IS201")
    if any("\x00" in p for p in parts):
        raise _refuse(archive, raw, "NUL byte in name", "IS201")
    return "/".join(parts)


def _link_stays_inside(member_name: str, target: str) -> bool:
    if target.startswith("/") or "\\" in target or (len(target) > 1 and target[1] == ":"):
        return False
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(member_name), target))
    return joined != ".." and not joined.startswith("../") and joined != "."


def _classify(
    archive: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ArchiveLimits
) -> ArchiveMember:
    name = _normalise(archive, info.filename)
    mode = (info.external_attr >> 16) & 0xFFFF
    fmt = stat.S_IFMT(mode)
    if fmt and fmt not in (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK):
        raise _refuse(archive, info.filename, "device file, FIFO or socket", "IS203")
    if fmt == stat.S_IFLNK:
        if info.file_size > 4096:
            raise _refuse(archive, info.filename, "symlink target too long", "IS204")
        target = zf.read(info).decode("utf-8", errors="replace")
        if not name or not _link_stays_inside(name, target):
            raise _refuse(archive, info.filename, f"symlink to {target!r} leaves the skill folder", "IS204")
        return ArchiveMember(name=name, kind="symlink", link_target=target, info=info)
    if info.is_dir() or fmt == stat.S_IFDIR:
        return ArchiveMember(name=name, kind="dir", info=info)
    if not name:
        raise _refuse(archive, info.filename, "empty file name", "IS201")
    if info.file_size > limits.max_file_bytes:
        raise _refuse(archive, info.filename, f"file larger than {limits.max_file_bytes} bytes", "IS205")
    return ArchiveMember(
        name=name, kind="file", size=info.file_size, executable=bool(mode & 0o111), info=info
    )


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
    try:
        zf = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise InstallError(
            f"{archive}: not a readable zip archive ({exc})",
            hint="a .zip or .skill file must be a zip archive of one skill folder",
            code="IS200",
        ) from exc
    try:
        with zf:
            return _check_members(archive, zf, limits)
    except _ZIP_ERRORS as exc:
        raise _damaged(archive, exc) from exc


def _check_members(archive: Path, zf: zipfile.ZipFile, limits: ArchiveLimits) -> tuple[ArchiveMember, ...]:
    infos = zf.infolist()
    if len(infos) > limits.max_entries:
        raise InstallError(
            f"{archive.name}: {len(infos)} entries, more than the limit of "
            f"{limits.max_entries}; nothing was written",
            hint=_REFUSED_HINT,
            code="IS205",
        )
    members = [_classify(archive, zf, info, limits) for info in infos]
    total = sum(m.size for m in members)
    if total > limits.max_total_bytes:
        raise InstallError(
            f"{archive.name}: {total} bytes uncompressed, more than the limit of "
            f"{limits.max_total_bytes}; nothing was written",
            hint=_REFUSED_HINT,
            code="IS205",
        )
    _check_conflicts(archive, members)
    return tuple(m for m in members if m.name)


def extract_archive(
    archive: Path, target: Path, *, limits: ArchiveLimits = ArchiveLimits()
) -> tuple[str, ...]:
    """Extract ``archive`` into the new folder ``target`` after checking every entry.

    ``target`` must not exist; on any failure it is removed again, so either the whole archive
    is there or nothing is. Returns the relative names of the files written.
    """
    members = check_archive(archive, limits=limits)
    target.mkdir(parents=False, exist_ok=False)
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in members:
                _write_member(zf, member, target, limits)
        _check_links_resolve_inside(archive, members, target)
    except BaseException as exc:
        remove_tree(target)
        if isinstance(exc, _ZIP_ERRORS):
            raise _damaged(archive, exc) from exc
        raise
    return tuple(m.name for m in members if m.kind == "file")


def _check_links_resolve_inside(archive: Path, members: tuple[ArchiveMember, ...], target: Path) -> None:
    # Lexical checks cannot see chains of links (a -> b/.., b -> ../x); resolve each for real.
    real_target = target.resolve()
    for member in members:
        if member.kind != "symlink":
            continue
        try:
            resolved = target.joinpath(*member.name.split("/")).resolve()
        except (OSError, RuntimeError):  # a loop of links
            raise _refuse(archive, member.name, "symlink loop", "IS204") from None
        if resolved != real_target and real_target not in resolved.parents:
            raise _refuse(
                archive,
                member.name,
                f"symlink chain to {member.link_target!r} leaves the skill folder",
                "IS204",
            )


def _write_member(zf: zipfile.ZipFile, member: ArchiveMember, target: Path, limits: ArchiveLimits) -> None:
    dest = target.joinpath(*member.name.split("/"))
    if member.kind == "dir":
        dest.mkdir(parents=True, exist_ok=True)
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    if member.kind == "symlink":
        dest.symlink_to(member.link_target or "")
        return
    assert member.info is not None
    written = 0
    with zf.open(member.info) as src, open(dest, "xb") as out:
        while chunk := src.read(1 << 16):
            written += len(chunk)
            if written > limits.max_file_bytes:
                raise InstallError(
                    f"{member.name}: grows past {limits.max_file_bytes} bytes when unpacked",
                    hint=_REFUSED_HINT,
                    code="IS205",
                )
            out.write(chunk)
    if member.executable:
        dest.chmod(0o755)
