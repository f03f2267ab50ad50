"""Installed skills as ``update`` sees them: a lock entry with its scope and folder, and what
``update`` did to each; which skills folder one is in, for ``remove --for``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.env import Env
from skillshelf.errors import InstallError
from skillshelf.install.installer import InstallScope
from skillshelf.install.lock import LockEntry
from skillshelf.install.visibility import FolderOwner, folder_owner

__all__ = ["InstalledSkill", "UpdateResult", "UpdateStatus", "installed_in_several", "owner_of"]

UpdateStatus = Literal["updated", "available", "up-to-date", "skipped", "failed", "added", "new"]
"""``added``: a skill a pack gained, installed by ``update``; ``new``: one ``update --check``
found, which ``update`` would install."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InstalledSkill:
    """One lock entry with its scope and folder."""

    scope: InstallScope
    root: Path
    entry: LockEntry

    @property
    def path(self) -> Path:
        return self.root / self.entry.name


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateResult:
    """What ``update`` did to one skill."""

    name: str
    scope: InstallScope
    status: UpdateStatus
    message: str
    old_commit: str | None = None
    new_commit: str | None = None
    kept: Path | None = None  # where the locally changed copy went (``--force``)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "scope": self.scope,
            "status": self.status,
            "message": self.message,
            "old_commit": self.old_commit,
            "new_commit": self.new_commit,
            "kept": None if self.kept is None else str(self.kept),
        }


def owner_of(item: InstalledSkill, env: Env) -> FolderOwner:
    """Whose skills folder ``item`` is in (``install --for``'s word for it)."""
    return folder_owner(item.scope, item.root, env)


def installed_in_several(name: str, matches: Sequence[InstalledSkill], env: Env) -> InstallError:
    """The refusal to remove ``name`` from one of ``matches`` unasked: each place, and the
    ``--scope`` / ``--for`` that tell them apart."""
    places = "; ".join(f"{m.path} ({m.scope} scope, --for {owner_of(m, env)})" for m in matches)
    choices: dict[str, list[str]] = {
        "scope": sorted({m.scope for m in matches}),
        "for": sorted({owner_of(m, env) for m in matches}),
    }
    asked = [
        " or ".join(f"--{flag} {v}" for v in values) for flag, values in choices.items() if len(values) > 1
    ]
    return InstallError(
        f"{name!r} is installed in {len(matches)} places: {places}",
        hint=f"pass {', and '.join(asked)} to name the one to remove",
        code="IS406",
    )
