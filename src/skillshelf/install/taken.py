"""The refusals to place a skill where a folder of its name is, or will be, and the one case
that is no refusal: the same skill installed there again (:class:`AlreadyInstalledError`).

A skill whose ``name`` another skill in the folders Codex reads already has (the user's own
under another folder name, the project's, another install) is refused too
(:class:`SameNameError`, ``IS305``): Codex would list both under one name, and a ``$name``
would select neither. ``install --force`` or ``--name`` installs it anyway (``IS132`` says so);
a skill of Codex's own (its bundled skills, the admin's) is no refusal, only ``IS133``;
``update`` never does: a skill its source renamed to a taken name is left as it is.

The same skill at the other scope (installed by skillshelf from the same place and ref, with the
same files, unchanged since: ``install --scope project`` of what the user installed for
themselves, or the other way round) is no refusal: a project commits its copy for everyone who
clones it, and a user's own copy serves every other folder. Codex 0.171.0 lists both (checked
with the oracle: one entry per scope, same name and description), so ``IS132`` says so. The
same skill in the same folder under another folder name (``install SRC --name mine``, or a
rename upstream that ``update`` followed) is :class:`AlreadyInstalledError`: installing the same
source again asks for no second copy (``--name`` or ``--force`` makes one, with ``IS132``).
Claude Code knows a skill by its folder's name, which the folder checks cover."""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.errors import InstallError
from skillshelf.install.files import content_hash
from skillshelf.install.git import git_url
from skillshelf.install.lock import LockEntry, hash_as_recorded, read_lock
from skillshelf.install.provenance import locally_modified
from skillshelf.install.sources import Source
from skillshelf.install.targets import own_link
from skillshelf.install.url_secrets import SECRET_NOT_RECORDED, without_secrets
from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
from skillshelf.skills.parse import read_skill

__all__ = [
    "AlreadyInstalledError",
    "NameTakenError",
    "PlacedTwiceError",
    "SameNameError",
    "SameSkill",
    "left_by_interrupted_install",
    "name_taken",
    "same_name",
    "same_name_holder",
    "same_name_holders",
    "same_place",
]


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
    now holds other files, which ``update`` installs). ``diagnostics``: ``IS130`` when the URL
    typed, or the one the lock entry recorded (now written without it), held a secret."""

    def __init__(self, target: Path, entry: LockEntry, *, source_changed: bool, secret: bool = False) -> None:
        self.target, self.entry, self.source_changed = target, entry, source_changed
        self.diagnostics = (SECRET_NOT_RECORDED,) if secret else ()
        newer = "the source has changed since: " if source_changed else ""
        InstallError.__init__(
            self,
            f"{entry.skill_name!r} is already installed from {entry.source} at {target}",
            hint=f"{newer}use `skillshelf update {target.name}` for a newer version",
        )


def name_taken(target: Path, entry: LockEntry | None, same: SameSkill) -> NameTakenError:
    """The refusal to install the skill ``same.fetched`` from ``same.source`` at ``target``, where
    a folder of its name is: :class:`AlreadyInstalledError` when ``entry`` says it came from that
    same place and ref (``same.top``: the archive's one top folder, see :func:`same_place`), for
    the same agents with the same links in place, and the folder is unchanged."""
    linked_to = own_link(target)
    if (
        entry is None
        or linked_to is not None
        or target.is_symlink()
        or not same_place(entry, same.source, top=same.top)
        or not _same_agents(entry.agents, same.agents, same.links)
        or not _links_in_place(entry, same.links, target)
        or locally_modified(target, entry)
    ):
        return NameTakenError(target, entry, linked_to=linked_to)
    return same.already(target, entry)


def _same_agents(recorded: Sequence[str], agents: Sequence[str], links: Sequence[Path]) -> bool:
    """Whether an install for ``agents`` is the one recorded for ``recorded``: the same agents,
    or, in a skills folder both agents read (a link between their folders: both agents and no
    link to make), an entry an older install recorded for one of them."""
    if sorted(recorded) == sorted(agents):
        return True
    return not links and set(agents) == {"codex", "claude"} and set(recorded) <= set(agents)


def same_place(entry: LockEntry, source: Source, *, top: str | None = None) -> bool:
    """Whether ``entry`` was installed from the place and ref ``source`` names, however it was
    spelled (``repo#skills/pdf`` or ``repo/skills/pdf`` for a local folder; an archive's
    ``#subdir`` with or without ``top``, the one top folder the archive holds as fetched now,
    None when it holds more or is not known)."""
    if entry.kind != source.kind or entry.ref != source.ref:
        return False
    if source.kind == "folder":
        return _joined(entry.location, entry.subdir) == _joined(source.location, source.subdir)
    if git_url(without_secrets(entry.location)) != without_secrets(source.location):  # an older lock
        return False
    if source.kind == "archive":
        return _same_in_archive(entry.subdir or "", source.subdir or "", top)
    return (entry.subdir or None) == (source.subdir or None)


def _same_in_archive(one: str, other: str, top: str | None) -> bool:
    """Whether two ``#subdir`` of one archive name the same folder: equal, or one of them with
    ``top``, the one top folder a release archive wraps everything in, left out (``skills/pdf``
    and ``tools-1.0/skills/pdf``; :func:`~skillshelf.install.sources.narrow` reads both alike).
    Any other leading folder is another place (``other/skills/pdf``). No ``#subdir`` at all is
    the top folder itself (a one-skill archive ``one.zip`` and ``one.zip#one``)."""
    shorter, longer = sorted((one.strip("/"), other.strip("/")), key=len)
    if shorter == longer:
        return True
    return bool(top) and longer == (f"{top}/{shorter}" if shorter else top)


def _joined(location: str, subdir: str | None) -> Path:
    return Path(location).joinpath(*(subdir.split("/") if subdir else ()))


def _links_in_place(entry: LockEntry, links: Sequence[Path], target: Path) -> bool:
    """Whether ``entry`` records exactly ``links`` and each still leads to ``target``."""
    if sorted(entry.links) != sorted(map(str, links)):
        return False
    real = os.path.realpath(target)
    return all(os.path.islink(link) and os.path.realpath(link) == real for link in links)


class SameNameError(NameTakenError):
    """Another skill the same agents read already goes by the skill's ``name`` (``holder``: its
    folder); ``renamed_from``: the name the installed skill had before its source renamed it."""

    def __init__(self, target: Path, name: str, holder: Path, *, renamed_from: str | None = None) -> None:
        self.target, self.entry, self.holder = target, None, holder
        if renamed_from is not None:
            message = (
                f"the source of {target.name!r} renamed its skill {renamed_from!r} to {name!r}, and the "
                f"skill at {holder} is already named {name!r}; {target.name!r} was left as it is"
            )
            hint = f"rename or remove the skill at {holder}, or `skillshelf remove {target.name}`"
        else:
            message = f"a skill named {name!r} is already at {holder}, where the same agents read it"
            hint = (
                f"rename or remove the one at {holder} first, or install beside it anyway with --name "
                f"FOLDER or --force (the agents then list two skills named {name!r})"
            )
        InstallError.__init__(self, message, hint=hint)


def same_name(
    name: str,
    target: Path,
    roots: Sequence[Path],
    *,
    ok: bool,
    old: LockEntry | None = None,
    same_skill: SameSkill | None = None,
    beside: Sequence[Path] = (),
) -> tuple[Diagnostic, ...]:
    """Nothing when no other skill of ``roots`` is called ``name``, or when ``old`` (the lock
    entry of what ``target`` holds now) had that name already; else :class:`SameNameError`, or
    with ``ok`` (``install --force``, ``--name``) the warning ``IS132`` naming that skill's folder.

    A holder in ``target``'s own folder that ``same_skill`` says is this very skill under another
    folder name (``install SRC --name mine``, or a rename upstream ``update`` followed) is
    :class:`AlreadyInstalledError` without ``ok``: a second copy beside it is what nobody asks
    for by installing the same source again. One at the other scope (same source, same files) is
    no refusal, only ``IS132`` saying Codex lists it twice. One in ``beside`` (Codex's bundled and
    admin folders, :func:`~skillshelf.install.targets.listed_beside`) is no refusal either, only
    ``IS133``."""
    if old is not None and old.skill_name == name:
        return ()
    listed = tuple(_listed_note(name, holder) for holder in same_name_holders(name, target, beside))
    holders = same_name_holders(name, target, roots)
    here = os.path.realpath(target.parent)
    if same_skill is not None and not ok:
        for holder in (h for h in holders if os.path.realpath(h.parent) == here):
            installed = same_skill.installed_at(holder)
            if installed is not None:
                raise installed
    copies = [
        holder
        for holder in holders
        if same_skill is not None and os.path.realpath(holder.parent) != here and same_skill.copy_at(holder)
    ]
    others = [holder for holder in holders if holder not in copies]
    notes = (*listed, *(_copy_note(name, holder) for holder in copies))
    if not others:
        return notes
    if not ok:
        raise SameNameError(target, name, others[0], renamed_from=None if old is None else old.skill_name)
    return (
        *notes,
        diagnostic(
            "IS132",
            Severity.WARNING,
            f"another skill named {name!r} is at {others[0]}: the agents list both under that name",
            f"rename or remove one of them; `${name}` selects neither while both are there",
            path=others[0],
        ),
    )


def _listed_note(name: str, holder: Path) -> Diagnostic:
    """``IS133``: Codex's own skill at ``holder`` (bundled, in ``$CODEX_HOME/skills/.system``, a cache
    Codex writes again itself, or the admin's) has the name too; Codex lists both."""
    bundled = holder.parent.name == ".system"
    whose = "Codex's bundled skill" if bundled else "the admin's skill"
    only = ", and `[skills.bundled] enabled = false` in Codex's config.toml leaves only this one"
    return diagnostic(
        "IS133",
        Severity.WARNING,
        f"{whose} {name!r} at {holder} is listed too: Codex lists both under that name",
        f"`${name}` selects neither while both are there; a mention with its path, `[${name}](PATH)`, "
        f"selects one{only if bundled else ''}",
        path=holder,
    )


def _copy_note(name: str, holder: Path) -> Diagnostic:
    return diagnostic(
        "IS132",
        Severity.WARNING,
        f"the same skill {name!r}, from the same source, is also installed at {holder}: Codex lists it twice",
        f"if one copy is enough, remove the other (`skillshelf remove {holder.name} --scope user` or "
        f"`--scope project`); `${name}` selects neither while both are there",
        path=holder,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SameSkill:
    """Whether a skill folder holding the name of the skill ``fetched`` from ``source`` is that
    skill, installed by skillshelf (``top``: the archive's one top folder, see :func:`same_place`;
    ``agents`` and ``links``: where this install puts it; ``dropped``: the lock entries whose
    secret was just left out of the file, ``Lock.held_secrets``)."""

    source: Source
    fetched: Path
    top: str | None = None
    agents: Sequence[str] = ()
    links: Sequence[Path] = ()
    dropped: Collection[str] = ()

    def _entry(self, holder: Path) -> LockEntry | None:
        """The holder's lock entry when it names the same place and ref and the folder is unchanged."""
        try:
            entry = read_lock(holder.parent).get(holder.name)
        except (InstallError, OSError):
            return None
        if entry is None or not same_place(entry, self.source, top=self.top):
            return None
        return None if locally_modified(holder, entry) else entry

    def copy_at(self, holder: Path) -> bool:
        """Whether ``holder`` (at the other scope) is this skill with the same files."""
        entry = self._entry(holder)
        return entry is not None and entry.content_hash == hash_as_recorded(self.fetched, entry)

    def installed_at(self, holder: Path) -> AlreadyInstalledError | None:
        """:class:`AlreadyInstalledError` when ``holder`` (in the folder this install writes to,
        under another name) is this skill installed for the same agents, else None."""
        entry = self._entry(holder)
        if entry is None or not _same_agents(entry.agents, self.agents, self.links):
            return None
        return self.already(holder, entry)

    def already(self, at: Path, entry: LockEntry) -> AlreadyInstalledError:
        """This skill is installed at ``at`` (``entry``): ``IS130`` when the URL typed, or the one
        the entry recorded (``dropped``), held a secret."""
        secret = self.source.secret_location is not None or at.name in self.dropped
        changed = hash_as_recorded(self.fetched, entry) != entry.content_hash
        return AlreadyInstalledError(at, entry, source_changed=changed, secret=secret)


def same_name_holder(name: str, target: Path, roots: Sequence[Path]) -> Path | None:
    """The first folder :func:`same_name_holders` finds, None when there is none."""
    return next(iter(same_name_holders(name, target, roots)), None)


def same_name_holders(name: str, target: Path, roots: Sequence[Path]) -> list[Path]:
    """The folders of other skills called ``name`` (their ``SKILL.md`` ``name``, as Codex lists
    skills) one level down in ``roots``; ``target``, where the skill goes, and what leads to it
    (a shared folder, a link) do not count."""
    real_target = os.path.realpath(target)
    found: list[Path] = []
    for root in dict.fromkeys(os.path.realpath(r) for r in roots):
        try:
            children = sorted(entry.name for entry in os.scandir(root) if not entry.name.startswith("."))
        except OSError:
            continue
        for child in children:
            folder = Path(root, child)
            if os.path.realpath(folder) != real_target and _skill_name(folder) == name:
                found.append(folder)
    return found


def _skill_name(folder: Path) -> str | None:
    """The ``name`` of the skill in ``folder``, None when it holds none that parses."""
    try:
        stat = (folder / "SKILL.md").stat()
    except OSError:
        return None
    return _read_name(str(folder), stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _read_name(folder: str, _mtime: int, _ctime: int, _size: int) -> str | None:
    """Kept by the file's times and size: ``install --all`` asks about one folder per skill."""
    path = Path(folder, "SKILL.md")
    if not path.is_file():
        return None
    root = SkillRoot(path=path.parent.parent, scope=Scope.USER, origin=RootOrigin.INSTALLED)
    skill = read_skill(path, root, probe_openai_yaml=False).skill
    return None if skill is None else skill.name


def left_by_interrupted_install(target: Path, folder: Path) -> bool:
    """Whether ``target``, a folder without a lock entry, holds exactly the files of the skill
    ``folder`` being installed: what an install stopped between moving the folder in and writing
    its lock entry leaves. Installing it again takes it over (nothing is lost: the copy is the
    same); any other folder there is someone's own (``IS305``)."""
    if target.is_symlink() or not target.is_dir():
        return False
    try:
        return content_hash(target, with_git=True) == content_hash(folder)
    except OSError:
        return False
