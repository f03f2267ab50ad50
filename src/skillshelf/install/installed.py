"""Installed skills as ``update`` sees them: a lock entry with its scope and folder, and what
``update`` did to each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.install.installer import InstallScope
from skillshelf.install.lock import LockEntry

__all__ = ["InstalledSkill", "UpdateResult", "UpdateStatus"]

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
