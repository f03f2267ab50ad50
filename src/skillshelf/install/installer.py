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

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.errors import InstallError, UsageError
from skillshelf.install.files import check_skill_tree, copy_skill_tree, root_lock, swap_into_place, workspace
from skillshelf.install.found import SkillValidationError, find_skill_folder, relocate, validate_skill_folder
from skillshelf.install.git import GitRunner, ProgressFn
from skillshelf.install.kept import kept_root, needs_keeping, set_aside
from skillshelf.install.lock import FOLDER_NAME, LockEntry, content_hash, read_lock, write_lock
from skillshelf.install.sources import Source, fetch, parse_source
from skillshelf.install.targets import InstallTarget, check_links, default_target, make_links, placement
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillRoot

__all__ = [
    "InstallResult",
    "InstallScope",
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

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
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
            hint="use letters, digits, '.', '_' and '-', starting with a letter or digit",
        )
    return name


def _fetch_and_validate(
    source: Source, work: Path, root: SkillRoot, git: GitRunner, progress: ProgressFn | None
) -> tuple[Path, Skill, tuple[Diagnostic, ...], str | None]:
    """Fetch ``source`` into ``work``; return the skill folder, the skill, findings, commit."""
    fetched = fetch(source, work, git=git, progress=progress)
    folder = find_skill_folder(fetched.folder, source)
    check_skill_tree(folder)
    shown = folder if source.kind == "folder" else Path(source.subdir or ".")
    try:
        skill, diags = validate_skill_folder(folder, root)
    except SkillValidationError as exc:
        raise SkillValidationError(relocate(exc.diagnostics, folder, shown)) from None
    return folder, skill, relocate(diags, folder, shown), fetched.commit


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
        installed_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def stage_and_swap(
    source: Source,
    root: Path,
    scope: InstallScope,
    *,
    name: str | None,
    replace: bool,
    git: GitRunner,
    progress: ProgressFn | None,
    copy_file: CopyFn | None = None,
    link_roots: Sequence[Path] = (),
    agents: Sequence[str] = (),
    kept_root: Path | None = None,
) -> InstallResult:
    """The whole install of ``source`` into ``root``; caller holds :func:`root_lock`.

    Each of ``link_roots`` gets a link to the installed folder (``install --for all``); the
    lock entry records them and ``agents``. A folder it replaces that skillshelf could not
    fetch again goes to ``kept_root`` (:mod:`skillshelf.install.kept`; None: deleted)."""
    with workspace(root) as work:
        folder, skill, diags, commit = _fetch_and_validate(
            source, work, _root_for(scope, root), git, progress
        )
        target_name = _check_name(name) if name else _default_name(skill, folder)
        target = root / target_name
        replaced = target.exists() or target.is_symlink()
        lock = read_lock(root)
        if replaced and not replace:
            raise _name_taken(target, lock.get(target_name))
        links = [r / target_name for r in link_roots]
        check_links(links, target)
        if progress is not None:
            progress("Copying", None)
        staged = work / "stage" / target_name
        staged.parent.mkdir()
        files = copy_skill_tree(folder, staged, **({"copy_file": copy_file} if copy_file else {}))
        entry = dataclasses.replace(
            _lock_entry(source, target_name, skill, commit, staged),
            agents=tuple(agents),
            links=tuple(str(link) for link in links),
        )
        keep = kept_root is not None and needs_keeping(target, lock.get(target_name))
        aside = set_aside(target, target_name, kept_root or work, work / "old", keep=keep)
        try:
            swap_into_place(
                staged,
                target,
                aside.trash,
                replace=replace,
                then=lambda: write_lock(root, lock.with_entry(entry)),
            )
        except BaseException:
            aside.drop_copy()
            raise
    make_links(links, target, relative=scope == "project")
    return InstallResult(
        name=target_name,
        path=target,
        scope=scope,
        entry=entry,
        replaced=replaced,
        files=files,
        diagnostics=diags,
        kept=aside.kept,
    )


def _name_taken(target: Path, entry: LockEntry | None) -> InstallError:
    if entry is None:
        return InstallError(
            f"{target} already exists and skillshelf did not install it",
            hint="pass --name to install beside it, or --force to replace it (the folder is kept aside)",
            code="IS305",
        )
    return InstallError(
        f"a skill named {target.name!r} is already installed at {target}",
        hint="use `skillshelf update` to update it, --force to replace it, or --name to install beside it",
        code="IS305",
    )


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
) -> InstallResult:
    """Install the skill at ``source`` (folder, git URL ``[@ref][#subdir]``, ``.zip``/``.skill``)
    where the ``target`` agents read skills (:mod:`skillshelf.install.targets`; ``None``: the
    config's ``install.agents``, else the agents found here).

    Raises :class:`InstallError` (nothing changed) when the source cannot be fetched, holds no
    or several skills, does not validate, is unsafe, or the name is taken and ``force`` is off.
    """
    parsed = parse_source(source, cwd=env.cwd)
    place = placement(scope, target or _configured_target(env), env)
    root = place.root
    made = [d for d in (root, *root.parents) if not d.exists()]  # taken away again if nothing lands
    runner = git or GitRunner(environ=env.environ)
    try:
        with root_lock(root):
            return stage_and_swap(
                parsed,
                root,
                scope,
                name=name,
                replace=force,
                git=runner,
                progress=progress,
                copy_file=copy_file,
                link_roots=place.link_roots,
                agents=place.agents,
                kept_root=kept_root(env),
            )
    except OSError as exc:
        _drop_empty(made)
        raise io_failure(root, exc) from exc
    except BaseException:
        _drop_empty(made)
        raise


def _drop_empty(folders: Sequence[Path]) -> None:
    """Remove the folders an install made for a root it then did not fill (deepest first)."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _configured_target(env: Env) -> InstallTarget:
    from skillshelf.config import load_config

    return default_target(env, load_config(env).get("install.agents"))


def io_failure(root: Path, exc: OSError) -> InstallError:
    """An I/O error during install/update/remove, as an error with a hint (nothing was changed)."""
    return InstallError(
        f"cannot complete the change in {root}: {exc}; nothing was changed",
        hint="check free disk space and the permissions of the source and of the skills folder",
        code="IS307",
    )
