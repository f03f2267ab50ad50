"""Installed skills as ``update`` sees them: a lock entry with its scope and folder, and what
``update`` did to each; which skills folder one is in, for ``remove --for``."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.env import Env
from skillshelf.errors import InstallError, NotFoundError
from skillshelf.install.installer import InstallScope
from skillshelf.install.lock import LockEntry
from skillshelf.install.visibility import FolderOwner, agent_roots, folder_owner

__all__ = [
    "FOREIGN",
    "InstalledSkill",
    "NotInstalledError",
    "RemoveResult",
    "UpdateResult",
    "UpdateStatus",
    "credentials_needed",
    "folders_of",
    "install_target",
    "installed_in_several",
    "not_in_folder",
    "owner_of",
]

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
    scope: InstallScope | None  # None: a name given that skillshelf did not install
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


class NotInstalledError(NotFoundError):
    """``IS404``: ``names`` (each as given) are not skills skillshelf installed."""

    default_code = "IS404"

    def __init__(self, names: Sequence[str], installed: Sequence[str]) -> None:
        self.names = tuple(names)
        known = ", ".join(sorted(set(installed))) or "none"
        super().__init__(
            f"not installed by skillshelf: {', '.join(self.names)}",
            hint=f"installed skills: {known}; `skillshelf install SOURCE` installs one (and takes over the "
            "folder an install that was stopped left, when it holds that source's files)",
        )

    def results(self) -> tuple[UpdateResult, ...]:
        """A ``failed`` update result for each name."""
        return tuple(
            UpdateResult(
                name=name,
                scope=None,
                status="failed",
                message=f"{self.code}: not installed by skillshelf (fix: {self.hint})",
            )
            for name in self.names
        )


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


def not_in_folder(
    name: str,
    folder: FolderOwner | None,
    installed: Sequence[InstalledSkill],
    env: Env,
    *,
    scope: InstallScope | None = None,
) -> NotFoundError:
    """``IS408``: ``name`` is not in ``folder``'s skills folder (``installed``: where it is, in
    ``scope`` when one was asked for); when that folder is a link to the one it is in (a shared
    skills folder), the message says so: removing it there removes it for every agent that reads
    the folder, with the ``--scope`` (and ``--for``) that name that copy alone."""
    for item in installed:
        linked = agent_roots(item.scope, env).get(folder) if folder in ("codex", "claude") else None
        shared = linked is not None and os.path.realpath(linked) == os.path.realpath(item.root)
        if linked is not None and shared and linked != item.root:
            return NotFoundError(
                f"{name!r} is in {item.root}, which the {folder} skills folder {linked} links to: "
                "there is one copy, which every agent reading that folder loses when it is removed",
                hint=f"`skillshelf remove {_naming(name, item, installed, env, scope)}` removes it for them "
                "all",
                code="IS408",
            )
    return NotFoundError(
        f"{name!r} is not installed in the {folder} skills folder",
        hint=f"`skillshelf remove {name}{f' --scope {scope}' if scope else ''}` without --for removes it "
        "where it is installed",
        code="IS408",
    )


def _naming(
    name: str, item: InstalledSkill, installed: Sequence[InstalledSkill], env: Env, scope: InstallScope | None
) -> str:
    """``name`` with the options that make ``remove`` pick ``item`` among ``installed``: the
    ``--scope`` asked for (or needed), ``--for`` when another copy is in the same scope."""
    others = [other for other in installed if other is not item]
    words = [shlex.quote(name)]
    if scope is not None or any(other.scope != item.scope for other in others):
        words.append(f"--scope {item.scope}")
    if any(other.scope == item.scope for other in others):
        words.append(f"--for {owner_of(item, env)}")
    return " ".join(words)


FOREIGN = (
    "not updated: its source is a folder outside this project, which is not trusted (a committed lock "
    "file can name any folder of yours); read the lock entry, `skillshelf trust` the project, then "
    "`skillshelf update`"
)


def install_target(item: InstalledSkill, env: Env) -> str:
    """The ``install --for`` that put ``item`` where it is: its folder's owner, or ``all`` for a
    copy in Codex's folder linked into Claude Code's."""
    owner = owner_of(item, env)
    return "all" if owner == "codex" and item.entry.links else owner


def credentials_needed(item: InstalledSkill, env: Env) -> InstallError:
    """``IS131``: the download of ``item`` needs the token its URL held at install; the hint
    installs it again where it is (its ``--for`` and ``--scope``)."""
    entry = item.entry
    held = ", ".join(entry.credentials)
    return InstallError(
        f"{entry.source} was downloaded with a token in its URL ({held}), which the lock file does not "
        "keep; it is not downloaded without it",
        hint="install it again with the URL that holds the token: `skillshelf install 'URL' "
        f"--for {install_target(item, env)} --name {entry.name} --scope {item.scope} --force`",
        code="IS131",
    )


def folders_of(item: InstalledSkill) -> tuple[Path, ...]:
    """The folders a change to ``item`` writes in: its skills root and those of its links."""
    return (item.root, *(Path(link).parent for link in item.entry.links))


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveResult:
    """The skill ``remove`` took away."""

    name: str
    scope: InstallScope
    path: Path
    source: str
    kept: Path | None = None  # where the locally changed copy went (``--force``)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "scope": self.scope,
            "path": str(self.path),
            "source": self.source,
            "kept": None if self.kept is None else str(self.kept),
        }
