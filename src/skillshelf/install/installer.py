"""``skillshelf install``: fetch, validate, stage, swap into place, record in the lock.

A skill is validated (``read_skill`` then ``validate_paths``, with the Codex
profile) before anything reaches the skills root; it is copied into a staging folder on the
same file system and renamed into place in one step, so a half-installed skill never exists.

Where: the folders the chosen agents read (:mod:`skillshelf.install.targets`, ``install
--for``): ``~/.agents/skills`` / ``~/.claude/skills`` in the ``user`` scope, the project's
``.agents/skills`` / ``.claude/skills`` in the ``project`` scope; ``--for skillshelf`` keeps
the old place, ``<user data folder>/skills`` (a root with origin ``INSTALLED`` that only
skillshelf scans).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.install.allowed import SourcePolicy
from skillshelf.install.files import copy_skill_tree, io_failure, root_lock, swap_into_place, workspace
from skillshelf.install.found import SkillValidationError, archive_top, checked_skill, find_skill_folder
from skillshelf.install.git import GitRunner, ProgressFn
from skillshelf.install.kept import kept_root, needs_keeping, set_aside
from skillshelf.install.lock import (
    FOLDER_NAME,
    LockEntry,
    content_hash,
    read_lock,
    write_lock,
    write_without_secrets,
)
from skillshelf.install.page_refs import settle_page_ref
from skillshelf.install.sources import Fetched, Source, fetch_whole, narrow, parse_source
from skillshelf.install.taken import (
    NameTakenError,
    PlacedTwiceError,
    SameSkill,
    left_by_interrupted_install,
    name_taken,
    same_name,
)
from skillshelf.install.takeover import check_source_apart, took_over
from skillshelf.install.targets import (
    InstallTarget,
    check_links,
    default_target,
    inside_project,
    links_not_kept,
    listed_beside,
    own_link,
    place_links,
    placement,
    sharing_names,
    unlink_links,
)
from skillshelf.install.url_secrets import secret_parts
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillRoot

__all__ = [
    "Destination",
    "InstallResult",
    "InstallScope",
    "NameTakenError",
    "SkillValidationError",
    "install_skill",
    "installed_skill_root",
    "skills_root_for",
]

InstallScope = Literal["user", "project"]
CopyFn = Callable[[Path, Path], object]


@dataclass(frozen=True, slots=True, kw_only=True)
class InstallResult:
    """What one install did."""

    name: str
    path: Path
    scope: InstallScope
    entry: LockEntry
    replaced: bool = False
    files: int = 0
    diagnostics: tuple[Diagnostic, ...] = ()
    kept: Path | None = None  # where the replaced folder was kept (changed by hand, or not ours)
    dry_run: bool = False  # what the install would do; nothing was written

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "dry_run": self.dry_run,
            "skill_name": self.entry.skill_name,
            "path": str(self.path),
            "scope": self.scope,
            "replaced": self.replaced,
            "kept": None if self.kept is None else str(self.kept),
            "files": self.files,
            "lock": self.entry.to_dict(),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def skills_root_for(scope: InstallScope, env: Env) -> Path:
    """The folder skills of ``scope`` are installed into."""
    if scope == "user":
        return env.dirs.data / "skills"
    if scope == "project":
        return env.project_root / ".agents" / "skills"
    raise UsageError(f"unknown scope {scope!r}", hint="use --scope user or --scope project")


def installed_skill_root(env: Env) -> SkillRoot:
    """The user-scope install folder as a skill root, for discovery to scan."""
    return SkillRoot(path=skills_root_for("user", env), scope=Scope.USER, origin=RootOrigin.INSTALLED)


def _root_for(scope: InstallScope, path: Path) -> SkillRoot:
    if scope == "user":
        return SkillRoot(path=path, scope=Scope.USER, origin=RootOrigin.INSTALLED)
    return SkillRoot(path=path, scope=Scope.REPO, origin=RootOrigin.AGENTS_REPO)


def _check_name(name: str) -> str:
    if not FOLDER_NAME.fullmatch(name):
        raise UsageError(
            f"{name!r} cannot be a skill folder name",
            hint="use at most 128 letters, digits, '.', '_' and '-', starting with a letter or digit",
        )
    return name


def _lock_entry(source: Source, name: str, skill: Skill, commit: str | None, staged: Path) -> LockEntry:
    return LockEntry(
        name=name,
        skill_name=skill.name,
        source=source.text,
        kind=source.kind,
        location=source.location,
        subdir=source.subdir,
        ref=source.ref,
        commit=commit,
        content_hash=content_hash(staged),
        hash_counts_folders=True,
        installed_at=datetime.now(UTC).isoformat(timespec="seconds"),
        credentials=secret_parts(source.secret_location) if source.secret_location else (),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Destination:
    """Where and how skills are placed: the skills root and what goes with each skill there."""

    root: Path
    scope: InstallScope
    replace: bool = False
    link_roots: Sequence[Path] = ()
    agents: Sequence[str] = ()
    kept_root: Path | None = None  # a replaced folder skillshelf could not fetch again goes here
    copy_file: CopyFn | None = None
    dry_run: bool = False  # check everything, write nothing
    pack: str | None = None  # the pack the skills placed here belong to (``install --all``)
    placed: frozenset[str] = frozenset()  # names other skills of this run took: never replaced
    force_links: bool = False  # what holds a link's place, not installed there, goes to kept_root
    name_roots: Sequence[Path] = ()  # where another skill of the same name clashes (taken.py)
    listed_beside: Sequence[Path] = ()  # Codex's bundled and admin skills: the same name is IS133
    same_name_ok: bool = False  # install beside such a skill (IS132), not refuse: --force, --name
    archive_top: str | None = None  # the one top folder of the archive the skills come from
    secrets_dropped: tuple[str, ...] = ()  # lock entries just written without an old secret (IS130)


def place_skill(
    folder: Path,
    source: Source,
    commit: str | None,
    work: Path,
    dest: Destination,
    *,
    name: str | None = None,
    progress: ProgressFn | None = None,
) -> InstallResult:
    """Validate the fetched skill ``folder`` (from ``source``) and swap it into ``dest.root``, staging
    in the empty folder ``work``; caller holds :func:`root_lock`. Each of ``dest.link_roots`` gets a
    link to the installed folder (``install --for all``); the lock entry records them and
    ``dest.agents``. A folder it replaces that skillshelf could not fetch again goes to
    ``dest.kept_root`` (:mod:`skillshelf.install.kept`; None: deleted)."""
    skill, diags = checked_skill(folder, source, _root_for(dest.scope, dest.root))
    target_name = _check_name(name) if name else _default_name(skill, folder)
    target = dest.root / target_name
    if target_name in dest.placed:
        raise PlacedTwiceError(target)
    replaced = target.exists() or target.is_symlink()
    lock = read_lock(dest.root)
    links = [r / target_name for r in dest.link_roots]
    check_source_apart(folder, [target, *links])
    old = lock.get(target_name)
    same = _same_skill(source, folder, dest, links)
    orphan = replaced and old is None and not dest.replace and left_by_interrupted_install(target, folder)
    if replaced and not dest.replace and not orphan:
        raise name_taken(target, old, same)
    clash = functools.partial(same_name, ok=dest.same_name_ok, old=old, same_skill=same)
    diags = (*diags, *clash(skill.name, target, dest.name_roots, beside=dest.listed_beside))
    force = dest.force_links and dest.kept_root is not None  # never without a place to keep them
    in_the_way = check_links(links, target, force=force, scope=dest.scope)

    def entry_of(files_at: Path) -> LockEntry:
        entry = _lock_entry(source, target_name, skill, commit, files_at)
        return dataclasses.replace(
            entry, agents=tuple(dest.agents), links=tuple(map(str, links)), pack=dest.pack
        )

    def result(entry: LockEntry, files: int = 0, kept: Path | None = None) -> InstallResult:
        return InstallResult(
            name=target_name,
            path=target,
            scope=dest.scope,
            entry=entry,
            replaced=replaced and not orphan,
            files=files,
            diagnostics=(*diags, *in_the_way.notes(target), *took_over(target, orphan, dest.dry_run)),
            kept=kept,
            dry_run=dest.dry_run,
        )

    if dest.dry_run:
        return result(entry_of(folder))
    if progress is not None:
        progress("Copying", None)
    staged = work / "stage" / target_name
    staged.parent.mkdir()
    copy = {"copy_file": dest.copy_file} if dest.copy_file else {}
    files = copy_skill_tree(folder, staged, **copy)
    entry = entry_of(staged)
    mine = own_link(target) is not None  # a link skillshelf made for another install: nothing to keep
    keep = dest.kept_root is not None and not (mine or orphan) and needs_keeping(target, old)
    aside = set_aside(target, target_name, dest.kept_root or work, work / "old", keep=keep)

    def link_and_record() -> None:
        record = functools.partial(write_lock, dest.root, lock.with_entry(entry))
        place_links(links, target, in_the_way, relative=dest.scope == "project", then=record)

    try:
        in_the_way = in_the_way.keep(dest.kept_root or work, work)
        swap_into_place(staged, target, aside.trash, replace=dest.replace or orphan, then=link_and_record)
    except BaseException:
        aside.drop_copy()
        in_the_way.drop_copies()
        raise
    if old is not None:
        unlink_links(links_not_kept(old.links, links, dest.root, target))
    return result(entry, files, aside.kept)


def _same_skill(source: Source, folder: Path, dest: Destination, links: Sequence[Path]) -> SameSkill:
    """What tells the skill ``folder`` of ``source``, installed already, from another skill of
    its name (:mod:`skillshelf.install.taken`)."""
    return SameSkill(
        source=source,
        fetched=folder,
        top=dest.archive_top,
        agents=dest.agents,
        links=links,
        dropped=dest.secrets_dropped,
    )


def stage_and_swap(
    source: Source,
    dest: Destination,
    *,
    name: str | None,
    git: GitRunner,
    progress: ProgressFn | None,
    fetcher: Callable[[Source], Fetched] | None = None,
) -> InstallResult:
    """The whole install of the one skill in ``source``; caller holds :func:`root_lock`.

    The files come from ``fetcher`` when given (already fetched, to be read only), else they
    are fetched into the work folder with ``git``."""
    with workspace(dest.root) as work:
        if fetcher is not None:
            fetched = fetcher(source)
        else:
            whole = fetch_whole(source, work, git=git, progress=progress)
            dest = dataclasses.replace(dest, archive_top=archive_top(source, whole.folder))
            fetched = narrow(whole, source)
        folder = find_skill_folder(fetched.folder, source)
        return place_skill(folder, source, fetched.commit, work, dest, name=name, progress=progress)


def _default_name(skill: Skill, folder: Path) -> str:
    for candidate in (skill.name, folder.name):
        if FOLDER_NAME.fullmatch(candidate):
            return candidate
    raise UsageError(f"cannot derive a folder name from skill {skill.name!r}", hint="pass --name NAME")


def install_skill(
    source: str,
    *,
    env: Env,
    scope: InstallScope = "user",
    name: str | None = None,
    force: bool = False,
    progress: ProgressFn | None = None,
    git: GitRunner | None = None,
    copy_file: CopyFn | None = None,
    target: InstallTarget | None = None,
    dry_run: bool = False,
) -> InstallResult:
    """Install the skill at ``source`` (folder, git URL ``[@ref][#subdir]``, ``.zip``/``.skill``)
    where the ``target`` agents read skills (:mod:`skillshelf.install.targets`; ``None``: the
    config's ``install.agents``, else the agents found here).

    Raises :class:`InstallError` (nothing changed) when the source cannot be fetched, holds no
    or several skills, does not validate, is unsafe, or the name is taken and ``force`` is off.
    With ``dry_run`` every check is made and nothing is written: the result says what would be.
    """
    session = install_session(source, env, scope, target, force=force, copy_file=copy_file, dry_run=dry_run)
    with session as (parsed, dest):
        dest = dataclasses.replace(dest, same_name_ok=dest.same_name_ok or name is not None)
        runner = git or GitRunner(environ=env.environ)
        settled = settle_page_ref(parsed, runner)
        return stage_and_swap(settled, dest, name=name, git=runner, progress=progress)


@contextlib.contextmanager
def install_session(
    source: str,
    env: Env,
    scope: InstallScope,
    target: InstallTarget | None,
    *,
    force: bool,
    copy_file: CopyFn | None = None,
    dry_run: bool = False,
    policy: SourcePolicy | None = None,
) -> Iterator[tuple[Source, Destination]]:
    """The parsed ``source`` and where its skills go, with the skills root locked throughout.

    A source the ``policy`` does not allow (None: the configuration's
    ``requirements.allowed_install_sources``) is refused before anything is fetched. Folders
    made for a root that is still empty at the end are taken away again, and an ``OSError``
    becomes :func:`io_failure`."""
    parsed = parse_source(source, cwd=env.cwd)
    if policy is None or target is None:
        from skillshelf.config import load_config

        config = load_config(env)
        policy = policy or SourcePolicy.from_config(config)
        target = target or default_target(env, config.get("install.agents"))
    policy.check(parsed)
    place = placement(scope, target, env)
    inside_project(scope, env, (place.root, *place.link_roots))
    root = place.root
    made = [d for d in (root, *root.parents) if not d.exists()]
    try:
        with root_lock(root):
            dropped = () if dry_run else write_without_secrets(root)
            yield (
                parsed,
                Destination(
                    root=root,
                    scope=scope,
                    replace=force,
                    force_links=force,
                    link_roots=place.link_roots,
                    agents=place.agents,
                    kept_root=kept_root(env),
                    copy_file=copy_file,
                    dry_run=dry_run,
                    name_roots=sharing_names(root, place.agents, env),
                    listed_beside=listed_beside(root, place.agents, env),
                    same_name_ok=force,
                    secrets_dropped=dropped,
                ),
            )
    except OSError as exc:
        raise io_failure(root, exc) from exc
    finally:
        _drop_empty(made)


def _drop_empty(folders: Sequence[Path]) -> None:
    """Remove the folders an install made for a root it then did not fill (deepest first)."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return
