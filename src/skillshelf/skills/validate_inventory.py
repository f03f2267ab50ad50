"""The first step of ``skillshelf validate``: what each PATH is, and which skill-like files it holds.

A PATH that does not exist, cannot be read, is a special file or a stray file gets its finding
here; a folder is walked (:func:`skillshelf.skills.validate_walk.take_inventory`), and what the
walk could not visit or read is reported, so every PATH gets an answer.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.validate_walk import Candidate, Inventory, WalkLimits, take_inventory

__all__ = ["inventory_of", "path_problem", "walk_cut_note"]


def path_problem(
    path: Path, code: str, message: str, fix: str, severity: Severity = Severity.ERROR
) -> Diagnostic:
    return Diagnostic(code=code, severity=severity, message=message, fix=fix, path=path)


def _special_kind(path: Path) -> str:
    """What a path that is neither a regular file nor a folder is, in words."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError:
        return "a file that cannot be examined"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    return "a special file"


def _link_trouble(path: Path) -> str | None:
    """``"a loop of symbolic links"`` when following ``path`` leads back to a link on the way
    (``ELOOP``), ``"a broken symbolic link"`` when it is a link to nothing, else None."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of symbolic links"
        return "a broken symbolic link" if path.is_symlink() else None
    return None


def _unreadable_skill_file(path: Path) -> Diagnostic:
    trouble = _link_trouble(path)
    if trouble is not None:
        fix = (
            "point the link at a SKILL.md that exists (it now leads back to itself), or replace it "
            "with the file itself"
            if trouble == "a loop of symbolic links"
            else "point the link at a SKILL.md that exists, or replace it with the file itself"
        )
        return path_problem(path, "SK350", f"this SKILL.md is {trouble}, so no agent can load it", fix)
    return path_problem(
        path,
        "SK351",
        f"this SKILL.md is {_special_kind(path)}, not a file, so no agent can load it",
        "replace it with a regular SKILL.md file",
    )


_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EBADF})  # what Path.exists() ignores


def _unreadable(path: Path, out: list[Diagnostic]) -> bool:
    """A path that cannot even be looked at (too long a name, no permission): an SK350 finding."""
    try:
        os.stat(path)
    except OSError as exc:  # missing or a loop: reported by the caller, as before
        if exc.errno not in _MISSING:
            message = f"the path cannot be read ({exc.strerror})"
            out.append(path_problem(path, "SK350", message, "check the path"))
            return True
    return False


def _unreadable_folder(folder: Path, code: int) -> Diagnostic:
    """SK359 for a folder the walk could not list, with the reason the system gave (``code``: its
    errno, 0 when not known) and the fix for that reason."""
    reason = f" ({os.strerror(code)})" if code else ""
    if code == errno.ENAMETOOLONG:
        fix = (
            "shorten the path: move the skill folder up or give the folders on the way shorter "
            "names (agents cannot read it either)"
        )
    elif code in (errno.EACCES, errno.EPERM, 0):
        fix = "check its permissions (agents cannot read it either)"
    else:
        fix = "check the folder (agents cannot read it either)"
    return path_problem(
        folder,
        "SK359",
        f"this folder cannot be read{reason}, so skills in it were not checked",
        fix,
        Severity.WARNING,
    )


def walk_cut_note(base: Path, cut: str, also: str = "") -> Diagnostic:
    """SK359 for the walk of ``base`` a limit stopped (``cut``: which one; ``also``: more words
    on the same cut)."""
    return path_problem(
        base,
        "SK359",
        f"the walk stopped at {cut}; files beyond it were not checked{also}",
        "validate smaller folders one at a time",
        Severity.WARNING,
    )


def inventory_of(path: Path, limits: WalkLimits, out: list[Diagnostic]) -> Inventory | None:
    """The skill-like files at ``path`` (a folder or one file), or None with a diagnostic; a
    walk a limit stopped is reported by the caller (:func:`walk_cut_note`)."""
    if _unreadable(path, out):
        return None
    if not path.exists():
        kind = _link_trouble(path) or "nothing there"
        if kind == "a loop of symbolic links":
            message, fix = (
                f"the path cannot be followed ({kind})",
                "fix or remove the link that leads back to itself",
            )
        else:
            message, fix = f"the path does not exist ({kind})", "check the spelling of the path"
        out.append(path_problem(path, "SK350", message, fix))
        return None
    if path.is_file():
        if path.name.lower() != "skill.md":
            out.append(
                path_problem(
                    path,
                    "SK351",
                    "not a skill: give a skill folder, a SKILL.md file or a folder of skills",
                    f"pass the folder that holds the skill: {path.parent}",
                )
            )
            return None
        cand = Candidate(path=path, base=path.parent, depth=0, symlink_file=path.is_symlink())
        return Inventory(base=path.parent, candidates=(cand,), dirs=1, entries=1)
    if not path.is_dir():
        fix = (
            "replace it with a regular SKILL.md file (agents cannot read it either)"
            if path.name.lower() == "skill.md"
            else "pass a skill folder, a SKILL.md file or a folder of skills"
        )
        out.append(
            path_problem(
                path, "SK351", f"not a skill: this is {_special_kind(path)}, not a file or a folder", fix
            )
        )
        return None
    if path.name.lower() == "skill.md":
        out.append(
            path_problem(
                path,
                "SK351",
                "not a skill: this SKILL.md is a folder, not a file",
                f"pass the skill folder itself ({path.parent}), and make SKILL.md a regular file",
            )
        )
        return None
    inventory = take_inventory(path, limits)
    out += [_unreadable_folder(folder, code) for folder, code in inventory.unreadable]
    out += [_unreadable_skill_file(special) for special in inventory.special]
    if not inventory.candidates and not inventory.special:
        out.append(
            path_problem(
                path,
                "SK352",
                "no SKILL.md found in this folder or below it",
                "create <name>/SKILL.md here, or pass the folder that holds your skills",
                Severity.WARNING,
            )
        )
    return inventory
