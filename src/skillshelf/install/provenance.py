"""Where installed skills came from, for ``list``: the lock entry of each skill's folder and
whether the folder was changed by hand since."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import InstallError
from skillshelf.install.lock import LockEntry, hash_as_recorded, read_lock
from skillshelf.skills.model import Skill

__all__ = ["InstalledInfo", "installed_provenance", "locally_modified"]


@dataclass(frozen=True, slots=True, kw_only=True)
class InstalledInfo:
    """Where an installed skill came from and whether it was edited since."""

    name: str
    source: str
    ref: str | None
    commit: str | None
    locally_modified: bool
    installed_at: str
    lock_file: Path
    agents: tuple[str, ...] = ()  # the agents that see it where it is (Codex, Claude Code)
    pack: str | None = None  # the pack it came with (``install SOURCE --all``), for ``remove --pack``

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "source": self.source,
            "ref": self.ref,
            "commit": self.commit,
            "locally_modified": self.locally_modified,
            "installed_at": self.installed_at,
            "lock_file": str(self.lock_file),
            "agents": list(self.agents),
            "pack": self.pack,
        }


def locally_modified(path: Path, entry: LockEntry) -> bool:
    """Whether the installed folder at ``path`` differs from what its lock ``entry`` recorded. A
    ``.git`` in it counts as a change (``install`` copies none): a repository made there holds
    history that neither the source nor the recorded hash has. A folder that cannot be read
    through counts as changed: nothing is overwritten on a guess, and the other skills go on."""
    try:
        return not path.is_dir() or hash_as_recorded(path, entry, with_git=True) != entry.content_hash
    except OSError:
        return True


def installed_provenance(skills: Iterable[Skill], env: Env | None = None) -> dict[Path, InstalledInfo]:
    """For ``list``: ``skill.path`` -> provenance, for the skills that ``install`` put there,
    with the agents that see each (when ``env`` is given).

    A skill counts as installed when the lock file of its root (the folder above the skill's
    folder) has a usable entry for the skill's folder name. Unreadable lock files are skipped
    (:func:`lock_diagnostics` reports them).
    """
    from skillshelf.install.visibility import Visibility

    visibility = Visibility(env) if env is not None else None
    locks: dict[Path, dict[str, LockEntry]] = {}
    out: dict[Path, InstalledInfo] = {}
    for skill in skills:
        folder = skill.folder
        root = folder.parent
        if root not in locks:
            try:
                locks[root] = dict(read_lock(root).entries)
            except InstallError:
                locks[root] = {}
        entry = locks[root].get(folder.name)
        if entry is None:
            continue
        out[skill.path] = InstalledInfo(
            name=entry.name,
            source=_shown_source(entry),
            ref=entry.ref,
            commit=entry.commit,
            locally_modified=locally_modified(folder, entry),
            installed_at=entry.installed_at,
            lock_file=root / ".skillshelf-lock.json",
            agents=visibility.agents(skill) if visibility is not None else (),
            pack=entry.pack,
        )
    return out


def _shown_source(entry: LockEntry) -> str:
    """``entry``'s source as ``list`` shows it: without the credentials an older version kept in
    a URL's user part or query (``update`` and ``install`` rewrite such an entry without them)."""
    if entry.kind == "folder" or not any(mark in entry.location for mark in ("@", "?")):
        return entry.source
    from skillshelf.install.url_secrets import scrubbed

    return scrubbed(entry.source, entry.location)
