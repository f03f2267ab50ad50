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
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic, Severity, has_errors, sort_diagnostics
from skillshelf.env import Env
from skillshelf.errors import InstallError, UsageError
from skillshelf.install.files import check_skill_tree, copy_skill_tree, root_lock, swap_into_place, workspace
from skillshelf.install.git import GitRunner, ProgressFn
from skillshelf.install.lock import FOLDER_NAME, LockEntry, content_hash, read_lock, write_lock
from skillshelf.install.sources import Source, fetch, parse_source
from skillshelf.install.targets import InstallTarget, check_links, default_target, make_links, placement
from skillshelf.skills.model import RootOrigin, Scope, Skill, SkillRoot
from skillshelf.skills.walk import ScanLimits

__all__ = [
    "InstallResult",
    "InstallScope",
    "install_skill",
    "installed_skill_root",
    "skills_root_for",
]

InstallScope = Literal["user", "project"]
CopyFn = Callable[[Path, Path], object]
ValidationProfile = Literal["spec", "codex", "claude"]


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

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "skill_name": self.entry.skill_name,
            "path": str(self.path),
            "scope": self.scope,
            "replaced": self.replaced,
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


#: How far below a source folder a SKILL.md is looked for, and through how many folders:
#: the defaults of discovery's :class:`~skillshelf.skills.walk.ScanLimits`.
FIND_MAX_DEPTH = ScanLimits().max_depth
FIND_MAX_DIRS = ScanLimits().max_dirs


def _skill_folders_below(folder: Path) -> tuple[list[Path], bool]:
    """Folders below ``folder`` holding a SKILL.md (breadth first, no symlinked folders, no .git),
    and whether the search stopped at its depth or folder limit."""
    import os

    found: list[Path] = []
    queue: deque[tuple[Path, int]] = deque([(folder, 0)])
    visited = 0
    cut = False
    while queue:
        current, depth = queue.popleft()
        visited += 1
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir or entry.name == ".git":
                continue
            child = Path(entry.path)
            if (child / "SKILL.md").is_file():
                found.append(child)
            if depth + 1 >= FIND_MAX_DEPTH or visited + len(queue) >= FIND_MAX_DIRS:
                cut = True
                continue
            queue.append((child, depth + 1))
    return sorted(found), cut


def find_skill_folder(folder: Path, source: Source) -> Path:
    """The one skill folder in ``folder`` (itself, or the only folder below with a SKILL.md).

    The search goes at most :data:`FIND_MAX_DEPTH` levels down and through :data:`FIND_MAX_DIRS`
    folders, so a very deep or huge tree ends with ``IS312`` instead of running away.
    """
    if (folder / "SKILL.md").is_file():
        return folder
    found, cut = _skill_folders_below(folder)
    if len(found) == 1:
        return found[0]
    if not found and cut:
        raise InstallError(
            f"{source.text} holds no SKILL.md within {FIND_MAX_DEPTH} folder levels "
            f"(or the first {FIND_MAX_DIRS} folders); the search stopped there",
            hint="point at the skill's own folder (the one with SKILL.md), or use #subdir for a folder "
            "inside a repository or archive",
            code="IS312",
        )
    if not found:
        raise InstallError(
            f"{source.text} holds no SKILL.md",
            hint=(
                "point at a folder with a SKILL.md (use #subdir for a folder inside a repository or archive)"
            ),
            code="IS310",
        )
    choices = ", ".join(f"#{p.relative_to(folder).as_posix()}" for p in found[:8])
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    raise InstallError(
        f"{source.text} holds {len(found)} skills; choose one",
        hint=f"add the skill's folder to the source: {choices}{more}",
        code="IS311",
    )


def _relocate(diags: Sequence[Diagnostic], fetched: Path, shown: Path) -> tuple[Diagnostic, ...]:
    """The findings with paths in the staging folder ``fetched`` (file fields and the paths
    their message and fix name) shown as ``shown``, where the user can find them."""
    out = []
    for diag in diags:
        path = diag.path
        if path is not None and (path == fetched or fetched in path.parents):
            path = shown / path.relative_to(fetched)
        message, fix = (_shown_in(text, fetched, shown) for text in (diag.message, diag.fix))
        out.append(dataclasses.replace(diag, path=path, message=message, fix=fix))
    return tuple(out)


def _shown_in(text: str, fetched: Path, shown: Path) -> str:
    if str(shown) == ".":
        return text.replace(f"{fetched}/", "").replace(str(fetched), ".")
    return text.replace(str(fetched), str(shown))


def validate_skill_folder(
    folder: Path, root: SkillRoot, *, profile: ValidationProfile = "codex"
) -> tuple[Skill, tuple[Diagnostic, ...]]:
    """Parse and validate ``folder``; return the skill and the findings (errors raise)."""
    from skillshelf.skills.parse import read_skill
    from skillshelf.skills.validate import validate_paths

    parsed = read_skill(folder / "SKILL.md", root)
    report = validate_paths([folder], profile=profile)
    diags = tuple(sort_diagnostics({*parsed.diagnostics, *report.diagnostics}))
    if parsed.skill is None or has_errors(diags):
        raise SkillValidationError(diags)
    return parsed.skill, diags


class SkillValidationError(InstallError):
    """The skill did not validate; ``diagnostics`` says why. Nothing was installed."""

    default_code = "IS320"

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        first = errors[0] if errors else None
        what = f"{first.code}: {first.message}" if first else "SKILL.md could not be read"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(
            f"the skill does not validate, so nothing was installed: {what}{more}",
            hint=(first.fix if first else "fix SKILL.md")
            + "; `skillshelf validate PATH` lists every problem",
        )


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
        raise SkillValidationError(_relocate(exc.diagnostics, folder, shown)) from None
    return folder, skill, _relocate(diags, folder, shown), fetched.commit


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
) -> InstallResult:
    """The whole install of ``source`` into ``root``; caller holds :func:`root_lock`.

    Each of ``link_roots`` gets a link to the installed folder (``install --for all``); the
    lock entry records them and ``agents``."""
    with workspace(root) as work:
        folder, skill, diags, commit = _fetch_and_validate(
            source, work, _root_for(scope, root), git, progress
        )
        target_name = _check_name(name) if name else _default_name(skill, folder)
        target = root / target_name
        replaced = target.exists() or target.is_symlink()
        if replaced and not replace:
            raise InstallError(
                f"a skill named {target_name!r} is already installed at {target}",
                hint=(
                    "use `skillshelf update` to update it, --force to replace it, "
                    "or --name to install beside it"
                ),
                code="IS305",
            )
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
        lock = read_lock(root)
        swap_into_place(
            staged,
            target,
            work / "old",
            replace=replace,
            then=lambda: write_lock(root, lock.with_entry(entry)),
        )
    make_links(links, target, relative=scope == "project")
    return InstallResult(
        name=target_name,
        path=target,
        scope=scope,
        entry=entry,
        replaced=replaced,
        files=files,
        diagnostics=diags,
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
