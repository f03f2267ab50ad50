"""The refusals to place a skill where a folder of its name is, or will be."""

from __future__ import annotations

from pathlib import Path

from skillshelf.errors import InstallError
from skillshelf.install.lock import LockEntry

__all__ = ["NameTakenError", "PlacedTwiceError"]


class NameTakenError(InstallError):
    """A skill folder of that name is already there (``entry``: its lock entry, if ours)."""

    default_code = "IS305"

    def __init__(self, target: Path, entry: LockEntry | None) -> None:
        self.target, self.entry = target, entry
        if entry is None:
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
