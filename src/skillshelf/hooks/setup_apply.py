"""Writing a setup plan (:func:`apply_setup`): every file's new text, all or nothing, and
setup's record (:mod:`.setup_model`) kept in step with what was written."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from skillshelf.config.edit_text import editing, refuse_read_only
from skillshelf.errors import ConfigError, FileAccessError, SkillshelfError, reason
from skillshelf.hooks.setup_model import (
    FileChange,
    SetupPlan,
    containers,
    load_record,
    read_text,
    record_path,
    updated_entry,
    worth_keeping,
)

__all__ = ["apply_setup", "refuse_read_only_changes"]


def apply_setup(plan: SetupPlan, *, state_dir: Path) -> tuple[FileChange, ...]:
    """Write the plan's changes; returns the files that changed.

    One setup at a time writes (the lock of the record's folder), and only over files that
    still hold the text the plan was made from: an agent that saved its settings in between
    keeps its change and nothing is written. A file made read-only (no write permission, as
    ``chmod a-w`` leaves it) is left alone, as config edits leave one: nothing is written or
    deleted. All or nothing: when a file, or setup's record after them, cannot be written, the
    files written before get their former text back (byte for byte; a created file is deleted
    again).

    Raises:
        FileAccessError: a file changed since the plan was made (``HK122``, nothing written),
            or a file or the record could not be written (``HK123`` naming it, the files
            written before it put back).
        ConfigError: another setup kept the lock (``CF113``), or a file to change is read-only
            (``CF117``); nothing written.
    """
    with editing(record_path(state_dir)):
        for change in plan.changed:
            if read_text(change.path) != change.before:
                raise FileAccessError(
                    f"{change.path} changed since setup read it (another program saved it); "
                    "nothing was written",
                    hint="run the same setup command again: it plans from the file as it is now",
                    code="HK122",
                )
            refuse_read_only(change.path)
        return _apply(plan, state_dir)


def refuse_read_only_changes(plan: SetupPlan) -> None:
    """Raise when a file the plan would change (or delete) is read-only, as :func:`apply_setup`
    does: a ``--dry-run`` plan is refused as the real run would be.

    Raises:
        ConfigError: the file is read-only (``CF117``), or a folder it is in is a symlink to a
            folder that does not exist (``HK124``); nothing was changed.
    """
    for change in plan.changed:
        _refuse_dangling_folder_link(change.path)
        refuse_read_only(change.path)
        _refuse_read_only_folder(change.path)


def _refuse_dangling_folder_link(path: Path) -> None:
    """Raise when a folder ``path`` is to be written in is a symlink to a folder that does not
    exist (``~/.claude`` leading into a dotfiles folder not made yet): the write cannot make the
    folder where the link is, and setup does not make folders at a link's far end.

    Raises:
        ConfigError: the link leads nowhere (``HK124``); nothing was changed.
    """
    for folder in path.parents:
        if folder.exists():
            return
        if folder.is_symlink():
            target = os.path.realpath(folder)
            raise ConfigError(
                f"{folder} is a symlink to {target}, which does not exist, so nothing can be "
                "written in it; nothing was changed",
                path=path,
                code="HK124",
                hint=f"create {target} (mkdir -p {shlex.quote(target)}) or remove the link "
                f"(rm {shlex.quote(str(folder))}), then run setup again",
            )


def _refuse_read_only_folder(path: Path) -> None:
    """Raise when the folder ``path`` is written in (its nearest folder that exists, when it is
    to be made) has no write permission, for anyone or for this process, as
    :func:`~skillshelf.config.edit_text.refuse_read_only` judges a file: a file is replaced by a
    rename there.

    Raises:
        ConfigError: the folder is read-only (``CF117``); nothing was changed.
    """
    folder = Path(os.path.realpath(path)).parent  # a symlinked file is written where it leads
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        writable = bool(folder.stat().st_mode & 0o222) and os.access(folder, os.W_OK | os.X_OK)
    except OSError:
        return  # cannot be looked at: the write says why
    if writable:  # for anyone (``chmod a-w``, which root's writes ignore) and for this process
        return
    raise ConfigError(
        f"its folder {folder} has no write permission, so the file cannot be written there; "
        "nothing was changed",
        path=path,
        code="CF117",
        hint=f"make it writable (chmod u+w {shlex.quote(str(folder))}) and run again",
    )


def _apply(plan: SetupPlan, state_dir: Path) -> tuple[FileChange, ...]:
    """Write the changes, then the record; when a file or the record cannot be written,
    :func:`_roll_back` what was written (the record is saved only when a file could not be put
    back, so that ``--remove`` can)."""
    record = load_record(state_dir)
    emptied: list[Path] = []  # folders setup created for files it now deletes
    done: list[tuple[FileChange, list[Path]]] = []  # written so far, with the folders made for each
    failing = record_path(state_dir)  # the file being written
    try:
        for change in plan.changed:
            failing = change.path
            entry = record.get(str(change.path), {})
            if change.after is None:
                _delete(change.path)
                done.append((change, []))
                record.pop(str(change.path), None)
                emptied += [Path(str(d)) for d in entry.get("created_dirs", []) or []]  # type: ignore[attr-defined]
                continue
            made_dirs = _missing_dirs(_written_at(change.path)) if change.before is None else []
            if change.before is None:
                entry = {"created_file": True, "created_dirs": [str(d) for d in made_dirs]}
            _write(change.path, change.after)
            done.append((change, made_dirs))
            made = set() if plan.remove else {*containers(entry), *change.created}
            entry = {**entry, "containers": [list(p) for p in sorted(made)]}
            record[str(change.path)] = updated_entry(entry, change.record)
        for change in plan.changes:
            if not change.changed and change.record and (str(change.path) in record or not plan.remove):
                record[str(change.path)] = updated_entry(record.get(str(change.path), {}), change.record)
        failing = record_path(state_dir)
        _save_record(state_dir, record)
    except SkillshelfError as exc:
        left = _roll_back(done)
        if left and failing != record_path(state_dir):
            _save_record(state_dir, record)
        raise _failed(exc, failing, [c.path for c, _ in done], left) from exc
    for folder in sorted(set(emptied), key=lambda d: len(d.parts), reverse=True):
        try:
            folder.rmdir()  # only when empty: the user may have put things there since
        except OSError:
            continue
    return plan.changed


def _roll_back(done: Sequence[tuple[FileChange, list[Path]]]) -> list[Path]:
    """Each written file's former text back (a file setup created deleted, with the folders
    made for it), last first; returns the files that could not be put back."""
    left: list[Path] = []
    for change, made_dirs in reversed(done):
        try:
            if change.before is None:
                _delete(change.path)
                for folder in made_dirs:
                    folder.rmdir()
            else:
                _write(change.path, change.before)
        except (SkillshelfError, OSError):
            left.append(change.path)
    return left


def _failed(
    exc: SkillshelfError, path: Path, written: Sequence[Path], left: Sequence[Path]
) -> SkillshelfError:
    """The error to report for a write that failed: naming the file, and what became of the
    files written before it."""
    if not isinstance(exc, FileAccessError):
        return exc
    if left:
        state = "these files stay changed, as setup could not put them back: " + ", ".join(map(str, left))
        state += "; `--remove` takes skillshelf's entries out of them"
    else:
        state = "nothing was changed" + (" (the files written before it were put back)" if written else "")
    return FileAccessError(
        f"{exc.message}; {state}",
        hint=f"make {path} writable (its permissions, its folder's, or an immutable attribute: "
        "see `lsattr`), then run setup again",
        code="HK123",
    )


def _missing_dirs(path: Path) -> list[Path]:
    missing = []
    for folder in path.parents:
        if folder.exists():
            break
        missing.append(folder)
    return missing


def _write(path: Path, text: str) -> None:
    from skillshelf.config.edit import write_user_file

    write_user_file(path, text)


def _written_at(path: Path) -> Path:
    """Where a write of ``path`` puts the file: for a symlink (a dotfiles link), where it leads."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _delete(path: Path) -> None:
    """Delete the file setup created at ``path``: for a symlink, the file it leads to (the one
    setup wrote), keeping the link as it was."""
    try:
        _written_at(path).unlink(missing_ok=True)
    except OSError as exc:
        raise FileAccessError(
            f"cannot remove {path}: {reason(exc)}",
            hint="check the folder's permissions",
            code="HK121",
        ) from exc


def _save_record(state_dir: Path, record: Mapping[str, Mapping[str, object]]) -> None:
    """The record's entries that still say something written (no file when none does)."""
    path = record_path(state_dir)
    kept = {k: v for k, v in record.items() if worth_keeping(v)}
    if kept:
        _write(path, json.dumps(kept, indent=2, sort_keys=True) + "\n")
        return
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise FileAccessError(
            f"cannot remove {path}: {reason(exc)}", hint="check the folder's permissions", code="HK121"
        ) from exc
