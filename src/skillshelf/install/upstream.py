"""Whether an installed skill's source moved since it was installed, found without changing
the skill: what ``update --check`` says, and what lets ``update`` skip a fetch."""

from __future__ import annotations

from skillshelf.install.fetch_once import FetchOnce
from skillshelf.install.found import find_skill_folder
from skillshelf.install.git import is_commit_id
from skillshelf.install.installed import InstalledSkill, UpdateStatus
from skillshelf.install.lock import LockEntry, hash_as_recorded
from skillshelf.install.sources import Source, recorded_source, secret_out_of_errors

__all__ = ["checked", "source_of", "unchanged_upstream"]


def source_of(entry: LockEntry) -> Source:
    """The source ``entry`` records, fetched with the secret an older version kept in its URL
    (``secret_location``, :mod:`skillshelf.install.lock_secrets`) when it did."""
    return recorded_source(entry.kind, entry.secret_location or entry.location, entry.subdir, entry.ref)


def unchanged_upstream(item: InstalledSkill, fetched: FetchOnce) -> str | None:
    """A reason to skip the fetch when the source did not move, else None."""
    entry = item.entry
    if entry.kind == "git":
        if is_commit_id(entry.ref):
            return f"pinned to commit {entry.ref}"
        source = source_of(entry)
        with secret_out_of_errors(source):
            remote = fetched.remote_commit(source.fetch_location, entry.ref)
        if remote is not None and remote == entry.commit:
            return f"already at {remote[:12]}"
        return None
    source = source_of(entry)
    if hash_as_recorded(find_skill_folder(fetched(source).folder, source), entry) == entry.content_hash:
        return "source unchanged"
    return None


def checked(
    item: InstalledSkill, missing: bool, modified: bool, fetched: FetchOnce
) -> tuple[UpdateStatus, str, str | None]:
    """What ``update`` would do to ``item`` (status, detail, the source's commit), found without
    changing it: the source is fetched into a scratch folder when its contents must be compared."""
    entry = item.entry
    if missing:
        return "available", "its folder is missing; update installs it again", entry.commit
    local = "; changed locally, so update needs --force (which keeps your copy)" if modified else ""
    reason = unchanged_upstream(item, fetched)
    if reason is not None:
        return "up-to-date", reason + ("; changed locally" if modified else ""), entry.commit
    if entry.kind != "git":  # unchanged_upstream compared the fetched contents already
        return "available", "new contents" + local, None
    source = source_of(entry)
    new = fetched(source)
    same = hash_as_recorded(find_skill_folder(new.folder, source), entry) == entry.content_hash
    moved = f"{(entry.commit or '')[:12]} -> {(new.commit or '')[:12]}"
    if same:
        kept = "; changed locally" if modified else ""
        return "up-to-date", f"{moved}, with no change in the skill's files{kept}", new.commit
    return "available", moved + local, new.commit
