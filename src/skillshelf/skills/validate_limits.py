"""``validate``'s note on a PATH over Codex's folder or entry limits, from Codex's own scan of it.

Raw counts over the limits hide no skill when the limit is reached inside one skill's bundled
files: the PATH is scanned as a root with Codex's limits, and a warning says Codex skips skills
(SK359) only when that scan leaves a folder unscanned or misses a skill skillshelf's scan loads;
otherwise an info says no skill is missing (SK371).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.model import Skill
from skillshelf.skills.validate_inventory import path_problem
from skillshelf.skills.validate_profiles import CODEX_MAX_DEPTH
from skillshelf.skills.validate_walk import Candidate, Inventory, real_path

__all__ = ["CODEX_MAX_DIRS", "CODEX_MAX_ENTRIES", "codex_limits_note"]

CODEX_MAX_DIRS = 2000
CODEX_MAX_ENTRIES = 20_000


def codex_limits_note(
    path: Path,
    inventory: Inventory,
    placed: Sequence[tuple[Candidate, Path | None]],
    loaded: dict[str, Skill],
) -> Diagnostic | None:
    """For a PATH over Codex's folder or entry limits: a warning when Codex's own scan of it as a
    root leaves a folder unscanned or misses a skill skillshelf's scan loads (SK359), else an
    info that the limit is reached inside bundled files only and no skill is missing (SK371)."""
    if inventory.dirs <= CODEX_MAX_DIRS and inventory.entries <= CODEX_MAX_ENTRIES:
        return None
    from skillshelf.skills.discover import ScanLimits, discover_in

    codex = discover_in(
        [path],
        limits=ScanLimits(max_depth=CODEX_MAX_DEPTH, max_dirs=CODEX_MAX_DIRS, max_entries=CODEX_MAX_ENTRIES),
    )
    kept = {real_path(s.path) for s in codex.skills}
    missing = [
        cand
        for cand, root in placed
        if root is None and real_path(cand.path) in loaded and real_path(cand.path) not in kept
    ]
    over = (
        f"as a skills root this folder is over Codex's scan limits ({inventory.dirs:,} folders, "
        f"{inventory.entries:,} entries; Codex stops at {CODEX_MAX_DIRS:,} folders and {CODEX_MAX_ENTRIES:,} "
        "entries)"
    )
    if missing or any(scan.truncated and scan.unvisited_dirs > 0 for scan in codex.scans):
        skipped = f" (here: {len(missing):,} of the skills found)" if missing else ""
        return path_problem(
            inventory.base,
            "SK359",
            f"{over}, so Codex would skip some skills silently{skipped}",
            "split the skills over several roots, or give Codex the subfolders that hold them",
            Severity.WARNING,
        )
    return path_problem(
        inventory.base,
        "SK371",
        f"{over}; the limit is reached inside bundled files, so no skill is missing",
        "nothing to do now; keep large sets of bundled files out of skill roots, or a skill added "
        "after them would not be found by Codex",
        Severity.INFO,
    )
