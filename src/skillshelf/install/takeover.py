"""A skill folder already in the skills folder: never its own source, and said when taken over.

A folder the user writes in ``~/.agents/skills`` holds the same files as itself, so installing
it "from where it is" would look like what an interrupted install leaves
(:func:`~skillshelf.install.taken.left_by_interrupted_install`) and be taken over: ``remove``
would then delete the only copy. A source whose real path is the target, lies inside it or
holds it is refused (``IS317``). A takeover of a separate identical copy is allowed, and
``IS134`` says so: from then on ``remove`` deletes that folder and ``update`` replaces it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.errors import InstallError

__all__ = ["check_source_apart", "took_over"]


def check_source_apart(folder: Path, places: Sequence[Path]) -> None:
    """Raise ``IS317`` when the skill ``folder`` being installed is one of ``places`` (the target
    folder and the links to it), lies inside one or holds one (compared by real paths)."""
    source = os.path.realpath(folder)
    for target in places:
        dest = os.path.realpath(target)
        if source == dest or _under(source, dest):
            raise _refused(
                f"{folder} is already in the skills folder ({target}); skillshelf does not manage "
                "skills you wrote there; nothing was changed",
                "keep using it where it is, or move it out of the skills folder and install it from there",
            )
        if _under(dest, source):
            raise _refused(
                f"{folder} holds the folder it would be installed in ({target}): the copy would hold "
                "itself; nothing was changed",
                "install from a folder outside the skills folders (a copy of the skill elsewhere)",
            )


def _refused(message: str, hint: str) -> InstallError:
    return InstallError(message, hint=hint, code="IS317")


def _under(path: str, folder: str) -> bool:
    """Whether the real path ``path`` lies inside the real path ``folder``."""
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def took_over(target: Path, orphan: bool, dry_run: bool = False) -> tuple[Diagnostic, ...]:
    """``IS134`` when the identical folder already at ``target`` was taken over (``orphan``; with
    ``dry_run``, would be): it is managed by skillshelf now. Nothing otherwise."""
    if not orphan:
        return ()
    done = "would take over" if dry_run else "took over"
    then = "would then delete" if dry_run else "now deletes"
    return (
        diagnostic(
            "IS134",
            Severity.INFO,
            f"{done} the existing identical folder {target}; `skillshelf remove` {then} it and "
            "`update` replaces it",
            "to keep it as your own, copy it elsewhere before removing the skill",
            path=target,
        ),
    )
