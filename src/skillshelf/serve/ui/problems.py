"""The problems view: every finding about the skills here, grouped by skill, each with its fix.

The findings are ``skillshelf validate --profile P`` run over every root the workspace scanned
(so files an agent would skip without a word show too), plus the config's own findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.serve.ui.state import Snapshot
from skillshelf.skills.validate import SkillCheck, ValidationReport, validate_paths

__all__ = ["ValidateProfile", "problems_view", "validate_roots"]

ValidateProfile = Literal["codex", "claude", "spec"]
_MAX_DEPTH = 4  # a finding about agents/openai.yaml or references/x.md sits this far below its skill


def validate_roots(snapshot: Snapshot, profile: ValidateProfile) -> ValidationReport | None:
    """``validate --profile`` over every existing root of the snapshot; None without a root."""
    roots = [root for root in snapshot.workspace.roots if root.is_dir()]
    return validate_paths(roots, profile=profile, env=snapshot.workspace.env) if roots else None


def problems_view(
    snapshot: Snapshot, report: ValidationReport | None, profile: ValidateProfile
) -> dict[str, object]:
    """The problems view's data: findings grouped by the skill they are about, worst first."""
    checks = {check.path.parent: check for check in (report.skills if report else ())}
    config = snapshot.workspace.config.diagnostics
    groups: dict[str, dict[str, object]] = {}
    for diag in (*config, *(report.diagnostics if report else ())):
        key, check = _owner(diag, checks)
        group = groups.get(key)
        if group is None:
            group = groups[key] = _group(key, check, config_file=diag in config)
        findings = group["diagnostics"]
        assert isinstance(findings, list)
        findings.append(diag.to_dict())
    ordered = sorted(groups.values(), key=_worst_first)
    counts = _counts(d for g in ordered for d in g["diagnostics"])  # type: ignore[attr-defined]
    return {
        "profile": profile,
        "checked": report.checked if report else 0,
        "roots": [str(r) for r in snapshot.workspace.roots],
        "counts": counts,
        "groups": ordered,
    }


def _owner(diag: Diagnostic, checks: Mapping[Path, SkillCheck]) -> tuple[str, SkillCheck | None]:
    """The skill folder a finding is about (and its verdict), else the finding's own path."""
    if diag.path is None:
        return "(no file)", None
    folder = diag.path if diag.path.name.lower() != "skill.md" else diag.path.parent
    for candidate in (folder, *list(folder.parents)[:_MAX_DEPTH]):
        check = checks.get(candidate)
        if check is not None:
            return str(candidate), check
    return str(diag.path), None


def _group(key: str, check: SkillCheck | None, *, config_file: bool) -> dict[str, object]:
    kind = "skill" if check is not None else ("config" if config_file else "other")
    return {
        "key": key,
        "kind": kind,
        "name": (check.name if check else None) or Path(key).name,
        "path": str(check.path) if check else key,
        "loaded": check.loaded if check else None,
        "listed": check.listed if check else None,
        "diagnostics": [],
    }


_RANK = {"error": 0, "warning": 1, "info": 2}


def _worst_first(group: Mapping[str, object]) -> tuple[int, str]:
    findings = group["diagnostics"]
    assert isinstance(findings, list)
    worst = min((_RANK.get(str(d["severity"]), 3) for d in findings), default=3)
    return worst, str(group["name"]).lower()


def _counts(findings: Iterable[Mapping[str, object]]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0}
    for d in findings:
        severity = str(d["severity"])
        counts[severity] = counts.get(severity, 0) + 1
    return counts
