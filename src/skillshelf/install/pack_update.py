"""``update`` and packs: the skills a pack gained since it was installed, and those it dropped.

A pack is a source installed whole with ``install SOURCE --all``; its record in the lock lists
the skill folders it held then (:mod:`skillshelf.install.lock_packs`). ``update`` looks at each
pack of the skills it updates once (:func:`survey_packs`), through the same fetch as the skills:

- a folder the record does not list is a skill the pack gained: ``update`` installs it where the
  pack's other skills are, for the same agents (``update --check`` lists it as ``new``); one that
  was removed with ``skillshelf remove`` stays listed, so it does not come back;
- an installed skill whose folder the pack no longer has is left as it is and said to be gone
  (``skipped``), instead of failing to fetch;
- a git pack whose commit is the one its record was read at is not fetched again: it cannot
  have changed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skillshelf.config.trust import canonical
from skillshelf.env import Env
from skillshelf.errors import InstallError, SkillshelfError
from skillshelf.install.allowed import SourcePolicy
from skillshelf.install.fetch_once import FetchOnce
from skillshelf.install.files import root_lock, workspace
from skillshelf.install.found import skill_folders
from skillshelf.install.git import ProgressFn, is_commit_id
from skillshelf.install.installed import InstalledSkill, UpdateResult, UpdateStatus
from skillshelf.install.installer import Destination, InstallResult, InstallScope
from skillshelf.install.links import confined_links
from skillshelf.install.lock import LockEntry, PackRecord, read_lock
from skillshelf.install.many import NotInstalled, install_in_pack, record_pack
from skillshelf.install.sources import Source, local_place, recorded_source
from skillshelf.install.targets import inside_project, listed_beside, sharing_names

__all__ = [
    "PackNow",
    "add_gained_skills",
    "foreign_local",
    "gone_from_pack",
    "subdir_refusal",
    "survey_packs",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class PackNow:
    """A pack as it is now. ``folders`` maps each skill folder it holds to where the fetch put
    it; None when the pack was not fetched (its commit did not move)."""

    scope: InstallScope
    root: Path
    record: PackRecord
    members: tuple[LockEntry, ...]
    commit: str | None
    folders: dict[str, Path] | None

    @property
    def source(self) -> Source:
        record = self.record
        return recorded_source(record.kind, record.location, record.subdir, record.ref)

    @property
    def places(self) -> tuple[str, ...]:
        return self.record.places if self.folders is None else tuple(self.folders)

    def gained(self) -> list[str]:
        """The skill folders that are new since the record was written, and not installed."""
        if self.folders is None:
            return []
        installed = {self.record.place_of(m.subdir) for m in self.members}
        return [p for p in self.folders if p not in self.record.places and p not in installed]


def survey_packs(items: Sequence[InstalledSkill], fetched: FetchOnce, policy: SourcePolicy) -> list[PackNow]:
    """Each pack one of ``items`` belongs to, read as it is now; a pack that cannot be fetched,
    or whose source ``policy`` does not allow, is left out (its skills' own updates report why)."""
    found: list[PackNow] = []
    seen: set[tuple[Path, str]] = set()
    for item in items:
        key = item.entry.pack
        if key is None or (item.root, key) in seen:
            continue
        seen.add((item.root, key))
        lock = read_lock(item.root)
        record = lock.packs.get(key)
        if record is None:
            continue
        source = recorded_source(record.kind, record.location, record.subdir, record.ref)
        if not policy.allows(source) or any(m.needs_credentials for m in lock.members(key)):
            continue  # a download that needs its token again: its skills' own updates say so
        with contextlib.suppress(SkillshelfError):
            found.append(_pack_now(item.scope, item.root, record, lock.members(key), fetched))
    return found


def _pack_now(
    scope: InstallScope, root: Path, record: PackRecord, members: tuple[LockEntry, ...], fetched: FetchOnce
) -> PackNow:
    commit = _unmoved_commit(record, fetched)
    if commit is not None:
        return PackNow(scope=scope, root=root, record=record, members=members, commit=commit, folders=None)
    source = recorded_source(record.kind, record.location, record.subdir, record.ref)
    pack = fetched(source)
    folders, _ = skill_folders(pack.folder, source)
    places = {folder.relative_to(pack.folder).as_posix(): folder for folder in folders}
    return PackNow(scope=scope, root=root, record=record, members=members, commit=pack.commit, folders=places)


def _unmoved_commit(record: PackRecord, fetched: FetchOnce) -> str | None:
    """The pack's commit when it is the one its record was read at, else None."""
    if record.kind != "git" or record.commit is None:
        return None
    if is_commit_id(record.ref):
        return record.commit
    remote = fetched.remote_commit(record.location, record.ref)
    return record.commit if remote == record.commit else None


def subdir_refusal(entry: LockEntry) -> str | None:
    """Why ``update`` refuses the entry's ``subdir`` (absolute, or with a ``..`` part: it leaves
    the repository or folder it names), else None. ``install`` never records one; a lock is
    content anyone can commit."""
    subdir = entry.subdir
    if not subdir:
        return None
    parts = PurePosixPath(subdir.replace("\\", "/")).parts
    if not subdir.startswith(("/", "\\")) and ".." not in parts and not any(":" in p for p in parts[:1]):
        return None
    return (
        f"refused: the lock entry's subdir {subdir[:200]!r} leaves the repository or folder "
        f"{entry.location[:200]}; `skillshelf remove {entry.name}`, then install it again as SOURCE#FOLDER"
    )


def gone_from_pack(item: InstalledSkill, packs: Iterable[PackNow]) -> UpdateResult | None:
    """``skipped`` for a skill whose pack no longer holds its folder, else None (and for a
    subdir that leaves the pack's source: :func:`subdir_refusal` answers for it)."""
    if subdir_refusal(item.entry) is not None:
        return None
    for pack in packs:
        if pack.root != item.root or pack.record.key != item.entry.pack:
            continue
        place = pack.record.place_of(item.entry.subdir)
        if place is None or place in pack.places:
            return None
        return UpdateResult(
            name=item.entry.name,
            scope=item.scope,
            status="skipped",
            message=f"no longer in {pack.record.key} (its folder {place} is gone); left as it is, "
            f"`skillshelf remove {item.entry.name}` removes it",
            old_commit=item.entry.commit,
            new_commit=pack.commit,
        )
    return None


def add_gained_skills(
    packs: Sequence[PackNow],
    fetched: FetchOnce,
    *,
    env: Env,
    check: bool,
    kept: Path,
    progress: ProgressFn | None,
) -> list[UpdateResult]:
    """Install the skills each pack gained (with ``check``, only list them as ``new``), and
    record what each fetched pack holds now.

    A project's lock is content anyone can commit: a pack it names in a folder on this machine
    outside the project (``/``, a home folder) would copy whatever skills are found there into
    the project. So in a project that is not trusted, such a pack's new skills are only listed.
    """
    results: list[UpdateResult] = []
    for pack in packs:  # check or not, one rule decides whether update installs a new skill
        gained = pack.gained()
        escaped = _escaped(pack, env) if gained else None
        if escaped is not None:
            results.extend(_listed_new(pack, place, escaped.one_line(), status="failed") for place in gained)
        elif gained and foreign_local(pack.scope, pack.record.location, env):
            results.extend(_listed_new(pack, place, _UNTRUSTED) for place in gained)
        elif check:
            results.extend(_listed_new(pack, place) for place in gained)
        elif pack.folders is not None:
            results.extend(_install_gained(pack, gained, kept, progress, env))
    return results


_UNTRUSTED = (
    "not added by `skillshelf update`: the pack is a folder outside this project, which is not trusted; "
    "`skillshelf trust` the project, then `skillshelf update`"
)


def foreign_local(scope: InstallScope, location: str, env: Env) -> bool:
    """Whether a project's lock names a source on this machine's disk outside the project, in a
    project the user has not trusted: ``update`` must not copy from it. A lock is content anyone
    can commit, and such a source (a folder, an archive, a local git repository) could be any
    folder of the user's (``~/.agents/skills/private``) that holds a ``SKILL.md``."""
    if scope != "project":
        return False
    place = local_place(location)
    if place is None:
        return False
    project = canonical(env.project_root)
    where = canonical(place)
    if where == project or project in where.parents:
        return False
    from skillshelf.config.loader import load_config

    return not load_config(env).trusted


def _escaped(pack: PackNow, env: Env) -> InstallError | None:
    """Why the pack's new skills cannot be placed: its project folder (or its links' folder)
    leads out of the project through a symlink (``IS314``); else None."""
    try:
        inside_project(pack.scope, env, (pack.root, *_link_roots(pack, env)))
    except InstallError as exc:
        return exc
    return None


def _link_roots(pack: PackNow, env: Env) -> list[Path]:
    """The folders a new skill of ``pack`` gets links in: those of a sibling, confined to the
    agents' own skills folders of the scope."""
    sibling = confined_links(pack.members[0], pack.scope, env) if pack.members else None
    return [Path(link).parent for link in sibling.links] if sibling else []


def _listed_new(
    pack: PackNow, place: str, why: str = "`skillshelf update` installs it", *, status: UpdateStatus = "new"
) -> UpdateResult:
    return UpdateResult(
        name=PurePosixPath(place).name or place,
        scope=pack.scope,
        status=status,
        message=f"new in {pack.record.key} (folder {place}); {why}",
        new_commit=pack.commit,
    )


def _install_gained(
    pack: PackNow, gained: list[str], kept: Path, progress: ProgressFn | None, env: Env
) -> list[UpdateResult]:
    """Install ``gained`` beside the pack's other skills and rewrite its record.

    The new skills get the links of a sibling, confined to the agents' own skills folders of
    the scope: a committed lock's links name any place, and a new link would be made there.
    """
    assert pack.folders is not None
    agents = pack.members[0].agents if pack.members else ()
    dest = Destination(
        root=pack.root,
        scope=pack.scope,
        link_roots=_link_roots(pack, env),
        agents=agents,
        kept_root=kept,
        pack=pack.record.key,
        name_roots=sharing_names(pack.root, agents, env),
        listed_beside=listed_beside(pack.root, agents, env),
    )
    outcomes: list[InstallResult | NotInstalled] = []
    with root_lock(pack.root), workspace(pack.root) as work:
        for number, place in enumerate(gained, 1):
            if progress is not None:
                progress(f"Installing {place}, new in {pack.record.key}", None)
            folder = pack.folders[place]
            outcomes.append(
                install_in_pack(folder, place, pack.source, pack.commit, work / str(number), dest)
            )
        failed = {place for place, o in zip(gained, outcomes, strict=True) if _failed(o)}
        # with a skill left out, the commit is not recorded either, so the pack is fetched again
        commit = None if failed else pack.commit
        record_pack(pack.root, pack.source, commit, [p for p in pack.folders if p not in failed], outcomes)
    return [_result_of(pack, outcome) for outcome in outcomes if not _present(outcome)]


def _failed(outcome: InstallResult | NotInstalled) -> bool:
    """Whether ``outcome`` is a skill that was not installed: its place is left out of the pack's
    record, so the next ``update`` (and ``update --check``) sees it as new again."""
    return isinstance(outcome, NotInstalled) and outcome.status == "failed"


def _present(outcome: InstallResult | NotInstalled) -> bool:
    return isinstance(outcome, NotInstalled) and outcome.status == "present"


def _result_of(pack: PackNow, outcome: InstallResult | NotInstalled) -> UpdateResult:
    if isinstance(outcome, InstallResult):
        return UpdateResult(
            name=outcome.name,
            scope=pack.scope,
            status="added",
            message=f"new in {pack.record.key}; installed",
            new_commit=pack.commit,
        )
    return UpdateResult(
        name=outcome.name,
        scope=pack.scope,
        status="failed",
        message=f"new in {pack.record.key} (folder {outcome.folder}), not installed: {outcome.code}: "
        f"{outcome.message} (fix: {outcome.fix})",
        new_commit=pack.commit,
    )
