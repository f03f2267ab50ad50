"""Why no skill answers to a name that a ``SKILL.md`` discovery skipped does answer to.

A skill whose frontmatter does not parse, or that has no name, is left out of the skills (its
finding says why). A user or a model that asks for it by name should hear that it exists and
what to mend, not that there is no such skill: :func:`skipped_error` finds the skipped file by
its folder's name or by a plain ``name:`` line, and says its first problem
(:class:`~skillshelf.errors.SkillSkippedError`, ``SK407``, the code ``skillshelf load PATH``
gives such a file).
"""

from __future__ import annotations

import shlex
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import SkillSkippedError
from skillshelf.fileio import open_regular

__all__ = ["skipped_error"]

_NAME_READ_BYTES = 64 * 1024  # the head of a skipped SKILL.md read for its ``name:`` line


def skipped_error(name: str, diagnostics: Sequence[Diagnostic]) -> SkillSkippedError | None:
    """Why no skill answers to ``name`` when discovery found a ``SKILL.md`` for it and skipped
    it: the first error ``diagnostics`` (discovery's) hold about a skipped ``SKILL.md`` whose
    folder is called ``name`` (sigils ``$`` and ``/`` aside, either side in composed form), or
    whose frontmatter names it on a plain ``name:`` line (read as text: the YAML around it may
    be what is broken). The error says the skill exists but was skipped, with the diagnostic,
    and points at ``skillshelf validate`` for the folder; None when no skipped skill has that name.
    A :class:`~skillshelf.errors.SkillSkippedError` (``SK407``, a kind of
    :class:`~skillshelf.errors.SkillNotFoundError`), so every caller that explains a missing name
    explains this one too."""
    wanted = _nfc(name.strip().lstrip("$/"))
    if not wanted:
        return None
    skipped: dict[Path, list[Diagnostic]] = {}
    for diag in diagnostics:
        if diag.severity is Severity.ERROR and diag.path is not None and diag.path.name == "SKILL.md":
            skipped.setdefault(diag.path, []).append(diag)
    for path, found in skipped.items():
        if _nfc(path.parent.name) == wanted or _frontmatter_name(path) == wanted:
            return _skipped(name, path, found)
    return None


def _skipped(name: str, path: Path, found: Sequence[Diagnostic]) -> SkillSkippedError:
    first = found[0]
    where = f"{path}:{first.line}" if first.line is not None else str(path)
    more = f" (and {len(found) - 1} more problem(s))" if len(found) > 1 else ""
    return SkillSkippedError(
        name,
        message=f"skill {name!r} exists but was skipped: {where}: {first.code}: {first.message}{more}",
        hint=f"{first.fix.rstrip('.')}; then `skillshelf validate {shlex.quote(str(path.parent))}` checks it",
    )


def _frontmatter_name(path: Path) -> str | None:
    """The value of a plain ``name:`` line in the frontmatter of ``path`` (quotes taken off), or
    None: no such line, or the file cannot be read."""
    try:
        with open_regular(path) as handle:
            text = handle.read(_NAME_READ_BYTES).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            return None
        key, sep, value = line.partition(":")
        if sep and key == "name":
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            return _nfc(value.strip()) or None
    return None


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)
