"""Text-level helpers of the config edits (:mod:`skillshelf.config.edit`).

An edit is offered as one or more candidate texts (tomlkit's in-place edit with a new table
moved above the comments of the next header, tomlkit's edit as it is, then the entry appended
after the last line); :func:`first_faithful` keeps the first that parses to exactly
the expected data, so no edit can move, drop or change another key.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shlex
import tomllib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from skillshelf import fileio
from skillshelf.errors import ConfigError, FileAccessError, reason

__all__ = [
    "Candidate",
    "appended",
    "comments_kept_below",
    "editing",
    "first_faithful",
    "inside",
    "outside_of",
    "refuse_read_only",
    "same_newlines",
    "symlink_loop",
    "toml_string",
    "tomlkit_document",
    "write_user_file",
    "write_config",
]

Candidate = Callable[[], str]

#: Seconds an edit waits for another command editing a file of the same folder: edits take
#: milliseconds, so a holder past this is stuck (a stopped process), not busy.
EDIT_WAIT = 10.0


@contextlib.contextmanager
def editing(path: Path) -> Iterator[None]:
    """Hold the lock of ``path``'s folder (:func:`skillshelf.fileio.folder_lock`) while the file
    is read, changed and written, so two commands editing it at once both keep their change.

    Raises:
        ConfigError: another command kept the folder locked for :data:`EDIT_WAIT` seconds
            (``CF113``); nothing was changed.
        FileAccessError: the folder cannot be created or opened.
    """
    held = contextlib.ExitStack()
    try:
        held.enter_context(fileio.folder_lock(path.parent, wait=EDIT_WAIT))
    except fileio.FolderBusy as exc:
        raise ConfigError(
            f"another command has been editing a file in {path.parent} for {EDIT_WAIT:.0f} s; "
            "nothing was changed",
            path=path,
            code="CF113",
            hint="wait for the other skillshelf command to end (or stop it), then run again",
        ) from exc
    except OSError as exc:
        raise FileAccessError(
            f"cannot open the folder {path.parent}: {reason(exc)}",
            hint="check that it is a folder you may write to",
        ) from exc
    with held:
        yield


def same_newlines(text: str, original: str | None) -> str:
    """New lines use the file's own line ending (a CRLF file stays CRLF)."""
    if original is None or "\r\n" not in original:
        return text
    return re.sub(r"(?<!\r)\n", "\r\n", text)


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string (quotes, backslashes and control characters escaped)."""
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def tomlkit_document(text: str | None) -> Any:
    """``text`` parsed by tomlkit (ending in a newline, so an added key starts a line of its own),
    or None when tomlkit refuses it: then only the appended edit is offered."""
    import tomlkit

    source = text or ""
    if source and not source.endswith("\n"):
        source += "\n"
    try:
        return tomlkit.parse(source)
    except Exception:  # tomlkit refuses some valid TOML
        return None


def appended(original: str | None, block: str) -> str:
    """``block`` after the last line of the file: a new table there cannot take over any key."""
    text = original or ""
    if text and not text.endswith("\n"):
        text += "\n"
    return text + ("\n" if text.strip() else "") + block


def comments_kept_below(original: str | None, make: Candidate) -> tuple[Candidate, Candidate]:
    """Two candidates from ``make`` (run once): its text with :func:`below_comments` applied, then
    its text as it is (for a file where moving the comment lines would change a value)."""
    made: list[str | BaseException] = []

    def as_made() -> str:
        if not made:
            try:
                made.append(make())
            except Exception as exc:  # tomlkit raises assorted errors: each candidate re-raises it
                made.append(exc)
        if isinstance(made[0], BaseException):
            raise made[0]
        return made[0]

    return (lambda: below_comments(original, as_made())), as_made


def below_comments(original: str | None, edited: str) -> str:
    """``edited`` (``original`` with a table inserted, as tomlkit does) with that table moved above
    the comment lines that head the next table, so they keep heading it.

    tomlkit inserts a new table after the whole body of the table before it, whose last lines
    are the comments written above the next header. The table goes instead after the last key
    of the table before it and the comment lines directly under that key (up to the first blank
    line); comments after a blank line, or all of them when no blank line parts them from the
    key, stay above the next header. At the end of the file the table stays last, a blank line
    above it. Any other edit is returned as it is.
    """
    if not original:
        return edited
    old = (original if original.endswith("\n") else original + "\n").splitlines(keepends=True)
    new = edited.splitlines(keepends=True)
    found = _inserted(old, new)
    if found is None:
        return edited
    at, block = found
    top = at
    while top > 0 and _trivia(old[top - 1]):
        top -= 1
    split = at if at == len(old) else _comment_block_start(old, top, at)
    if split == at and not (at == len(old) and at > 0 and old[at - 1].strip()):
        return edited  # no comment heads the next table, and no comment line is glued above the table
    before = ["\n"] if split > 0 and old[split - 1].strip() else []
    after = ["\n"] if split < len(old) and old[split].strip() else []
    return "".join([*old[:split], *before, *block, *after, *old[split:]])


def _trivia(line: str) -> bool:
    """A blank or comment line; one with a triple quote may end a multi-line string, so it is not."""
    stripped = line.strip()
    return not stripped or (stripped.startswith("#") and '"""' not in stripped and "'''" not in stripped)


def _comment_block_start(lines: Sequence[str], top: int, at: int) -> int:
    """Where the comments above the header at ``at`` start (``at`` when there are none): after
    the comment lines glued under the last key (``lines[top:at]`` are blank or comment lines)."""
    if not lines[at].lstrip().startswith("[") or not any(line.strip() for line in lines[top:at]):
        return at
    blanks = [i for i in range(top, at) if not lines[i].strip()]
    return blanks[0] if blanks else top


def _inserted(old: Sequence[str], new: Sequence[str]) -> tuple[int, list[str]] | None:
    """``(line, block)`` when ``new`` is ``old`` with the lines of ``block`` (a table: its header
    first, blank lines around it left out) inserted before ``old[line]``; else None."""
    if len(new) <= len(old):
        return None
    same = [a.rstrip("\r\n") == b.rstrip("\r\n") for a, b in zip(old, new, strict=False)]
    at = same.index(False) if False in same else len(old)
    tail = len(old) - at
    ends = zip(old[at:], new[len(new) - tail :], strict=True)
    if any(a.rstrip("\r\n") != b.rstrip("\r\n") for a, b in ends):
        return None
    block = list(new[at : len(new) - tail])
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    if not block or not block[0].lstrip().startswith("["):
        return None
    block[-1] = block[-1] if block[-1].endswith("\n") else block[-1] + "\n"
    return at, block


def _normal(value: Any) -> Any:
    """Parsed TOML with NaN made comparable (``nan != nan``)."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def first_faithful(
    path: Path, candidates: Sequence[tuple[Candidate, dict[str, Any]]], original: str | None, by_hand: str
) -> str:
    """The first candidate text that parses to exactly its expected data: the edit and nothing else.

    tomlkit keeps comments and layout but, on some valid files, places a new table above dotted
    keys (which then belong to it), glues a new key to a last line without a newline, rejects
    the document or raises; every candidate is therefore checked by parsing it again, and a
    file no candidate can edit faithfully is left as it is (``CF112``).
    """
    for make, expected in candidates:
        try:
            text = same_newlines(make(), original)
            if _normal(tomllib.loads(text)) == _normal(expected):
                return text
        except Exception:  # tomlkit raises assorted errors on odd layouts: try the next way
            continue
    raise ConfigError(
        "this file cannot be edited without changing another setting; nothing was changed",
        path=path,
        code="CF112",
        hint=f"add it by hand: {by_hand}",
    )


def symlink_loop(path: Path) -> ConfigError:
    """``CF110``: the config file is a symlink loop."""
    return ConfigError(
        f"{path.name} is a symlink loop; nothing was changed",
        path=path,
        code="CF110",
        hint="remove the link (or point it at a real file) and run again",
    )


def outside_of(path: Path, root: Path) -> Path | None:
    """Where ``path`` really is when a symlink (the file itself, or a folder on the way to it) leads
    out of ``root``; None when it stays inside (or a symlink loop stops the walk: nothing can be
    written through a loop). A project's files are written only where this is None: a cloned
    repository can commit a link to any file of the user's."""
    try:
        real, base = fileio.resolve_path(path), fileio.resolve_path(root)
    except OSError:
        return None
    return None if real == base or base in real.parents else real


def inside(path: Path, root: Path) -> Path:
    """``path``, after checking with :func:`outside_of` that writing it stays inside ``root``.

    Raises:
        ConfigError: a symlink leads out of ``root`` (``CF114``); nothing was read or written.
    """
    real = outside_of(path, root)
    if real is None:
        return path
    raise ConfigError(
        f"this project file is a symlink (or lies in a symlinked folder) that leads out of the project, "
        f"to {real}; nothing was changed",
        path=path,
        code="CF114",
        hint=f"a project's files are written only inside {root}: remove the link (never what it points "
        f"to), or edit {real} yourself if that file is the one you meant",
    )


def refuse_read_only(path: Path) -> None:
    """Raise when the file at ``path`` (a symlink followed) has no write permission, for anyone
    (``chmod a-w``, which root's writes ignore) or for this process: whoever locked it wants it
    left alone, and an edit would replace it anyway (a rename in a writable folder).

    Raises:
        ConfigError: the file is read-only (``CF117``); nothing was changed.
    """
    try:
        info = os.stat(path)
    except OSError:
        return  # no file yet (the edit creates it), or one that cannot be reached: found elsewhere
    if info.st_mode & 0o222 and os.access(path, os.W_OK):
        return
    raise ConfigError(
        "the file is read-only (it has no write permission); nothing was changed",
        path=path,
        code="CF117",
        hint=f"make it writable (chmod u+w {shlex.quote(str(path))}) and run again, or edit it by hand",
    )


def write_config(path: Path, text: str, *, within: Path | None = None) -> None:
    """Replace the TOML file ``path`` with ``text`` (checked to parse) through :func:`write_user_file`,
    keeping the byte-order mark the file started with (edits read the text without it)."""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - every candidate was parsed
        raise ConfigError(f"refusing to write invalid TOML: {exc}", path=path) from exc
    bom = fileio.BYTE_ORDER_MARK if fileio.had_byte_order_mark(path) else ""
    write_user_file(path, bom + text, within=within)


def write_user_file(path: Path, text: str, *, within: Path | None = None) -> None:
    """Write ``text`` to ``path`` in one step (a temporary file beside it, then a rename), keeping
    the file's permissions; a symlinked file is written where the link points, the link kept.
    With ``within`` (a project's folder) that place must be inside it (:func:`inside`).

    Raises:
        ConfigError: ``path`` is a symlink loop (``CF110``), or leads out of ``within`` (``CF114``).
        FileAccessError: the file cannot be written.
    """
    if within is not None:
        inside(path, within)
    if path.is_symlink():
        try:
            path = fileio.resolve_path(path)  # edit the file a dotfiles link points to; keep the link
        except OSError as exc:  # a loop made after the file was read
            raise symlink_loop(path) from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fileio.write_atomic(path, text, mode=0o644, keep_mode=True, prefix=f".{path.name}.")
    except OSError as exc:
        raise FileAccessError(
            f"cannot write {path}: {reason(exc)}", hint="check the folder's permissions"
        ) from exc
