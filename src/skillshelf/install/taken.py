"""The refusals to place a skill where a folder of its name is, or will be."""

from __future__ import annotations

from pathlib import Path

from skillshelf.errors import InstallError
from skillshelf.install.lock import LockEntry

__all__ = ["NameTakenError", "PlacedTwiceError"]


class NameTakenError(InstallError):
    """A skill folder of that name is already there (``entry``: its lock entry, if ours;
    ``linked_to``: the installed folder it leads to, when it is a link skillshelf made there)."""

    default_code = "IS305"

    def __init__(self, target: Path, entry: LockEntry | None, *, linked_to: Path | None = None) -> None:
        self.target, self.entry = target, entry
        if entry is None and linked_to is not None:
            super().__init__(
                f"{target} is skillshelf's link to {linked_to}, where {target.name!r} is already installed "
                "(`install --for all`), so Claude Code reads it already",
                hint="use `skillshelf update` to update it, --force to put a copy of its own here in place "
                "of the link, or --name to install beside it",
            )
        elif entry is None:
            super().__init__(
                f"{target} already exists and skillshelf did not install it",
                hint="pass --name to install beside it, or --force to replace it (the folder is kept aside)",
            )
        else:
            super().__init__(
                f"a skill named {target.name!r} is already installed at {target}",
                hint="use `skillshelf update` to update it, --force to replace it, or --name to install "
                "beside it",
            )


class PlacedTwiceError(NameTakenError):
    """Another skill of the same source took that name earlier in this install (``--all``)."""

    def __init__(self, target: Path) -> None:
        self.target, self.entry = target, None
        InstallError.__init__(
            self,
            f"another skill of this source takes the name {target.name!r} in this install",
            hint="install it on its own with --name OTHER-NAME, beside that one",
        )
