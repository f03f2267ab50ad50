"""The consolidated memory files as Phase 2 read them, to tell whether someone changed them
while the model worked.

``MEMORY.md``, ``memory_summary.md`` and ``skills/`` are plain files a person can open and
mend. A consolidation is written from the files as they were when its prompt was built, so an
edit made during the model call would be overwritten by text that never saw it. Phase 2 takes
an :class:`OutputSnapshot` before the prompt and writes nothing when :func:`changed_since`
names a file; the next run consolidates again from the files as they are then.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["OutputSnapshot", "changed_since", "edited_note", "snapshot"]

TOP_FILES = ("MEMORY.md", "memory_summary.md")


@dataclass(frozen=True, slots=True)
class OutputSnapshot:
    """Relative POSIX path -> SHA-256 of the file's bytes (an unreadable file: its error)."""

    digests: dict[str, str]


def snapshot(root: Path) -> OutputSnapshot:
    """The consolidated files of the memory folder ``root`` as they are now."""
    paths = [root / name for name in TOP_FILES if (root / name).is_file()]
    skills = root / "skills"
    if skills.is_dir() and not skills.is_symlink():
        paths += sorted(p for p in skills.rglob("*") if p.is_file())
    return OutputSnapshot({p.relative_to(root).as_posix(): _digest(p) for p in paths})


def changed_since(root: Path, before: OutputSnapshot) -> tuple[str, ...]:
    """The files of ``root`` added, changed or removed since ``before``, sorted."""
    now = snapshot(root).digests
    return tuple(sorted(p for p in {*before.digests, *now} if before.digests.get(p) != now.get(p)))


def edited_note(edited: tuple[str, ...]) -> str:
    """What a run that wrote nothing because of :func:`changed_since` tells the user."""
    named = ", ".join(edited[:3]) + (f" and {len(edited) - 3} more" if len(edited) > 3 else "")
    return (
        f"nothing written: {named} changed while the model worked (edited by hand?); "
        "the next `skillshelf memory run` consolidates again from the files as they are now"
    )


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror or type(exc).__name__}"
