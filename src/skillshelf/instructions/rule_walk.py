"""The ``.claude/rules`` walk, as Claude Code (2.1.197) walks it (checked with ``claude-oracle``).

Entries are taken in directory order; a folder's rules come where the folder occurs. Every entry
is named by its real path (symbolic links followed, the folder's own included): a rule reached
through a linked folder or a linked file is the file it points to, which is the path the model
sees and the one ``claudeMdExcludes`` matches. A folder already walked (by its path or its real
path) is not walked again, which stops link cycles. A link to nothing is passed over.

Claude Code sets no other limit; against a hostile tree this walk stops at
:data:`MAX_RULE_DEPTH` folders deep and :data:`MAX_RULE_FILES` files, and says so (IN119).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity

__all__ = ["MAX_RULE_DEPTH", "MAX_RULE_FILES", "RuleFiles", "rule_files"]

#: Folders below the rules folder walked at most (a bound Claude Code does not have).
MAX_RULE_DEPTH = 64
#: Rule files taken at most from one rules folder (a bound Claude Code does not have).
MAX_RULE_FILES = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleFiles:
    """The ``*.md`` files of one rules folder, in Claude Code's order, and IN119 when a bound
    of this walk left some out."""

    files: tuple[Path, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(slots=True)
class _State:
    visited: set[str] = field(default_factory=set)
    files: list[Path] = field(default_factory=list)
    too_deep: str | None = None
    too_many: bool = False


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return None


def _kind(path: str, real: str | None, entry: os.DirEntry[str]) -> tuple[bool, bool]:
    """``(is a folder, is a file)``: through the link when ``path`` is not its real path."""
    if real is not None and real != path:
        try:
            mode = os.stat(real).st_mode
        except (OSError, ValueError):
            return False, False
        return stat.S_ISDIR(mode), stat.S_ISREG(mode)
    try:
        return entry.is_dir(follow_symlinks=False), entry.is_file(follow_symlinks=False)
    except OSError:
        return False, False


def _walk(folder: str, depth: int, state: _State) -> None:
    if folder in state.visited:
        return
    real = _real(folder) or folder
    state.visited.update((folder, real))
    try:
        with os.scandir(real) as listing:
            entries = list(listing)
    except (OSError, ValueError):
        return
    for entry in entries:
        if state.too_many:
            return
        path = os.path.join(folder, entry.name)
        resolved = _real(path)
        is_dir, is_file = _kind(path, resolved, entry)
        target = resolved or path
        if is_dir and depth >= MAX_RULE_DEPTH:
            state.too_deep = state.too_deep or target
        elif is_dir:
            _walk(target, depth + 1, state)
        elif is_file and entry.name.endswith(".md"):
            if len(state.files) >= MAX_RULE_FILES:
                state.too_many = True
                return
            state.files.append(Path(target))


def rule_files(folder: Path) -> RuleFiles:
    """The rule files under ``folder`` (none when it is missing or no folder)."""
    state = _State()
    _walk(str(folder), 0, state)
    diags: list[Diagnostic] = []
    if state.too_deep is not None:
        diags.append(
            _bounded(
                folder,
                f"rules folders nest more than {MAX_RULE_DEPTH} deep; skillshelf read none below "
                f"{state.too_deep}, which Claude Code would read",
            )
        )
    if state.too_many:
        diags.append(
            _bounded(
                folder,
                f"this rules folder holds more than {MAX_RULE_FILES} rule files; skillshelf read the "
                f"first {MAX_RULE_FILES}, Claude Code would read them all",
            )
        )
    return RuleFiles(files=tuple(state.files), diagnostics=tuple(diags))


def _bounded(folder: Path, message: str) -> Diagnostic:
    return Diagnostic(
        code="IN119",
        severity=Severity.WARNING,
        message=message,
        fix="flatten the rules folder or move rules out of it (so many rules also swamp the model's context)",
        path=folder,
    )
