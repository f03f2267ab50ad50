"""The one skill inside a fetched source, found and validated before anything is installed.

:func:`find_skill_folder` looks for the folder with the ``SKILL.md`` (the source itself, or the
only such folder below it, within discovery's scan limits); :func:`validate_skill_folder`
parses and validates it with the chosen profile (:func:`checked_skill`: with the tree's checks
first), and :class:`SkillValidationError` carries the findings when it does not validate.
:func:`relocate` shows the findings' paths where the user can find them instead of in the
staging folder, and :func:`in_source` an error's.
:func:`archive_top` names the one top folder of an unpacked archive (``taken.same_place``).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic, Severity, has_errors, sort_diagnostics
from skillshelf.errors import InstallError
from skillshelf.install.archive import single_top
from skillshelf.install.files import check_skill_tree
from skillshelf.install.sources import Source
from skillshelf.install.url_secrets import SECRET_NOT_RECORDED
from skillshelf.skills.model import Skill, SkillRoot
from skillshelf.skills.walk import ScanLimits

__all__ = [
    "SkillValidationError",
    "ValidationProfile",
    "archive_top",
    "checked_skill",
    "find_skill_folder",
    "in_source",
    "relocate",
    "skill_folders",
    "validate_skill_folder",
]

ValidationProfile = Literal["spec", "codex", "claude"]

#: How far below a source folder a SKILL.md is looked for, and through how many folders:
#: the defaults of discovery's :class:`~skillshelf.skills.walk.ScanLimits`.
FIND_MAX_DEPTH = ScanLimits().max_depth
FIND_MAX_DIRS = ScanLimits().max_dirs


def _skill_folders_below(folder: Path) -> tuple[list[Path], bool]:
    """Folders below ``folder`` holding a SKILL.md (breadth first, no symlinked folders, no .git),
    and whether the search stopped at its depth or folder limit. A SKILL.md inside a skill's
    folder (a template, an example) belongs to that skill, so the search does not go into one."""
    import os

    found: list[Path] = []
    queue: deque[tuple[Path, int]] = deque([(folder, 0)])
    visited = 0
    cut = False
    while queue:
        current, depth = queue.popleft()
        visited += 1
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir or entry.name == ".git":
                continue
            child = Path(entry.path)
            if (child / "SKILL.md").is_file():
                found.append(child)
                continue
            if depth + 1 >= FIND_MAX_DEPTH or visited + len(queue) >= FIND_MAX_DIRS:
                cut = True
                continue
            queue.append((child, depth + 1))
    return sorted(found), cut


def skill_folders(folder: Path, source: Source) -> tuple[list[Path], bool]:
    """Every skill folder in ``folder`` (itself when it holds a SKILL.md, else the outermost
    folders below that do), and whether the search stopped at its limits.

    Raises:
        InstallError: (IS310, IS312) there is none.
    """
    if (folder / "SKILL.md").is_file():
        return [folder], False
    found, cut = _skill_folders_below(folder)
    if not found:
        raise _none_found(source, cut)
    return found, cut


def _none_found(source: Source, cut: bool) -> InstallError:
    if cut:
        return InstallError(
            f"{source.text} holds no SKILL.md within {FIND_MAX_DEPTH} folder levels "
            f"(or the first {FIND_MAX_DIRS} folders); the search stopped there",
            hint="point at the skill's own folder (the one with SKILL.md), or use #subdir for a folder "
            "inside a repository or archive",
            code="IS312",
        )
    return InstallError(
        f"{source.text} holds no SKILL.md",
        hint="point at a folder with a SKILL.md (use #subdir for a folder inside a repository or archive)",
        code="IS310",
    )


def find_skill_folder(folder: Path, source: Source) -> Path:
    """The one skill folder in ``folder`` (itself, or the only folder below with a SKILL.md).

    The search goes at most :data:`FIND_MAX_DEPTH` levels down and through :data:`FIND_MAX_DIRS`
    folders, so a very deep or huge tree ends with ``IS312`` instead of running away.
    """
    found, _ = skill_folders(folder, source)
    if len(found) == 1:
        return found[0]
    choices = ", ".join(f"#{p.relative_to(folder).as_posix()}" for p in found[:8])
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    raise InstallError(
        f"{source.text} holds {len(found)} skills; choose one",
        hint=f"add the skill's folder to the source ({choices}{more}), or pass --all to install every one",
        code="IS311",
    )


def relocate(diags: Sequence[Diagnostic], fetched: Path, shown: Path) -> tuple[Diagnostic, ...]:
    """The findings with paths in the staging folder ``fetched`` (file fields and the paths
    their message and fix name) shown as ``shown``, where the user can find them."""
    out = []
    for diag in diags:
        path = diag.path
        if path is not None and (path == fetched or fetched in path.parents):
            path = shown / path.relative_to(fetched)
        message, fix = (_shown_in(text, fetched, shown) for text in (diag.message, diag.fix))
        out.append(dataclasses.replace(diag, path=path, message=message, fix=fix))
    return tuple(out)


def _shown_in(text: str, fetched: Path, shown: Path) -> str:
    if str(shown) == ".":
        return text.replace(f"{fetched}/", "").replace(str(fetched), ".")
    return text.replace(str(fetched), str(shown))


def validate_skill_folder(
    folder: Path, root: SkillRoot, *, profile: ValidationProfile = "codex"
) -> tuple[Skill, tuple[Diagnostic, ...]]:
    """Parse and validate ``folder``; return the skill and the findings (errors raise)."""
    from skillshelf.skills.parse import read_skill
    from skillshelf.skills.validate import validate_paths

    parsed = read_skill(folder / "SKILL.md", root)
    report = validate_paths([folder], profile=profile)
    diags = tuple(sort_diagnostics({*parsed.diagnostics, *report.diagnostics}))
    if parsed.skill is None or has_errors(diags):
        raise SkillValidationError(diags)
    return parsed.skill, diags


class SkillValidationError(InstallError):
    """The skill did not validate; ``diagnostics`` says why. Nothing was installed."""

    default_code = "IS320"

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        first = errors[0] if errors else None
        what = f"{first.code}: {first.message}" if first else "SKILL.md could not be read"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(
            f"the skill does not validate, so nothing was installed: {what}{more}",
            hint=(first.fix if first else "fix SKILL.md")
            + "; `skillshelf validate PATH` lists every problem",
        )


def archive_top(source: Source, unpacked: Path) -> str | None:
    """The name of the one folder ``source``'s archive, unpacked at ``unpacked``, holds; None
    when it holds more, or for another kind of source."""
    top = single_top(unpacked) if source.kind == "archive" else None
    return None if top is None else top.name


def in_source(exc: InstallError, work: Path, source: Source) -> InstallError:
    """``exc`` (about the skill fetched to ``work``) naming ``source`` and the path in it instead:
    ``gh:acme/tools#skills/pdf: skills/pdf/link: ...``; a local folder is named as it is."""
    if source.kind == "folder":
        return exc
    inside = str(Path(source.subdir or "."))
    below = "" if inside == "." else f"{inside}/"
    message, hint = (t.replace(f"{work}/", below).replace(str(work), inside) for t in (exc.message, exc.hint))
    return InstallError(f"{source.text}: {message}", hint=hint, code=exc.code)


def checked_skill(folder: Path, source: Source, root: SkillRoot) -> tuple[Skill, tuple[Diagnostic, ...]]:
    """Check and validate the skill ``folder`` fetched from ``source``; the findings name paths
    as the user sees them (the folder itself, or its place in the repository or archive), and
    ``IS130`` follows when the source URL held a secret."""
    shown = folder if source.kind == "folder" else Path(source.subdir or ".")
    try:
        check_skill_tree(folder)
    except InstallError as exc:
        raise in_source(exc, folder, source) from None
    try:
        skill, diags = validate_skill_folder(folder, root)
    except SkillValidationError as exc:
        raise SkillValidationError(relocate(exc.diagnostics, folder, shown)) from None
    secret = (SECRET_NOT_RECORDED,) if source.secret_location is not None else ()
    return skill, (*relocate(diags, folder, shown), *secret)
