"""Text-level helpers of the config edits (:mod:`skillshelf.config.edit`).

An edit is offered as one or more candidate texts (tomlkit's in-place edit, then the entry
appended after the last line); :func:`first_faithful` keeps the first that parses to exactly
the expected data, so no edit can move, drop or change another key.
"""

from __future__ import annotations

import contextlib
import math
import re
import tomllib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from skillshelf import fileio
from skillshelf.errors import ConfigError, FileAccessError, reason

__all__ = [
    "Candidate",
    "appended",
    "editing",
    "first_faithful",
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


def write_config(path: Path, text: str) -> None:
    """Replace the TOML file ``path`` with ``text`` (checked to parse) through :func:`write_user_file`,
    keeping the byte-order mark the file started with (edits read the text without it)."""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - every candidate was parsed
        raise ConfigError(f"refusing to write invalid TOML: {exc}", path=path) from exc
    bom = fileio.BYTE_ORDER_MARK if fileio.had_byte_order_mark(path) else ""
    write_user_file(path, bom + text)


def write_user_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step (a temporary file beside it, then a rename), keeping
    the file's permissions; a symlinked file is written where the link points, the link kept.

    Raises:
        ConfigError: ``path`` is a symlink loop (``CF110``).
        FileAccessError: the file cannot be written.
    """
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
