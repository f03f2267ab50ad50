"""Reading instruction files: bounded, never failing, decoded like the reference agents.

Invalid UTF-8 becomes U+FFFD per maximal invalid sequence, which is what Rust's
``String::from_utf8_lossy`` (Codex) and WHATWG decoding (Claude Code) both do.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import reason

__all__ = ["ReadResult", "link_loops", "read_bounded", "skipped_entry_diagnostic", "usable_file"]

#: Files bigger than this are never read whole, even where the agent has no cap of its own.
HARD_READ_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadResult:
    """What reading one file gave: decoded text, bytes read, the file's size, problems."""

    text: str
    data_len: int
    size: int
    invalid_utf8: bool = False
    diagnostic: Diagnostic | None = None
    #: The file could not be opened or read (``diagnostic`` is then the IN101 saying why).
    unreadable: bool = False


def is_regular_file(path: Path) -> bool:
    """A file (symlinks followed); a dangling link, a folder or a device is not."""
    try:
        return path.is_file()
    except OSError:
        return False


def _entry_status(path: Path) -> tuple[bool, Diagnostic | None]:
    """``(is a file, IN106 diagnostic)`` for an instructions name, from one ``lstat``.

    Only a symbolic link is stat'ed again (through the link). ``(False, None)``: nothing there.
    """
    try:
        info = path.lstat()
    except OSError:
        return False, None  # nothing there: the usual case, nothing to say
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return True, None
    if stat.S_ISLNK(mode):
        looped, target_mode = False, None
        try:
            target_mode = path.stat().st_mode
        except OSError as exc:
            looped = exc.errno == errno.ELOOP
        if target_mode is not None and stat.S_ISREG(target_mode):
            return True, None
        try:
            target: Path | str = path.readlink()
        except OSError:
            target = "?"
        what, severity, fix = _link_problem(target_mode, looped, target)
    elif stat.S_ISDIR(mode):
        what, severity = "a folder, not a file", Severity.INFO
        fix = (
            "rename the folder if it is not meant to hold instructions; "
            "put the instructions in a file of that name"
        )
    else:
        what, severity = "not a regular file (a FIFO, socket or device)", Severity.WARNING
        fix = "replace it with a regular file, or remove it"
    return False, Diagnostic(
        code="IN106",
        severity=severity,
        message=f"instructions entry is {what}; skipped, as the agent does",
        fix=fix,
        path=path,
    )


def _link_problem(target_mode: int | None, looped: bool, target: Path | str) -> tuple[str, Severity, str]:
    """``(what, severity, fix)`` for a symbolic link that reaches no regular file."""
    if target_mode is not None and stat.S_ISDIR(target_mode):
        return (
            f"a symbolic link to a folder (to {target}), not a file",
            Severity.INFO,
            "point the link at a file, or remove it if it is not meant to hold instructions",
        )
    if target_mode is not None:
        return (
            f"a symbolic link to a FIFO, socket or device (to {target}), not a regular file",
            Severity.WARNING,
            "point the link at a regular file, or remove it",
        )
    kind = "a symbolic link that loops" if looped else "a broken symbolic link"
    return f"{kind} (to {target})", Severity.WARNING, "point the link at an existing file, or remove it"


def skipped_entry_diagnostic(path: Path) -> Diagnostic | None:
    """``IN106`` for an instructions name that is there but is no readable file, else ``None``.

    The agents skip such an entry without a word (a folder named AGENTS.md, a link to a file
    that is gone, a FIFO); the rendered block stays the same, this only says why it is missing.
    """
    return _entry_status(path)[1]


def link_loops(path: Path) -> bool:
    """Whether ``path`` is a symbolic link that never reaches a file: following it loops (ELOOP)."""
    try:
        path.stat()
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def usable_file(path: Path, diags: list[Diagnostic]) -> bool:
    """Whether ``path`` is a file to read (symlinks followed), like :func:`is_regular_file`.

    When it is not, but something is there (see :func:`skipped_entry_diagnostic`), the
    ``IN106`` diagnostic saying why it is skipped is appended to ``diags``.
    """
    ok, skipped = _entry_status(path)
    if skipped is not None:
        diags.append(skipped)
    return ok


def read_bounded(path: Path, limit: int | None = None) -> ReadResult:
    """Read at most ``limit`` bytes (``None``: up to :data:`HARD_READ_LIMIT`) of ``path``."""
    cap = HARD_READ_LIMIT if limit is None else min(limit, HARD_READ_LIMIT)
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(cap)
    except OSError as exc:
        unreadable = Diagnostic(
            code="IN101",
            severity=Severity.WARNING,
            message=f"cannot read instructions file: {reason(exc)}",
            fix="check the file's permissions, or remove it if it is not meant to be read",
            path=path,
        )
        return ReadResult(text="", data_len=0, size=0, diagnostic=unreadable, unreadable=True)
    try:
        text = data.decode("utf-8")
        invalid = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        invalid = not (len(data) < size and _valid_but_cut_short(data))
    diag: Diagnostic | None = None
    if limit is None and size > HARD_READ_LIMIT:
        diag = Diagnostic(
            code="IN103",
            severity=Severity.WARNING,
            message=f"instructions file is {size} bytes; only the first {HARD_READ_LIMIT} were read",
            fix="split the file or move detail into files the agent reads on demand",
            path=path,
        )
    return ReadResult(
        text=text, data_len=len(data), size=max(size, len(data)), invalid_utf8=invalid, diagnostic=diag
    )


def _valid_but_cut_short(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 but for a character a byte cap cut at its end (the agents
    give U+FFFD for it, but the file itself is not to blame)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return False
    return True


def invalid_utf8_diagnostic(path: Path) -> Diagnostic:
    """The warning for a file that is not valid UTF-8 (its bad bytes became U+FFFD)."""
    return Diagnostic(
        code="IN102",
        severity=Severity.WARNING,
        message="instructions file is not valid UTF-8; invalid bytes were replaced with U+FFFD",
        fix="re-save the file as UTF-8",
        path=path,
    )
