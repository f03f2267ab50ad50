"""Scan limits from the environment, and the findings of a walk that hit one.

``SKILLSHELF_SCAN_MAX_DEPTH`` / ``_DIRS`` / ``_ENTRIES`` raise (or lower) skillshelf's own scan
limits (Codex's by default; Codex itself never reads them); a walk cut short by a limit, or with
folders deeper than the depth limit, says so with a fix. Only a cut that left folders unscanned
claims that skills are missing: a listing cut in a skill's bundled files hides none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.skills.model import SkillRoot
from skillshelf.skills.walk import CODEX_MAX_DEPTH, ScanLimits, WalkResult

__all__ = ["LIMIT_VARIABLES", "limit_diagnostics", "limits_from_environ"]


LIMIT_VARIABLES = {
    "max_depth": "SKILLSHELF_SCAN_MAX_DEPTH",
    "max_dirs": "SKILLSHELF_SCAN_MAX_DIRS",
    "max_entries": "SKILLSHELF_SCAN_MAX_ENTRIES",
}


def limits_from_environ(
    environ: Mapping[str, str], limits: ScanLimits
) -> tuple[ScanLimits, list[Diagnostic]]:
    """Raise (or lower) the scan limits from ``SKILLSHELF_SCAN_MAX_*`` variables of the Env."""
    values: dict[str, int] = {}
    notes: list[Diagnostic] = []
    for field_name, variable in LIMIT_VARIABLES.items():
        text = environ.get(variable)
        if not text:
            continue
        try:
            value = int(text)
            if value < 0:
                raise ValueError(text)
        except ValueError:
            notes.append(
                diagnostic(
                    "SK209",
                    Severity.WARNING,
                    f"{variable}={text!r} is not a whole number >= 0; ignored",
                    f"set {variable} to a number, e.g. {variable}=5000",
                    None,
                )
            )
            continue
        values[field_name] = value
    return (replace(limits, **values) if values else limits), notes


# The limit a walk stopped at (its ScanLimits field) -> (code, what it counts); the variable
# that raises it is in LIMIT_VARIABLES.
_LIMIT_TEXT = {"max_dirs": ("SK212", "folders"), "max_entries": ("SK213", "entries")}


def _nothing_left(root: SkillRoot, walk: WalkResult, limits: ScanLimits) -> Diagnostic:
    """SK215: the entry budget ran out on bundled files alone; no folder, so no skill, was left."""
    where = walk.stopped_in or root.path
    return diagnostic(
        "SK215",
        Severity.INFO,
        f"scan reached the limit of {limits.max_entries:,} entries for this root while listing {where}; "
        "only files that hold no skill were left unread, so no skill is missing (Codex stops at the "
        "same point)",
        f"nothing to do now; a skill folder added inside {where}, or below a folder listed after it, "
        "would not be found (by Codex either): keep large sets of bundled files out of skill roots, "
        f"or set {LIMIT_VARIABLES['max_entries']}=N for skillshelf's own scan",
        root.path,
    )


def limit_diagnostics(root: SkillRoot, walk: WalkResult, limits: ScanLimits) -> list[Diagnostic]:
    """The findings of a walk cut short by a limit (SK212/SK213: folders, so skills, left
    unscanned; SK215: only files left) or with folders past the depth limit (SK211)."""
    out: list[Diagnostic] = []
    if walk.truncated and walk.limit == "max_entries" and not walk.unvisited_dirs:
        out.append(_nothing_left(root, walk, limits))
    elif walk.truncated and walk.limit in _LIMIT_TEXT:
        field_name = walk.limit
        code, what = _LIMIT_TEXT[field_name]
        option = LIMIT_VARIABLES[field_name]
        value = getattr(limits, field_name)
        partial = f" (the listing of {walk.stopped_in} was cut short)" if walk.stopped_in else ""
        out.append(
            diagnostic(
                code,
                Severity.WARNING,
                f"scan stopped at the limit of {value:,} {what} for this root; {walk.unvisited_dirs:,} "
                f"folder(s) were left unscanned{partial}, so skills in them are missing (Codex "
                "stops here too, silently)",
                "keep this root to skill folders (move other files out of it, or point at a narrower "
                f"folder that holds only skills): Codex reads no more of it; {option}=N (library: "
                f"DiscoveryOptions(limits=ScanLimits({field_name}=N))) raises only skillshelf's own "
                "scan, which Codex does not follow",
                root.path,
            )
        )
    if walk.depth_pruned:
        out.append(
            diagnostic(
                "SK211",
                Severity.INFO,
                f"{walk.depth_pruned:,} folder(s) sit deeper than {limits.max_depth} levels below this root "
                "and were not scanned",
                f"keep skills at most {CODEX_MAX_DEPTH} levels below the root: Codex does not load a skill "
                "deeper, so move any skill there up (SKILLSHELF_SCAN_MAX_DEPTH=N, or ScanLimits(max_depth=N) "
                "in the library, makes only skillshelf's own scan go deeper; Codex does not follow it)",
                root.path,
            )
        )
    return out
