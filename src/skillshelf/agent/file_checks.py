"""What the folder tools check before they replace a file, and how they show one.

* :func:`refuse_locked`: a file without write permission (``chmod 444``, for anyone: root's
  writes ignore the bits; or for this process) or in a folder this process cannot write is
  left alone (``AG010``). The tools replace a file by a rename, which a read-only file does
  not stop, so the permission is checked first, as ``chmod a-w`` asks.
* :func:`refuse_lossy_overwrite`: ``read_file`` shows a file that is not UTF-8 with U+FFFD
  for the bytes that are not (and says so); writing such text back would replace those bytes
  with U+FFFD for good. ``write_file`` over a file that is not UTF-8 is refused when the
  content holds more U+FFFD than the file (``AG011``); content without them replaces it (a
  file converted or rewritten on purpose), and the result says the file is UTF-8 now.
* :func:`refuse_new_markers`: text that adds the redaction marker bash's output carries.
* :func:`shown_text`: a file's bytes as the model reads them, with a note when they are not UTF-8.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from skillshelf.agent.shell_env import REDACTED

__all__ = [
    "LOCKED_CODE",
    "LOSSY_CODE",
    "REPLACEMENT",
    "FolderError",
    "current_text",
    "encoded",
    "not_utf8_note",
    "refuse_locked",
    "refuse_lossy_overwrite",
    "refuse_new_markers",
    "shown_text",
]

LOCKED_CODE = "AG010"
LOSSY_CODE = "AG011"
REPLACEMENT = "\ufffd"


class FolderError(Exception):
    """A tool call the workspace refuses (reported to the model, never raised to the loop)."""


def refuse_locked(path: Path, raw_path: object) -> None:
    """A ``FolderError`` when ``path`` exists without write permission (for anyone, or for this
    process), or its folder (or, when that does not exist yet, the nearest parent that does: the
    write would make the folders there) cannot be written by this process."""
    try:
        info = os.stat(path)
    except OSError:
        info = None  # no file yet: the folder decides
    if info is not None and not (info.st_mode & 0o222 and os.access(path, os.W_OK)):
        raise FolderError(
            f"{LOCKED_CODE} {raw_path!r} is read-only (it has no write permission); nothing was "
            f"written\nfix: leave it alone, or if the task needs it changed, make it writable first "
            f"(bash: chmod u+w {shlex.quote(str(raw_path))})"
        )
    folder = path.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise FolderError(
            f"{LOCKED_CODE} the folder of {raw_path!r} is not writable; nothing was written\n"
            "fix: write somewhere else in the workspace, or leave the file alone"
        )
    ancestor = _nearest_existing(folder)
    if ancestor != folder and os.path.isdir(ancestor) and not os.access(ancestor, os.W_OK | os.X_OK):
        raise FolderError(
            f"{LOCKED_CODE} {raw_path!r} would need a new folder in {str(ancestor)!r}, which is not "
            "writable; nothing was written\nfix: write somewhere else in the workspace, or leave "
            "the file alone"
        )


def _nearest_existing(folder: Path) -> Path:
    """``folder`` or its nearest parent that exists (where the folders a write makes would start)."""
    while not os.path.exists(folder) and folder.parent != folder:  # False, not an error, when unsearchable
        folder = folder.parent
    return folder


def not_utf8_note(data: bytes) -> str | None:
    """What to tell the model about ``data`` that is not UTF-8 (None when it is)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (
            f"[note {LOSSY_CODE}: this file is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); below, each byte that is not is shown as {REPLACEMENT}, so this is not the "
            "file's exact content. write_file and edit_file will not write it back; use bash "
            "(iconv, sed) to change the file]"
        )
    return None


def shown_text(data: bytes) -> str:
    """``data`` decoded (U+FFFD for bytes that are not UTF-8), with a note first when some are not."""
    text = data.decode("utf-8", errors="replace")
    note = not_utf8_note(data)
    return text if note is None else f"{note}\n{text}"


def refuse_lossy_overwrite(path: Path, content: str, raw_path: object) -> str:
    """A ``FolderError`` when ``path`` is a file that is not UTF-8 and ``content`` holds more
    U+FFFD than it does (text from a lossy read would destroy its bytes); else what the write's
    result should add (that the file is UTF-8 now, or nothing)."""
    if not path.is_file():
        return ""
    data = path.read_bytes()
    if not_utf8_note(data) is None:
        return ""
    if content.count(REPLACEMENT) > data.count(REPLACEMENT.encode("utf-8")):
        raise FolderError(
            f"{LOSSY_CODE} {raw_path!r} is not UTF-8 text, and the content holds {REPLACEMENT} "
            "(what read_file shows for the bytes that are not UTF-8): writing it would replace "
            "those bytes for good; nothing was written\n"
            "fix: change the file with bash (iconv to convert it, sed for an edit), or write "
            f"content without {REPLACEMENT} to replace the file whole"
        )
    return " (it was not UTF-8 text; it is UTF-8 now)"


def current_text(path: Path) -> str:
    """What ``path`` holds now as text (``""`` when there is no such file)."""
    if not path.is_file():
        return ""
    return path.read_bytes().decode("utf-8", errors="replace")


def refuse_new_markers(content: str, current: str, raw_path: object) -> None:
    """A ``FolderError`` when ``content`` holds more redaction markers than the file's
    ``current`` text: bash's output is redacted, and writing it back would put the marker
    where the secret was."""
    added = content.count(REDACTED) - current.count(REDACTED)
    if added > 0:
        how = (
            "Read the file with read_file (it shows the file exactly, secrets included) and write "
            "or edit from that"
            if current
            else "To write a new file that must hold this text, write it with bash"
        )
        raise FolderError(
            f"the text holds {REDACTED}, the marker that replaces secrets in bash's output, "
            f"{added} more time(s) than {raw_path!r} does; nothing was written. {how}"
        )


def encoded(text: str, key: str) -> bytes:
    """``text`` as UTF-8, or an error naming the first character that cannot be written."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise FolderError(
            f"argument {key!r} holds {text[exc.start]!r} at index {exc.start}, a lone surrogate that "
            "cannot be written as UTF-8; nothing was written (send the character itself, or a pair)"
        ) from None
