"""`skillshelf load`: one skill as the model gets it, by name or by the path of its folder."""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from skillshelf.cli.output import (
    echo_json,
    echo_text,
    print_diagnostics,
    print_run_findings,
    printable,
    root_options,
)
from skillshelf.cli.skills_cmds import open_workspace
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError, reason

if TYPE_CHECKING:
    from skillshelf.skills.load import LoadedSkill
    from skillshelf.skills.model import Skill
    from skillshelf.workspace import Workspace

__all__ = ["load"]


_KINDS = ((stat.S_ISDIR, "dir"), (stat.S_ISREG, "file"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"))
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR})


@dataclasses.dataclass(frozen=True, slots=True)
class _Probe:
    """What is at a path: ``kind`` (``dir``, ``file``, ``FIFO``, ``socket``, ``device file``), or
    None with the ``OSError`` that said why not (None for nothing there)."""

    kind: str | None
    error: OSError | None = None


def _probe(path: Path) -> _Probe:
    try:
        mode = path.stat().st_mode
    except ValueError:  # a NUL byte: nothing a skill can be at
        return _Probe(None)
    except OSError as exc:
        return _Probe(None, None if exc.errno in _ABSENT else exc)
    return _Probe(next((kind for test, kind in _KINDS if test(mode)), "device file"))


def _kind(path: Path) -> str | None:
    """``dir``, ``file`` or another kind for what is at ``path``; None for nothing (or no access)."""
    return _probe(path).kind


def _looks_like_path(name: str) -> bool:
    """Whether ``name`` names a path: it has a separator, or a folder or file of that name is here."""
    if not name.strip():
        return False
    seps = {os.sep, os.altsep or os.sep}
    return any(sep in name for sep in seps) or _kind(Path(name)) is not None


def _skill_file(name: str) -> Path:
    """The SKILL.md that ``name`` (a folder or the file, relative to here) names.

    Raises:
        NotFoundError: nothing is there, or it is neither a skill folder nor a SKILL.md (SK404),
            or its SKILL.md is not a regular file (SK406).
        FileAccessError: the path cannot be reached or its SKILL.md looked at (SK408).
    """
    path = Path(os.path.abspath(Path(name).expanduser()))
    found = _probe(path)
    file = path / "SKILL.md" if found.kind == "dir" else path
    inner = _probe(file) if found.kind == "dir" else found
    if file.name == "SKILL.md" and inner.kind == "file":
        return file
    raise _no_skill(name, found, inner, named=file.name == "SKILL.md")


def _no_skill(name: str, found: _Probe, inner: _Probe, *, named: bool) -> SkillshelfError:
    """Why no skill is at the path ``name``: nothing, no access, not a skill, no regular SKILL.md."""
    from skillshelf.errors import FileAccessError, NotFoundError

    what = f"no skill at the path {name!r}"
    if inner.error is not None:
        if inner.error.errno == errno.ENAMETOOLONG:
            return NotFoundError(
                f"{what}: the path is too long for a file to be there (a name over 255 bytes, "
                "or over 4,096 in all)",
                code="SK404",
                hint="check the path: nothing can be at a path that long",
            )
        where = "its SKILL.md" if found.kind == "dir" else "it"
        return FileAccessError(
            f"{what}: {where} cannot be looked at ({reason(inner.error).lower()})",
            code="SK408",
            hint="check the permissions of the folders on the path (each needs x) and of the SKILL.md (r)"
            if inner.error.errno in (errno.EACCES, errno.EPERM)
            else "check the path and the symbolic links on it",
        )
    if inner.kind is not None and named:
        where = "its SKILL.md" if found.kind == "dir" else "it"
        return NotFoundError(
            f"{what}: {where} is a {inner.kind}, not a regular file",
            code="SK406",
            hint="make SKILL.md a regular file (agents read skills only from regular files)",
        )
    why = {None: "nothing is there", "dir": "that folder holds no SKILL.md"}.get(
        found.kind, f"it is a {found.kind}, not a skill folder or a SKILL.md"
    )
    return NotFoundError(
        f"{what}: {why}",
        code="SK404",
        hint="give a skill's name, or the path of a folder holding a SKILL.md (or of the SKILL.md)",
    )


def _load(skills: Sequence[Skill], name: str, max_files: int) -> LoadedSkill:
    """The skill ``name`` of ``skills`` as the model gets it: its text cut at
    :data:`~skillshelf.skills.model.MAX_SKILL_BYTES`, as ``context`` and ``validate`` (SK119) cut
    it, with the same closing note inside its fragment when it was cut, and the bundled files
    ``load_skill`` lists."""
    from skillshelf.skills.load import cut_note, load_skill, skill_fragment
    from skillshelf.skills.model import MAX_SKILL_BYTES

    loaded = load_skill(skills, name, max_bytes=MAX_SKILL_BYTES, max_files=max_files)
    if not loaded.truncated:
        return loaded
    note = cut_note(_size(loaded.skill.path))
    return dataclasses.replace(loaded, fragment=skill_fragment(loaded.skill, loaded.contents + note))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _cut_note(loaded: LoadedSkill) -> str:
    """Where the text was cut and where the whole of it is (on stderr)."""
    from skillshelf.skills.model import MAX_SKILL_BYTES

    return (
        f"note: the text was cut, as for the model, to the first {MAX_SKILL_BYTES:,} of the "
        f"{_size(loaded.skill.path):,} bytes of {printable(str(loaded.skill.path))} (the whole file)"
    )


def _read_by_path(name: str, workspace: Workspace, max_files: int) -> LoadedSkill:
    """The skill at the path ``name``: one discovery found (its marks kept), else read and
    parsed as discovery reads one; under the project it is a project skill, untrusted unless
    the project is trusted, elsewhere the user's own (as a ``--root`` folder's).

    Raises:
        NotFoundError: the path is not a skill (SK404), or its SKILL.md does not parse (SK407).
        SkillDisabledError: a config entry disabled the skill there.
    """
    from skillshelf.diagnostics import Severity
    from skillshelf.errors import NotFoundError, SkillNotFoundError
    from skillshelf.fileio import resolve_path
    from skillshelf.skills.load import mark_untrusted
    from skillshelf.skills.model import RootOrigin, Scope, SkillRoot
    from skillshelf.skills.parse import read_skill

    file = _skill_file(name)
    disabled = workspace.modes.disabled_error(str(file))
    if disabled is not None:
        raise disabled
    real = resolve_path(file)
    for spelling in dict.fromkeys((str(file), str(real))):  # as typed, then with its links resolved
        try:
            return _load(workspace.skills.loadable, spelling, max_files)
        except SkillNotFoundError:
            pass
    project = resolve_path(Env.from_os().project_root)
    in_project = resolve_path(file).is_relative_to(project)
    root = SkillRoot(
        path=file.parent.parent, scope=Scope.REPO if in_project else Scope.USER, origin=RootOrigin.EXTRA
    )
    parsed = read_skill(file, root)
    print_diagnostics([d for d in parsed.diagnostics if d.severity is not Severity.INFO])
    if parsed.skill is None:
        raise NotFoundError(
            f"cannot load {name!r}: its SKILL.md does not parse as a skill",
            code="SK407",
            hint=f"`skillshelf validate {name}` shows every problem",
        )
    found = parsed.skill if real == file else dataclasses.replace(parsed.skill, real_path=real)
    (skill,) = mark_untrusted([found], trusted_project=workspace.config.trusted)  # <path>: the real one
    return _load([skill], str(skill.path), max_files)


@click.command("load")
@click.argument("name")
@root_options
@click.option("--json", "as_json", is_flag=True, help="Print the loaded skill as JSON.")
@click.option(
    "--max-files",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="List at most this many bundled files.",
)
def load(
    name: str, roots: tuple[Path, ...], no_builtin: bool, no_cache: bool, as_json: bool, max_files: int
) -> None:
    """Load the skill NAME as the model gets it: the <skill> fragment and its bundled files.

    A SKILL.md over 1 MiB is cut there, as for the model (`truncated` in the JSON; a note on
    stderr names the whole file).

    NAME may also be the path of a skill's folder or SKILL.md (relative to here). Skills hidden
    from the catalog load too; disabled ones do not (the error says which config entry disabled
    it), nor do those discovery skipped (the error gives the problem, SK407). Unknown names
    fail with the closest matches.
    """
    from skillshelf.errors import SkillNotFoundError
    from skillshelf.skills.load import with_trust_note
    from skillshelf.skills.skipped import skipped_error

    workspace = open_workspace(roots, no_builtin, no_cache)
    print_run_findings(workspace.config.diagnostics)  # a bad [[skills.config]] entry changes what loads
    skills = workspace.skills.loadable
    try:
        loaded = _load(skills, name, max_files)
    except SkillNotFoundError as exc:
        if not _looks_like_path(name):
            skipped = skipped_error(name, workspace.discovery.diagnostics)
            raise (workspace.modes.disabled_error(name) or skipped or exc) from None
        loaded = _read_by_path(name, workspace, max_files)
    if as_json:
        echo_json(loaded.to_dict())
        return
    echo_text(with_trust_note(loaded.skill, loaded.fragment))
    if loaded.files:
        click.echo(
            f"\nFiles bundled with {printable(loaded.skill.name)} "
            f"(relative to {printable(str(loaded.skill.folder))}):",
            err=True,
        )
        for path in loaded.files:
            click.echo(f"  {printable(path)}", err=True)
        if loaded.more_files:
            click.echo(f"  ... and {loaded.more_files_text} more", err=True)
    if loaded.shadowed:
        click.echo(
            f"note: {len(loaded.shadowed)} other skill(s) are also named "
            f"{printable(repr(loaded.skill.name))}: " + printable(", ".join(str(p) for p in loaded.shadowed)),
            err=True,
        )
    if loaded.truncated:
        click.echo(_cut_note(loaded), err=True)
    click.echo(f"({loaded.tokens:,} tokens)", err=True)
