"""The codex profile's verdict on where a skill file sits: folder names Codex lists nothing under."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skill_tree_helpers import write_skill

from skillshelf.diagnostics import Severity
from skillshelf.skills.validate import validate_paths


def verdicts(root: Path) -> dict[str, tuple[bool, set[str]]]:
    """Folder of each skill below ``root`` -> (loaded by Codex, its error codes)."""
    report = validate_paths([root])
    errors: dict[Path, set[str]] = {}
    for diag in report.diagnostics:
        if diag.severity is Severity.ERROR and diag.path is not None:
            errors.setdefault(diag.path, set()).add(diag.code)
    return {
        os.path.relpath(check.path.parent, root): (check.loaded, errors.get(check.path, set()))
        for check in report.skills
    }


@pytest.mark.parametrize(
    "name", [b"bad\xffname", b"two\nlines", b"cr\rhere", b"tab\there"], ids=["not-utf8", "lf", "cr", "tab"]
)
def test_a_skill_below_a_folder_codex_skips_by_name_is_not_counted_as_loaded(
    tmp_path: Path, name: bytes
) -> None:
    root = tmp_path / ".agents" / "skills"
    write_skill(root / "ok", "ok")
    folder = Path(os.fsdecode(os.fsencode(root) + b"/" + name))
    write_skill(folder, "leaf")
    write_skill(folder / "inner", "inner")
    shown = os.path.relpath(folder, root)
    assert verdicts(root) == {
        "ok": (True, set()),
        shown: (False, {"SK370"}),
        os.path.join(shown, "inner"): (False, {"SK370"}),
    }
    note = next(d for d in validate_paths([root]).diagnostics if d.code == "SK370")
    assert note.fix and "\n" not in note.message and "\udcff" not in note.message
