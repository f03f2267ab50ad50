"""``validate``'s note on a PATH over Codex's folder or entry limits, from Codex's own scan of it.

Raw counts over the limits hide no skill when the limit is reached inside one skill's bundled
files: the PATH is scanned as a root with Codex's limits, and a warning says Codex skips skills
(SK359) only when that scan leaves a folder unscanned or misses a skill skillshelf's scan loads;
otherwise an info says no skill is missing (SK371). The skills that scan misses are the ones
``validate`` counts as not loaded.

One cut gives one note (:func:`limits_notes`): when ``validate``'s own walk of the PATH stopped
at its folder or entry limit too, its cut is told inside Codex's note, except when Codex's scan
hides no skill but the walk left folders unlisted: then the walk's warning (SK359) stands alone,
as nothing can be said about the skills in those folders. A walk stopped by its depth limit is
another cause and keeps its own note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.model import Skill
from skillshelf.skills.validate_inventory import path_problem, walk_cut_note
from skillshelf.skills.validate_profiles import CODEX_MAX_DEPTH
from skillshelf.skills.validate_walk import Candidate, Inventory, real_path

__all__ = ["CODEX_MAX_DIRS", "CODEX_MAX_ENTRIES", "codex_limits_note", "limits_notes"]

CODEX_MAX_DIRS = 2000
CODEX_MAX_ENTRIES = 20_000


def limits_notes(
    path: Path,
    inventory: Inventory,
    placed: Sequence[tuple[Candidate, Path | None]],
    loaded: dict[str, Skill] | None,
) -> tuple[list[Diagnostic], frozenset[str]]:
    """The one note on each cut of ``path``'s scans (see the module docstring), and the real
    paths of the skills Codex's scan misses; ``loaded``: ``None`` when the profile is not Codex's."""
    note, missed = (
        (None, frozenset[str]()) if loaded is None else codex_limits_note(path, inventory, placed, loaded)
    )
    cut = inventory.truncated
    if cut is None:
        return [note] if note is not None else [], missed
    if note is None or cut.startswith("the depth"):
        return [n for n in (note, walk_cut_note(inventory.base, cut)) if n is not None], missed
    if note.code == "SK371" and inventory.unvisited:
        return [walk_cut_note(inventory.base, cut, "; Codex stops earlier, at its own limits")], missed
    also = f"; validate's own walk stopped at {cut} too, so files beyond it were not checked"
    return [replace(note, message=note.message + also)], missed


def codex_limits_note(
    path: Path,
    inventory: Inventory,
    placed: Sequence[tuple[Candidate, Path | None]],
    loaded: dict[str, Skill],
) -> tuple[Diagnostic | None, frozenset[str]]:
    """For a PATH over Codex's folder or entry limits: a warning when Codex's own scan of it as a
    root leaves a folder unscanned or misses a skill skillshelf's scan loads (SK359), else an
    info that the limit is reached inside bundled files only and no skill is missing (SK371);
    with the real paths of the skills it misses."""
    if inventory.dirs <= CODEX_MAX_DIRS and inventory.entries <= CODEX_MAX_ENTRIES:
        return None, frozenset()
    from skillshelf.skills.discover import ScanLimits, discover_in

    codex = discover_in(
        [path],
        limits=ScanLimits(max_depth=CODEX_MAX_DEPTH, max_dirs=CODEX_MAX_DIRS, max_entries=CODEX_MAX_ENTRIES),
    )
    kept = {real_path(s.path) for s in codex.skills}
    missing = frozenset(
        real_path(cand.path)
        for cand, root in placed
        if root is None and real_path(cand.path) in loaded and real_path(cand.path) not in kept
    )
    over = (
        f"as a skills root this folder is over Codex's scan limits ({inventory.dirs:,} folders, "
        f"{inventory.entries:,} entries; Codex stops at {CODEX_MAX_DIRS:,} folders and {CODEX_MAX_ENTRIES:,} "
        "entries)"
    )
    if missing or any(scan.truncated and scan.unvisited_dirs > 0 for scan in codex.scans):
        skipped = f" (here: {len(missing):,} of the skills found)" if missing else ""
        warning = path_problem(
            inventory.base,
            "SK359",
            f"{over}, so Codex would skip some skills silently{skipped}",
            "split the skills over several roots, or give Codex the subfolders that hold them",
            Severity.WARNING,
        )
        return warning, missing
    info = path_problem(
        inventory.base,
        "SK371",
        f"{over}; the limit is reached inside bundled files, so no skill is missing",
        "nothing to do now; keep large sets of bundled files out of skill roots, or a skill added "
        "after them would not be found by Codex",
        Severity.INFO,
    )
    return info, missing
