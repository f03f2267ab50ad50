"""``skillshelf install SOURCE --all``: every skill of a source that holds several, fetched once.

Each skill is validated and swapped into place on its own (:func:`place_skill`), so one that does
not validate, or whose name is taken, is reported and the others still land. Each gets its own
lock entry whose ``#subdir`` points at its folder, so ``update`` and ``remove`` treat it like a
skill installed alone. A skill already installed from that same place is left as it is
(``present``), so running the command again after fixing a failure installs only what is missing.
The lock records the source as a pack (:mod:`skillshelf.install.lock_packs`) with the skill
folders it held, so ``update`` can install the skills it gains later.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError
from skillshelf.install.files import workspace
from skillshelf.install.found import SkillValidationError, archive_top, skill_folders
from skillshelf.install.git import GitRunner, ProgressFn
from skillshelf.install.installer import (
    Destination,
    InstallResult,
    InstallScope,
    install_session,
    place_skill,
)
from skillshelf.install.lock import PackRecord, read_lock, write_lock
from skillshelf.install.page_refs import settle_page_ref
from skillshelf.install.sources import Source, fetch_whole, narrow
from skillshelf.install.taken import NameTakenError, PlacedTwiceError, SameNameError, same_place
from skillshelf.install.targets import InstallTarget
from skillshelf.install.url_secrets import SECRET_NOT_RECORDED

__all__ = ["InstallAllResult", "NotInstalled", "install_all"]


@dataclass(frozen=True, slots=True, kw_only=True)
class NotInstalled:
    """A skill of the source that was not installed: ``present`` (already installed from the
    same place) or ``failed`` (``code``, ``message`` and ``fix`` say why)."""

    folder: str  # its place in the source, e.g. "skills/pdf" ("." for the source itself)
    name: str  # the installed folder it matches (present), else the skill folder's own name
    status: Literal["present", "failed"]
    code: str
    message: str
    fix: str
    diagnostics: tuple[Diagnostic, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "folder": self.folder,
            "name": self.name,
            "status": self.status,
            "code": self.code,
            "message": self.message,
            "fix": self.fix,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class InstallAllResult:
    """What ``install --all`` did with each skill it found in ``source``."""

    source: str
    commit: str | None
    installed: tuple[InstallResult, ...]
    not_installed: tuple[NotInstalled, ...]
    search_cut: bool  # the search for SKILL.md files stopped at its limits; some may be missing
    dry_run: bool = False  # ``installed`` is what would be; nothing was written

    @property
    def failed(self) -> tuple[NotInstalled, ...]:
        return tuple(item for item in self.not_installed if item.status == "failed")

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "commit": self.commit,
            "installed": [result.to_dict() for result in self.installed],
            "not_installed": [item.to_dict() for item in self.not_installed],
            "search_cut": self.search_cut,
            "dry_run": self.dry_run,
        }


def install_all(
    source: str,
    *,
    env: Env,
    scope: InstallScope = "user",
    force: bool = False,
    progress: ProgressFn | None = None,
    git: GitRunner | None = None,
    target: InstallTarget | None = None,
    dry_run: bool = False,
) -> InstallAllResult:
    """Install every skill in ``source`` (the outermost folders with a SKILL.md) where the
    ``target`` agents read skills; see :func:`~skillshelf.install.installer.install_skill`.

    Raises :class:`~skillshelf.errors.InstallError` when the source cannot be fetched or holds no
    skill; a problem with one skill is reported in the result and the others go on. With
    ``dry_run`` nothing is written: ``installed`` holds what would be installed.
    """
    with install_session(source, env, scope, target, force=force, dry_run=dry_run) as (parsed, dest):
        runner = git or GitRunner(environ=env.environ)
        return _install_found(settle_page_ref(parsed, runner), dest, runner, progress)


def _install_found(
    parsed: Source, dest: Destination, git: GitRunner, progress: ProgressFn | None
) -> InstallAllResult:
    dest = dataclasses.replace(dest, pack=parsed.text)
    with workspace(dest.root) as work:
        whole = fetch_whole(parsed, work, git=git, progress=progress)
        dest = dataclasses.replace(dest, archive_top=archive_top(parsed, whole.folder))
        fetched = narrow(whole, parsed)
        folders, cut = skill_folders(fetched.folder, parsed)
        places = [folder.relative_to(fetched.folder).as_posix() for folder in folders]
        outcomes: list[InstallResult | NotInstalled] = []
        for number, (folder, place) in enumerate(zip(folders, places, strict=True), 1):
            if progress is not None:
                progress(f"Installing {place} ({number}/{len(folders)})", (number - 1) / len(folders))
            # a name an earlier skill of the source took is never replaced, with --force too
            placed = frozenset(o.name for o in outcomes if isinstance(o, InstallResult))
            here = dataclasses.replace(dest, placed=placed)
            outcomes.append(
                install_in_pack(folder, place, parsed, fetched.commit, work / f"skill-{number}", here)
            )
    if not dest.dry_run:
        record_pack(dest.root, parsed, fetched.commit, places, outcomes)
    return InstallAllResult(
        source=parsed.text,
        commit=fetched.commit,
        installed=tuple(o for o in outcomes if isinstance(o, InstallResult)),
        not_installed=tuple(o for o in outcomes if isinstance(o, NotInstalled)),
        search_cut=cut,
        dry_run=dest.dry_run,
    )


def install_in_pack(
    folder: Path, place: str, pack: Source, commit: str | None, work: Path, dest: Destination
) -> InstallResult | NotInstalled:
    """Install the skill ``folder`` found at ``place`` in ``pack`` (staging in ``work``, made
    here), or say why it was not; the caller holds the root's lock."""
    work.mkdir()
    return _install_one(folder, place, _sub_source(pack, place), commit, work, dest)


def record_pack(
    root: Path,
    pack: Source,
    commit: str | None,
    places: list[str],
    outcomes: list[InstallResult | NotInstalled],
) -> None:
    """Record ``pack`` with the skill folders it holds now in the lock of ``root``; a skill it
    holds that was already installed from the same place becomes one of its skills."""
    lock = read_lock(root)
    for item in outcomes:
        entry = lock.get(item.name) if isinstance(item, NotInstalled) and item.status == "present" else None
        if entry is not None and entry.pack is None:
            lock = lock.with_entry(dataclasses.replace(entry, pack=pack.text))
    record = PackRecord(
        key=pack.text,
        kind=pack.kind,
        location=pack.location,
        subdir=pack.subdir,
        ref=pack.ref,
        commit=commit,
        places=tuple(places),
        checked_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    write_lock(root, lock.with_pack(record))


def _sub_source(source: Source, place: str) -> Source:
    """``source`` narrowed to the skill folder at ``place`` inside it."""
    if place == ".":
        return source
    return dataclasses.replace(source, subdir="/".join(p for p in (source.subdir, place) if p))


def _install_one(
    folder: Path, place: str, one: Source, commit: str | None, work: Path, dest: Destination
) -> InstallResult | NotInstalled:
    """Install the skill ``folder`` found at ``place`` in the source, or say why it was not."""
    command, options = f"`skillshelf install {shlex.quote(one.text)}", _options(dest)
    try:
        return place_skill(folder, one, commit, work, dest)
    except PlacedTwiceError as exc:
        fix = f"{command} --name OTHER-NAME {options}` installs it beside that one"
        return NotInstalled(
            folder=place, name=exc.target.name, status="failed", code=exc.code, message=exc.message, fix=fix
        )
    except SameNameError as exc:
        fix = (
            f"rename or remove the skill at {exc.holder}, or install it beside that one anyway with "
            f"{command} --force {options}` (the agents then list both under one name)"
        )
        return NotInstalled(
            folder=place, name=exc.target.name, status="failed", code=exc.code, message=exc.message, fix=fix
        )
    except NameTakenError as exc:
        if exc.entry is not None and same_place(exc.entry, one, top=dest.archive_top):
            return NotInstalled(
                folder=place,
                name=exc.target.name,
                status="present",
                code=exc.code,
                message=f"already installed from here as {exc.target.name!r}",
                fix=f"`skillshelf update {exc.target.name}` updates it",
                diagnostics=(SECRET_NOT_RECORDED,) if exc.target.name in dest.secrets_dropped else (),
            )
        fix = (
            f"{command} --name OTHER-NAME {options}` installs it beside that one; "
            f"{command} --force {options}` replaces it (a folder changed by hand or not installed by "
            "skillshelf is kept in replaced-skills)"
        )
        return NotInstalled(
            folder=place, name=exc.target.name, status="failed", code=exc.code, message=exc.message, fix=fix
        )
    except SkillValidationError as exc:
        errors = [d for d in exc.diagnostics if d.severity is Severity.ERROR]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        what = f"{errors[0].code}: {errors[0].message}{more}" if errors else "SKILL.md could not be read"
        return dataclasses.replace(
            _failed(place, folder, exc, exc.diagnostics), message=f"does not validate: {what}"
        )
    except OSError as exc:
        return NotInstalled(
            folder=place,
            name=folder.name,
            status="failed",
            code="IS307",
            message=f"cannot copy it into place: {exc}",
            fix="check free disk space and the permissions of the skills folder",
        )
    except SkillshelfError as exc:
        return _failed(place, folder, exc)


def _options(dest: Destination) -> str:
    """The ``--scope`` and ``--for`` that install a skill where ``dest`` puts them."""
    agents = tuple(dest.agents)
    target = "skillshelf" if not agents else "all" if len(agents) > 1 else agents[0]
    return f"--scope {dest.scope} --for {target}"


def _failed(
    place: str, folder: Path, exc: SkillshelfError, diagnostics: tuple[Diagnostic, ...] = ()
) -> NotInstalled:
    # "nothing was installed" speaks of a lone install; here the other skills go on
    message = exc.message.removesuffix("; nothing was installed").removesuffix("; nothing was changed")
    return NotInstalled(
        folder=place,
        name=folder.name,
        status="failed",
        code=exc.code,
        message=message,
        fix=exc.hint,
        diagnostics=diagnostics,
    )
