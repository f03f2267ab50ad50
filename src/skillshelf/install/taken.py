"""The refusals to place a skill where a folder of its name is, or will be, and the one case
that is no refusal: the same skill installed there again (:class:`AlreadyInstalledError`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from skillshelf.errors import InstallError
from skillshelf.install.files import content_hash
from skillshelf.install.lock import LockEntry
from skillshelf.install.provenance import locally_modified
from skillshelf.install.sources import Source
from skillshelf.install.targets import own_link

__all__ = ["AlreadyInstalledError", "NameTakenError", "PlacedTwiceError", "name_taken", "same_place"]


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


class AlreadyInstalledError(NameTakenError):
    """The skill is installed at ``target`` from the same source and ref, for the same agents,
    and unchanged since: installing it again has nothing to do (``source_changed``: the source
    now holds other files, which ``update`` installs)."""

    def __init__(self, target: Path, entry: LockEntry, *, source_changed: bool) -> None:
        self.target, self.entry, self.source_changed = target, entry, source_changed
        newer = "the source has changed since: " if source_changed else ""
        InstallError.__init__(
            self,
            f"{entry.skill_name!r} is already installed from {entry.source} at {target}",
            hint=f"{newer}use `skillshelf update {target.name}` for a newer version",
        )


def name_taken(
    target: Path,
    entry: LockEntry | None,
    source: Source,
    fetched: Path,
    *,
    links: Sequence[Path],
    agents: Sequence[str],
) -> NameTakenError:
    """The refusal to install the skill ``fetched`` from ``source`` at ``target``, where a folder of
    its name is: :class:`AlreadyInstalledError` when ``entry`` says it came from that same place
    and ref, for the same ``agents`` with the same ``links`` in place, and the folder is unchanged."""
    linked_to = own_link(target)
    if (
        entry is None
        or linked_to is not None
        or target.is_symlink()
        or not same_place(entry, source)
        or sorted(entry.agents) != sorted(agents)
        or not _links_in_place(entry, links, target)
        or locally_modified(target, entry)
    ):
        return NameTakenError(target, entry, linked_to=linked_to)
    return AlreadyInstalledError(target, entry, source_changed=content_hash(fetched) != entry.content_hash)


def same_place(entry: LockEntry, source: Source) -> bool:
    """Whether ``entry`` was installed from the place and ref ``source`` names, however it was
    spelled (``repo#skills/pdf`` or ``repo/skills/pdf`` for a local folder)."""
    if entry.kind != source.kind or entry.ref != source.ref:
        return False
    if source.kind != "folder":
        return entry.location == source.location and (entry.subdir or None) == (source.subdir or None)
    return _joined(entry.location, entry.subdir) == _joined(source.location, source.subdir)


def _joined(location: str, subdir: str | None) -> Path:
    return Path(location).joinpath(*(subdir.split("/") if subdir else ()))


def _links_in_place(entry: LockEntry, links: Sequence[Path], target: Path) -> bool:
    """Whether ``entry`` records exactly ``links`` and each still leads to ``target``."""
    if sorted(entry.links) != sorted(map(str, links)):
        return False
    real = os.path.realpath(target)
    return all(os.path.islink(link) and os.path.realpath(link) == real for link in links)
