"""Reading the files bundled with a skill, confined to the skill's folder.

Every path a model or an MCP client names is checked before anything is opened: it must be
relative, must not use ``..`` or backslashes, and must encode as UTF-8 (JSON can carry a lone
surrogate such as ``"\\ud800"``, which is no character: :func:`check_text`). It is then opened
one component at a time, each with ``O_NOFOLLOW`` relative to the folder before it
(:func:`~skillshelf.skills.confined.open_beneath`): symlinks inside the skill folder are
followed by hand, one out of it is refused, and a folder swapped for a symlink during the
read cannot redirect it. What was opened is checked with ``fstat``: only a regular file with a
single link is read (``O_NONBLOCK``, so a FIFO cannot block).

A skill's files are read beneath the folder discovery found (:func:`read_bundled_file`,
:func:`discovered_folder`): its folder opened as the real folder at its path, every component
from ``/`` down with ``O_NOFOLLOW``, so a skill folder (or a folder above it) swapped for a
symlink since discovery is refused (``SS403``) instead of followed. A skill found through a
symlinked folder (Codex follows them) is read in the real folder discovery resolved the link to.

Hidden names are private: a path with a component that starts with ``.`` (``.env``,
``.git/config``) or names a version-control folder (:data:`VCS_FOLDERS`), or a symlink that
leads to one, is refused (``SS403``), as ``load_skill``'s listing leaves them out. The listing
shows only what a read serves (:func:`listable`): a name that a read refuses, or that would not
print as one plain line (a control, format or separator character), is left out.

A file is text when its first 1 MiB holds no NUL byte and is valid UTF-8, judged alike for every
piece and read (:mod:`skillshelf.skills.bundled_kind`); a binary file over a read's cap is
neither read (``SV413``) nor listed.

Hard-linked files (``st_nlink > 1``) are refused (``SS403``): a hard link gives the skill
folder the content of a file that lives elsewhere, which no path check can see. Installed
skills never hold one (``install`` copies files, git and zip archives cannot carry them).
"""

from __future__ import annotations

import base64
import dataclasses
import errno
import mimetypes
import os
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skillshelf.errors import (
    FileAccessError,
    NotFoundError,
    PathEscapeError,
    SkillshelfError,
    UsageError,
    reason,
)
from skillshelf.fileio import resolve_path
from skillshelf.skills.bundled_kind import TEXT_JUDGED_BYTES, binary_reason
from skillshelf.skills.confined import open_beneath, open_real_folder
from skillshelf.skills.defuse import defused
from skillshelf.skills.model import Skill

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "TEXT_JUDGED_BYTES",
    "VCS_FOLDERS",
    "SkillFile",
    "binary_reason",
    "check_relative_path",
    "check_text",
    "discovered_folder",
    "hidden_part",
    "listable",
    "listable_name",
    "read_bundled_file",
    "read_confined_file",
    "stays_inside",
]

DEFAULT_MAX_FILE_BYTES = 256 * 1024
VCS_FOLDERS = frozenset({"CVS", "_darcs"})
"""Version-control folders whose names do not start with a dot (``.git``, ``.hg``, ``.svn`` do)."""
_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINERS = frozenset("\u200c\u200d\u00ad")
"""Format characters of ordinary names (zero-width non-joiner and joiner: Persian, Indic and
emoji sequences; the soft hyphen), which print as part of the line; the other format
characters (bidirectional controls, invisible tag characters) do not list."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillFile:
    """One bundled file as handed to a model: UTF-8 text, or base64 for binary content."""

    skill: str
    path: str
    size: int
    mime_type: str
    text: str | None = None
    base64: str | None = None
    truncated: bool = False

    @property
    def is_binary(self) -> bool:
        return self.text is None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "skill": self.skill,
            "path": self.path,
            "size": self.size,
            "mime_type": self.mime_type,
            "encoding": "base64" if self.is_binary else "utf-8",
            "truncated": self.truncated,
        }
        out["content"] = self.base64 if self.is_binary else self.text
        return out


def check_text(text: str, *, what: str) -> str:
    """``text`` when it encodes as UTF-8; else ``UsageError`` (SV400) naming the first character
    that does not (a lone surrogate), escaped so the message itself always encodes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = ascii(text[exc.start : exc.end])
        raise UsageError(
            f"the {what} holds {bad} at position {exc.start}, which is not a Unicode character "
            "(a lone surrogate)",
            hint=f"send the {what} as valid UTF-8 text",
            code="SV400",
        ) from None
    return text


def check_relative_path(path: str) -> PurePosixPath:
    """Refuse a path that is empty, absolute, uses ``..``/backslashes, holds NUL or cannot be
    encoded as UTF-8; return it parsed."""
    if not isinstance(path, str) or not path.strip():
        raise UsageError(
            "the file path is empty",
            hint="name a file inside the skill folder, e.g. 'SKILL.md'",
            code="SV400",
        )
    check_text(path, what="file path")
    if "\x00" in path:
        raise PathEscapeError("the path contains a NUL byte", path=path.replace("\x00", "\\0"))
    if "\\" in path:
        raise PathEscapeError(
            f"backslashes are not allowed in skill file paths: {path!r}",
            path=path,
            hint="use forward slashes, relative to the skill folder",
        )
    if path.startswith("/") or path.startswith("~") or (len(path) > 1 and path[1] == ":"):
        raise PathEscapeError(f"absolute paths are refused: {path!r}", path=path)
    parsed = PurePosixPath(path)
    if any(part == ".." for part in parsed.parts):
        raise PathEscapeError(f"'..' is not allowed in skill file paths: {path!r}", path=path)
    if not parsed.parts or parsed == PurePosixPath("."):
        raise UsageError(
            "the file path names the skill folder itself", hint="name a file inside it", code="SV400"
        )
    return parsed


def hidden_part(parts: tuple[str, ...]) -> str | None:
    """The first of ``parts`` that is hidden (starts with ``.``) or a version-control folder."""
    return next((part for part in parts if part.startswith(".") or part in VCS_FOLDERS), None)


def _refuse_hidden(parts: tuple[str, ...], original: str, *, via: str = "") -> None:
    part = hidden_part(parts)
    if part is not None:
        raise PathEscapeError(
            f"{original!r} {via}is hidden ({part!r}): hidden files and version-control folders are "
            "not served",
            path=original,
            hint="read one of the files load_skill lists; hidden files (.env, .git) stay private",
        )


def _real_parts(folder: Path, rel: PurePosixPath) -> tuple[str, ...]:
    """``rel``'s components with its symlinks followed, relative to ``folder``'s real path."""
    base = os.path.realpath(folder)
    real = os.path.relpath(os.path.realpath(folder.joinpath(*rel.parts)), base)
    return () if real == "." else tuple(PurePosixPath(real).parts)


def _open_inside(folder: Path, rel: PurePosixPath, original: str, *, exact: bool) -> int:
    try:
        return open_beneath(folder, rel.parts, original, exact=exact)
    except (FileNotFoundError, NotADirectoryError):
        raise NotFoundError(
            f"no file {original!r} in skill folder {folder}",
            hint="call load_skill to see the list of bundled files",
            code="SV404",
        ) from None
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise FileAccessError(  # symlink loops, permission problems
                f"cannot open {original!r}: {reason(exc)}",
                hint="check the file's symlinks and permissions",
                code="SV405",
            ) from None
        raise NotFoundError(
            f"no file {original!r} in skill folder {folder}: the path is longer than file names can be",
            hint="call load_skill to see the list of bundled files",
            code="SV404",
        ) from None


def _refuse_special(mode: int, original: str) -> None:
    if stat.S_ISDIR(mode):
        raise UsageError(
            f"{original!r} is a folder, not a file",
            hint="name one of the files listed by load_skill",
            code="SV400",
        )
    if not stat.S_ISREG(mode):
        kind = "FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device file"
        raise PathEscapeError(
            f"{original!r} is a {kind}; only regular files can be read",
            path=original,
            hint="skills may only expose regular files",
        )


def discovered_folder(skill: Skill) -> Path:
    """The real folder ``skill``'s files are read in: its folder when no symlink is on the path to
    it; else, for a skill discovery found through a symlinked folder (its real ``SKILL.md`` is a
    ``SKILL.md``), the real folder the link led to then. Raises :class:`PathEscapeError` when the
    folder (or one above it) has become a symlink since discovery."""
    try:
        os.close(open_real_folder(skill.folder))
    except PathEscapeError:
        real = skill.real_path
        if real is None or real.name != skill.path.name:
            raise
        return _linked_folder(skill.folder, real)
    except OSError:
        pass  # missing: the read says so (SV404)
    return skill.folder


def _linked_folder(folder: Path, real_skill_md: Path) -> Path:
    """The real folder of a skill found through a symlinked ``folder``: where the link leads
    now when its ``SKILL.md`` there still resolves to the file discovery found (a ``SKILL.md``
    that is itself a link: its files are beside the link, not beside the file), else the folder
    of that file (the link pointed elsewhere since: the files discovery found stay read)."""
    try:
        now = resolve_path(folder)
    except OSError:
        return real_skill_md.parent
    if now != real_skill_md.parent and os.path.realpath(now / real_skill_md.name) == str(real_skill_md):
        return now
    return real_skill_md.parent


def read_bundled_file(skill: Skill, path: str, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> SkillFile:
    """:func:`read_confined_file` beneath :func:`discovered_folder`, opened as that real folder.
    An untrusted skill's text comes :func:`~skillshelf.skills.defuse.defused` (every closing
    ``skill`` tag written ``<\\/skill>``), as its ``load_skill`` fragment does, so what the
    untrusted note says of its text holds for every file a read serves."""
    folder = discovered_folder(skill)
    file = read_confined_file(folder, path, skill=skill.name, max_bytes=max_bytes, exact=True)
    if skill.trusted or file.text is None:
        return file
    return dataclasses.replace(file, text=defused(file.text))


def read_confined_file(
    folder: Path,
    path: str,
    *,
    skill: str,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    exact: bool = False,
    max_binary_bytes: int | None = None,
) -> SkillFile:
    """Read ``path`` (relative to ``folder``) as text or base64, refusing anything that leaves it.

    Text (:func:`~skillshelf.skills.bundled_kind.binary_reason`, judged on the file's first
    :data:`TEXT_JUDGED_BYTES` whatever ``max_bytes``) over ``max_bytes`` is cut at the cap, at a
    character's start (``truncated=True``); binary files over the cap are refused (``SV413``),
    since half an image is of no use (``max_binary_bytes``: their cap when it is not
    ``max_bytes``, as a piece read from an offset reads past one answer's cap). With ``exact``,
    ``folder`` is a resolved path opened as the real folder there (a symlink on its path now:
    ``SS403``).
    """
    rel = check_relative_path(path)
    _refuse_hidden(rel.parts, path)
    fd = _open_inside(folder, rel, path, exact=exact)
    try:
        _refuse_hidden(_real_parts(folder, rel), path, via="leads to a file that ")
        info = os.fstat(fd)
        _refuse_special(info.st_mode, path)
        if info.st_nlink > 1:
            raise PathEscapeError(
                f"{path!r} is hard-linked ({info.st_nlink} links); its content may belong to a file "
                "outside the skill folder",
                path=path,
                hint="replace the hard link with a copy of the file",
            )
    except BaseException:
        os.close(fd)
        raise
    judged = max(max_bytes, TEXT_JUDGED_BYTES)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(judged + 1)
    mime = mimetypes.guess_type(rel.name)[0] or "application/octet-stream"
    rel_text = rel.as_posix()
    why = binary_reason(data[:judged], cut=len(data) > judged)
    if why is not None:
        cap = max_bytes if max_binary_bytes is None else max_binary_bytes
        if len(data) > cap:
            raise FileAccessError(
                f"{path!r} is a binary file ({why}) of {info.st_size:,} bytes, over the "
                f"{cap:,}-byte cap for a binary file, which is read whole or not at all",
                hint="read the file directly from disk if you really need it",
                code="SV413",
            )
        return SkillFile(
            skill=skill,
            path=rel_text,
            size=info.st_size,
            mime_type=mime,
            base64=base64.b64encode(data).decode("ascii"),
        )
    truncated = len(data) > max_bytes
    text = data[:max_bytes].decode("utf-8", errors="ignore")  # valid: only a character cut at the cap goes
    if mime == "application/octet-stream":
        mime = "text/markdown" if rel.suffix.lower() == ".md" else "text/plain"
    return SkillFile(
        skill=skill, path=rel_text, size=info.st_size, mime_type=mime, text=text, truncated=truncated
    )


def listable(folder: Path, relative: str) -> bool:
    """Whether ``load_skill`` lists ``relative``: a read of it is not refused for its name
    (:func:`check_relative_path`, no hidden part), the name prints as one plain line, its target
    (symlinks followed) is inside ``folder`` and not hidden, and is a regular file with a single
    link (a read refuses a hard-linked one)."""
    if not listable_name(relative):
        return False
    rel = PurePosixPath(relative)
    return (
        stays_inside(folder, relative)
        and hidden_part(_real_parts(folder, rel)) is None
        and _one_regular_file(folder / relative)
    )


def listable_name(relative: str) -> bool:
    """The part of :func:`listable` its name decides: a read does not refuse it for its name
    (:func:`check_relative_path`, no hidden part) and it prints as one plain line. A plain file
    (no symlink on its way) with such a name and a single link is listable as it is."""
    try:
        rel = check_relative_path(relative)
    except SkillshelfError:
        return False
    return not hidden_part(rel.parts) and not any(_unprintable(c) for c in relative)


def _one_regular_file(path: Path) -> bool:
    """Whether ``path`` (symlinks followed) is a regular file with one link, as a read requires."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1


def _unprintable(char: str) -> bool:
    return char not in _JOINERS and unicodedata.category(char) in _UNPRINTABLE


def stays_inside(folder: Path, relative: str) -> bool:
    """Whether ``relative`` resolves (symlinks followed) to something inside ``folder``."""
    base = folder.resolve()
    try:
        return base.joinpath(relative).resolve(strict=True).is_relative_to(base)
    except (OSError, RuntimeError):
        return False
