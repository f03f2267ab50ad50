"""The notes (``SV210``) a watch of skill folders logs: why a running watch ended, a folder that
cannot be watched, and a skill folder that cannot be read (its skills are gone until it can)."""

from __future__ import annotations

import errno
import logging
import os
import re
from pathlib import Path

__all__ = ["UNDECODABLE", "leaves", "note_blocked", "note_failed", "note_unwatched"]

log = logging.getLogger("skillshelf.serve.watch")

Folders = tuple[Path, ...]
_BLOCKED = "blocked: "


UNDECODABLE = re.compile(r'Unable to decode path "(.*)" to string')
"""watchfiles' error for a path notify could not decode (a name that is not UTF-8)."""


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside ``exc`` (itself unless it is a group)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def note_failed(exc: Exception, paths: Folders, noted: set[str], waits_for: Folders | None) -> None:
    """Log why a running watch of ``paths`` ended (SV210), once per cause, with a fix: the watch of
    the skill folders, or (``waits_for`` not None) of folders above skill folders still missing."""
    for leaf in leaves(exc):
        text = f"{type(leaf).__name__}: {leaf}"
        if text in noted:
            continue
        noted.add(text)
        bad = UNDECODABLE.search(str(leaf))
        outcome = "it restarts" + ("; the skill folders stay watched" if waits_for is not None else "")
        if waits_for is not None:
            spot = os.path.dirname(bad[1]) if bad else getattr(leaf, "filename", None)
            roots = [str(root) for root in waits_for if spot and str(root).startswith(f"{spot}{os.sep}")]
            what = f"the watch of {', '.join(map(str, paths))} (until skill folders below appear) for changes"
            fix = "if this repeats, start the server again"
            fix = f"make the path to {spot} readable" if isinstance(leaf, PermissionError) else fix
            fix = f"rename {bad[1]} to valid UTF-8 text or move it out of {spot}" if bad else fix
            fix += f", or create {', '.join(roots)} (then {spot} needs no watch)" if bad and roots else ""
        else:
            more = f" and {len(paths) - 1} folder(s) below it" if len(paths) > 1 else ""
            what = f"cannot watch skill folders for changes: the watch of {paths[0] if paths else '?'}{more}"
            fix = "check that folder; if this repeats, start the server again"
            fix = f"rename {bad[1]} to valid UTF-8 text, or move it out of the skill folders" if bad else fix
        log.warning("SV210: %s stopped: %s; %s (fix: %s)", what, text, outcome, fix)


def note_unwatched(exc: OSError, noted: set[str]) -> None:
    """Log a folder that cannot be watched (SV210), once per message while the watch runs; a folder
    gone since the walk needs no note (its parent's change reloads the skills)."""
    text = str(exc)
    if isinstance(exc, FileNotFoundError) or text in noted:
        return
    noted.add(text)
    if exc.errno == errno.EACCES or isinstance(exc, PermissionError):
        fix = "make the folder readable, or remove the symlink in the skill root that leads to it"
    elif exc.errno == errno.ENOSPC or "limit" in text:
        fix = "raise fs.inotify.max_user_watches (sysctl), or keep large folders out of the skill roots"
    else:
        fix = "check the folder and the symlinks that lead to it"
    note = "SV210: cannot watch a skill folder for changes: %s; it is skipped, the other folders stay watched"
    log.warning(note + " (fix: %s)", text, fix)


def note_blocked(blocked: frozenset[Path], noted: set[str], parents: Folders = ()) -> None:
    """Log each watched folder that cannot be read (SV210), once while it cannot: its skills
    are left out until it can, which the watch looks at again and again; of ``parents`` (folders
    watched for skill folders to appear below them), that a skill folder made there is not seen."""
    noted.difference_update(
        {text for text in noted if text.startswith(_BLOCKED)} - {_BLOCKED + str(f) for f in blocked}
    )
    for folder in sorted(blocked):
        text = _BLOCKED + str(folder)
        if text in noted:
            continue
        noted.add(text)
        what = "the skill folder %s cannot be read now; its skills are left out until it can"
        if folder in parents:
            what = "the folder %s cannot be read now; a skill folder below it is not seen until it can"
        log.warning(
            f"SV210: {what}, which is checked every few seconds "
            "(fix: make the folder readable again, and the folders above it searchable)",
            folder,
        )
