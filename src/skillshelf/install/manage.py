"""Installed skills after the fact: ``update`` (or, with ``check``, which have an update),
``remove``, and the lock files' problems (provenance for ``list`` is
:mod:`skillshelf.install.provenance`).

Nothing here overwrites or deletes a skill that was changed by hand since it was installed
(its content hash no longer matches the lock) unless ``force`` is given, and then the changed
copy is moved aside (:mod:`skillshelf.install.kept`), never deleted. Only the entries
:func:`~skillshelf.install.lock.read_lock` accepts are acted on (a plain folder name directly
inside the skills root); :func:`lock_diagnostics` reports the others, which stay untouched.
In a project the user has not trusted, ``update`` copies nothing from a source on this machine
outside the project (:func:`~skillshelf.install.pack_update.foreign_local`): the entry is
``skipped`` until the project is trusted. Each skill's lock entry is read again under the root's
lock when its turn comes: one removed meanwhile is ``skipped``, never installed again.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.errors import InstallError, SkillshelfError
from skillshelf.install.allowed import SourcePolicy, configured_policy
from skillshelf.install.fetch_once import FetchOnce, fetch_once
from skillshelf.install.files import io_failure, remove_tree, root_lock, workspace
from skillshelf.install.git import GitRunner, ProgressFn
from skillshelf.install.installed import (
    FOREIGN,
    InstalledSkill,
    NotInstalledError,
    RemoveResult,
    UpdateResult,
    UpdateStatus,
    credentials_needed,
    folders_of,
    install_target,
    installed_in_several,
    not_in_folder,
    owner_of,
)
from skillshelf.install.installer import (
    Destination,
    InstallResult,
    InstallScope,
    skills_root_for,
    stage_and_swap,
)
from skillshelf.install.kept import kept_root, needs_keeping, set_aside
from skillshelf.install.links import confined_links, stray_links
from skillshelf.install.lock import (
    LockEntry,
    lock_diagnostics,
    lock_path,
    read_lock,
    write_lock,
    write_without_secrets,
)
from skillshelf.install.pack_update import (
    add_gained_skills,
    foreign_local,
    gone_from_pack,
    subdir_refusal,
    survey_packs,
)
from skillshelf.install.provenance import locally_modified
from skillshelf.install.targets import drop_links, inside_project, put_back_links, sharing_names
from skillshelf.install.upstream import checked, source_of, unchanged_upstream
from skillshelf.install.visibility import FolderOwner, agent_roots

__all__ = [
    "InstalledSkill",
    "RemoveResult",
    "UpdateResult",
    "install_roots",
    "installed_roots",
    "link_diagnostics",
    "list_installed",
    "lock_diagnostics",
    "remove_skill",
    "update_skills",
]


def _scoped_roots(env: Env, scope: InstallScope | None = None) -> tuple[tuple[InstallScope, Path], ...]:
    """Each skills root ``install`` writes to (both scopes, or ``scope``'s) with its scope, once: a
    folder both scopes name (the project is the home folder, or in a home that is a repository) is
    the user's, as ``install`` and ``list`` call it; asked for by ``scope``, it is that scope's."""
    if scope is not None:
        return tuple((scope, root) for root in install_roots(scope, env))
    user = install_roots("user", env)
    own = {os.path.realpath(root) for root in user}
    project = (root for root in install_roots("project", env) if os.path.realpath(root) not in own)
    return (*(("project", root) for root in project), *(("user", root) for root in user))


def installed_roots(env: Env, scope: InstallScope | None = None) -> tuple[Path, ...]:
    """The skills roots ``install`` writes to (both scopes, or ``scope``'s)."""
    return tuple(root for _, root in _scoped_roots(env, scope))


def link_diagnostics(env: Env, scope: InstallScope | None = None) -> tuple[Diagnostic, ...]:
    """The links lock entries name outside the agents' skills folders (``IS402``; never used)."""
    found: list[Diagnostic] = []
    for each, root in _scoped_roots(env, scope):
        try:
            entries = tuple(read_lock(root))
        except InstallError:
            continue  # lock_diagnostics reports the file
        for entry in entries:
            found.extend(
                Diagnostic(
                    code="IS402",
                    severity=Severity.WARNING,
                    message=f"lock entry {entry.name!r}: link {link[:200]!r} ignored: it is not in an "
                    "agent's skills folder",
                    fix="remove the link from the entry; `skillshelf install --for ...` makes the links",
                    path=lock_path(root),
                    field=entry.name,
                )
                for link in stray_links(entry, each, env)
            )
    return tuple(found)


def install_roots(scope: InstallScope, env: Env) -> tuple[Path, ...]:
    """Every folder ``install`` can put a skill in for ``scope`` (the agents' and skillshelf's),
    each once: a folder a symlink shares under two names (``~/.claude/skills ->
    ~/.agents/skills``) is one, named as the first of skillshelf's, Codex's, Claude Code's."""
    named: dict[str, Path] = {}
    for root in (skills_root_for(scope, env), *agent_roots(scope, env).values()):
        named.setdefault(os.path.realpath(root), root)
    return tuple(named.values())


def list_installed(env: Env, *, scope: InstallScope | None = None) -> tuple[InstalledSkill, ...]:
    """Every skill in the lock files of the project and user install roots."""
    return tuple(
        InstalledSkill(scope=each, root=root, entry=confined_links(e, each, env))
        for each, root in _scoped_roots(env, scope)
        for e in read_lock(root)
    )


def _select(
    env: Env, names: Sequence[str], scope: InstallScope | None
) -> tuple[list[InstalledSkill], NotInstalledError | None]:
    """The installed skills ``names`` name (all without names), and the error for the names that
    name none, each on its own; raised when no name names one."""
    installed = list_installed(env, scope=scope)
    if not names:
        return list(installed), None
    chosen = [i for i in installed if i.entry.name in names or i.entry.skill_name in names]
    found = {i.entry.name for i in chosen} | {i.entry.skill_name for i in chosen}
    missing = [name for name in dict.fromkeys(names) if name not in found]
    unknown = NotInstalledError(missing, [i.entry.name for i in installed]) if missing else None
    if unknown is not None and not chosen:
        raise unknown
    return chosen, unknown


def _held_back(item: InstalledSkill, env: Env, policy: SourcePolicy) -> tuple[UpdateStatus, str] | None:
    """Why ``update`` (and ``--check``) does not fetch ``item``'s source at all, or None."""
    entry = item.entry
    if (subdir := subdir_refusal(entry)) is not None:
        return "failed", subdir
    if foreign_local(item.scope, entry.location, env):
        return "skipped", FOREIGN
    if entry.needs_credentials:
        return "failed", credentials_needed(item, env).one_line()
    refused = policy.refusal(source_of(entry))
    if refused is not None:
        return "failed", f"{refused.one_line()}; `skillshelf remove {entry.name}` takes it away"
    return None


_REMOVED = "removed while update ran; not installed again"
_REPLACED = "installed again or updated by another command while update ran; run `skillshelf update` again"


def _update_one(
    item: InstalledSkill,
    *,
    env: Env,
    force: bool,
    fetched: FetchOnce,
    progress: ProgressFn | None,
    kept: Path,
    policy: SourcePolicy,
    check: bool = False,
) -> UpdateResult:
    entry = item.entry
    note = [_SECRET_CHECKED if check and entry.secret_location else ""]  # IS130 once it is said

    def result(status: UpdateStatus, message: str, new_commit: str | None = None) -> UpdateResult:
        return UpdateResult(
            name=entry.name,
            scope=item.scope,
            status=status,
            message=message + note[0],
            old_commit=entry.commit,
            new_commit=new_commit,
        )

    held = _held_back(item, env, policy)
    if held is not None:
        return result(*held)
    if progress is not None:
        progress(f"Checking {entry.name}", None)
    try:
        inside_project(item.scope, env, folders_of(item))
        with root_lock(item.root):
            now = read_lock(item.root).get(entry.name)
            if now is None or confined_links(now, item.scope, env) != entry:
                return result("skipped", _REMOVED if now is None else _REPLACED)
            if not check and entry.name in write_without_secrets(item.root):
                note[0] = _SECRET_DROPPED
            missing = not item.path.is_dir()
            modified = not missing and locally_modified(item.path, entry)
            if check:
                return result(*checked(item, missing, modified, fetched))
            if modified and not force:
                return result("skipped", "changed locally since install; --force updates it and keeps yours")
            reason = None if modified or missing else unchanged_upstream(item, fetched)
            if reason is not None:
                return result("up-to-date", reason, entry.commit)
            dest = Destination(
                root=item.root,
                scope=item.scope,
                replace=True,
                link_roots=[Path(link).parent for link in entry.links],
                agents=entry.agents,
                kept_root=kept,
                pack=entry.pack,
                name_roots=sharing_names(item.root, entry.agents, env),
            )
            installed = stage_and_swap(
                source_of(entry), dest, name=entry.name, git=fetched.git, progress=progress, fetcher=fetched
            )
    except OSError as exc:
        failure = io_failure(item.root, exc)
        return result("failed", failure.one_line())
    except SkillshelfError as exc:
        hint = exc.hint
        if exc.code == "IS103":  # the folder or archive it came from moved (or this is a clone)
            hint = (
                f"install it again from where it is now (`skillshelf install SOURCE --name {entry.name} "
                f"--scope {item.scope} --for {install_target(item, env)} --force`), "
                f"or `skillshelf remove {entry.name}`"
            )
        return result("failed", f"{exc.code}: {exc.message} (fix: {hint})")
    new = installed.entry
    if missing:
        return result("updated", "its folder was missing; installed it again", new.commit)
    if new.content_hash == entry.content_hash:
        return result("up-to-date", "no change in the skill's files", new.commit)
    return dataclasses.replace(
        result("updated", _what_changed(entry, installed), new.commit), kept=installed.kept
    )


#: What ``update`` adds about an entry an older version recorded with a secret in its URL
#: (:mod:`skillshelf.install.lock_secrets`): written without it (``IS130``), or, with ``--check``
#: (which changes nothing), to be.
_SECRET_DROPPED = "; IS130: the lock entry recorded its source URL with a user part or token, now left out"
_SECRET_CHECKED = (
    "; IS130: the lock entry records its source URL with a user part or token; `skillshelf update` "
    "records it without"
)


def _what_changed(old: LockEntry, installed: InstallResult) -> str:
    """An update's detail: the commits (or new contents), a rename upstream, where a changed copy went."""
    new = installed.entry
    moved = f"{(old.commit or '')[:12]} -> {(new.commit or '')[:12]}" if new.commit else "new contents"
    if installed.kept is not None:
        moved += f"; your changed copy is kept in {installed.kept}"
    if new.skill_name != old.skill_name:
        moved = f"renamed upstream from {old.skill_name!r} to {new.skill_name!r}; {moved}"
    return moved


def update_skills(
    names: Sequence[str] = (),
    *,
    env: Env,
    scope: InstallScope | None = None,
    force: bool = False,
    check: bool = False,
    progress: ProgressFn | None = None,
    git: GitRunner | None = None,
    policy: SourcePolicy | None = None,
) -> tuple[UpdateResult, ...]:
    """Update the named installed skills (all when ``names`` is empty) from their sources; with
    ``check``, only say which have an update (``available``) and change nothing.

    A skill whose source the ``policy`` (None: the configuration's
    ``requirements.allowed_install_sources``, :mod:`skillshelf.install.allowed`) does not allow
    is ``failed`` without being fetched, and a pack whose source it does not allow gains nothing.

    One failing skill does not stop the others, nor does a name that is not installed (a
    ``failed`` result of its own; :class:`NotInstalledError` when no name is); each result says
    what happened. Each source is
    fetched once, however many of the skills come from it (:mod:`skillshelf.install.fetch_once`).
    Updating all skills also installs the skills their packs gained (``added``; with ``check``:
    ``new``); a skill its pack dropped is left as it is (:mod:`skillshelf.install.pack_update`).
    """
    chosen, unknown = _select(env, names, scope)
    kept = kept_root(env)
    allowed = policy or configured_policy(env)
    with fetch_once(env.dirs.cache / "update", git or GitRunner(environ=env.environ), progress) as fetched:
        packs = survey_packs(chosen, fetched, allowed)
        results = [
            gone_from_pack(i, packs)
            or _update_one(
                i,
                env=env,
                force=force,
                fetched=fetched,
                progress=progress,
                kept=kept,
                policy=allowed,
                check=check,
            )
            for i in chosen
        ]
        if not names:
            results += add_gained_skills(packs, fetched, env=env, check=check, kept=kept, progress=progress)
        return (*results, *(unknown.results() if unknown else ()))


def remove_skill(
    name: str,
    *,
    env: Env,
    scope: InstallScope | None = None,
    force: bool = False,
    folder: FolderOwner | None = None,
) -> RemoveResult:
    """Remove an installed skill and its lock entry; refuses hand-edited skills unless ``force``,
    and then keeps them (:mod:`skillshelf.install.kept`).

    ``folder`` (``install --for``'s word) picks one of several skills folders holding ``name``;
    a name in several places, not narrowed to one, is refused (``IS406``)."""
    installed = _select(env, [name], scope)[0]
    matches = [m for m in installed if folder is None or owner_of(m, env) == folder]
    if not matches:
        raise not_in_folder(name, folder, installed, env, scope=scope)
    if len(matches) > 1:
        raise installed_in_several(name, matches, env)
    inside_project(matches[0].scope, env, folders_of(matches[0]))
    try:
        return _remove(matches[0], force=force, kept=kept_root(env))
    except OSError as exc:
        raise io_failure(matches[0].root, exc) from exc


def _remove(item: InstalledSkill, *, force: bool, kept: Path) -> RemoveResult:
    with root_lock(item.root):
        changed = needs_keeping(item.path, item.entry)
        if changed and not force:
            raise InstallError(
                f"{item.path} was changed since it was installed; removing it would lose those changes",
                hint="copy your changes elsewhere, or pass --force (the changed copy is then kept aside)",
                code="IS405",
            )
        with workspace(item.root) as work:
            aside = set_aside(item.path, item.entry.name, kept, work / "removed", keep=changed)
            trash, taken = aside.trash, []
            try:
                taken = drop_links(item.entry.links, item.path)
                if item.path.exists() or item.path.is_symlink():
                    os.rename(item.path, trash)
                write_lock(item.root, read_lock(item.root).without(item.entry.name))
            except BaseException:
                if trash.exists() or trash.is_symlink():
                    os.rename(trash, item.path)
                put_back_links(taken)
                aside.drop_copy()
                raise
            if not aside.trash_is_kept:
                remove_tree(trash)
    return RemoveResult(
        name=item.entry.name, scope=item.scope, path=item.path, source=item.entry.source, kept=aside.kept
    )
