"""Editing a config file in place with tomlkit: comments, order and formatting survive.

Only the entry being changed is touched; everything else in the file stays byte for byte.
A file that does not parse is never written (``ConfigError`` with its line). Writes go to a
temporary file in the same folder that then replaces the original, so a crash cannot leave
half a file.

Every edit is checked before it is written: the new text must parse to the old data with
exactly the one change (tomlkit alone can put a new ``[[skills.config]]`` or ``[projects..]``
header above dotted keys such as ``memory.enabled = false``, which then silently belong to the
new table). A new table goes above the comment lines written over the next table's header, so
they keep heading it (:func:`~skillshelf.config.edit_text.below_comments`). When tomlkit's edit
does not pass, the entry is appended as a new table after the last line, where it cannot take
over any key.

Codes raised here (``ConfigError``, nothing is written): ``CF100`` the file does not parse,
``CF110`` the path is not a regular file (a folder, FIFO, device, symlink loop), ``CF111`` the
file parses but the table to edit has the wrong type (``skills = 5``), ``CF112`` no way was
found to make the change without changing another key, ``CF113`` another command kept the
file's folder locked (:func:`~skillshelf.config.edit_text.editing`: one edit at a time, from
the read to the write), ``CF117`` the file is read-only (someone locked it: no edit replaces it).
"""

from __future__ import annotations

import copy
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.config.edit_text import (
    Candidate,
    appended,
    comments_kept_below,
    editing,
    first_faithful,
    inside,
    refuse_read_only,
    symlink_loop,
    toml_string,
    tomlkit_document,
    write_config,
    write_user_file,
)
from skillshelf.config.layers import parse_toml
from skillshelf.config.modes import SkillMode
from skillshelf.errors import ConfigError, FileAccessError, reason
from skillshelf.fileio import BYTE_ORDER_MARK

__all__ = ["EditResult", "set_skill_mode", "set_trust", "skill_selector", "write_user_file"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EditResult:
    """What an edit did: the file, whether it was created or changed, and the old value."""

    path: Path
    created: bool
    changed: bool
    previous: str | None
    current: str

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "created": self.created,
            "changed": self.changed,
            "previous": self.previous,
            "current": self.current,
        }


def _is_regular_file(path: Path) -> bool:
    """True for a regular file, False when nothing is there yet; raise for anything else.

    A FIFO or device would block or stream forever, a folder cannot be replaced by a file and a
    symlink loop can never be resolved: all are refused before anything is opened.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False  # no file yet, or a link whose target does not exist yet (it is created)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_loop(path) from exc
        raise FileAccessError(
            f"cannot read {path}: {reason(exc)}", hint="check the path and its folders' permissions"
        ) from exc
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise ConfigError(
            f"the config file is {kind}; nothing was changed",
            path=path,
            code="CF110",
            hint="move it away so a regular config.toml can be written there, then run again",
        )
    return True


def _load(path: Path) -> tuple[Any, str | None, dict[str, Any]]:
    """The file as a tomlkit document (None when tomlkit cannot read it), its text, its data."""
    import tomlkit

    if not _is_regular_file(path):
        return tomlkit.document(), None, {}
    try:
        text = path.read_bytes().decode("utf-8").removeprefix(BYTE_ORDER_MARK)  # kept by write_config
    except (OSError, UnicodeDecodeError) as exc:
        raise FileAccessError(
            f"cannot read {path}: {exc}", hint="check the file (it must be UTF-8 TOML)"
        ) from exc
    data, problem = parse_toml(text, path)
    if data is None:
        raise ConfigError(
            problem.message if problem else "the file does not parse",
            hint=(problem.fix if problem else "fix the file") + "; nothing was changed",
            path=path,
            line=problem.line if problem else None,
            code="CF100",
        )
    return tomlkit_document(text), text, data


def _wrong_type(path: Path, key: str, expected: str, value: object, example: str) -> ConfigError:
    found = type(value).__name__.lower()
    return ConfigError(
        f"`{key}` must be {expected}, not {found}; nothing was changed",
        path=path,
        code="CF111",
        hint=f"fix `{key}` in this file ({example}) or remove it, then run again",
    )


def _encodable(text: str, what: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        from skillshelf.errors import UsageError

        raise UsageError(
            f"{what} is not valid UTF-8, so it cannot be written to a TOML file",
            hint="rename it with valid UTF-8 characters, or pass another name",
        ) from None
    return text


def skill_selector(target: str) -> tuple[str, str]:
    """What an entry for ``target`` selects by: ``("path", abs)`` for a path to a skill, else
    ``("name", target)`` without the spaces around it."""
    if "/" in target or target.endswith("SKILL.md"):
        return "path", str(Path(target).expanduser().absolute())
    return "name", target.strip()


def _entry_mode(entry: Any) -> str:
    if "mode" in entry:
        return str(entry["mode"])
    if "enabled" in entry:
        return SkillMode.ENABLED.value if entry["enabled"] else SkillMode.DISABLED.value
    return SkillMode.ENABLED.value


def _last_match(entries: Any, key: str, value: str) -> Any:
    """The last ``[[skills.config]]`` entry with ``key = value`` (it is the one that applies), or None."""
    found = [e for e in (entries or []) if hasattr(e, "get") and e.get(key) == value]
    return found[-1] if found else None


def _apply_mode(entry: Any, mode: SkillMode) -> None:
    """Codex-style ``enabled = ...`` entries keep that style for enabled/disabled."""
    if "mode" not in entry and "enabled" in entry and mode in {SkillMode.ENABLED, SkillMode.DISABLED}:
        entry["enabled"] = mode is SkillMode.ENABLED
    else:
        if "enabled" in entry:
            del entry["enabled"]
        entry["mode"] = mode.value


def _entries_of(path: Path, container: Any) -> Any:
    """``skills.config`` of a parsed file, after checking both have the right type."""
    skills = container.get("skills")
    if skills is not None and not isinstance(skills, dict):
        raise _wrong_type(path, "skills", "a table", skills, "write `[skills]` on a line of its own")
    entries = skills.get("config") if skills is not None else None
    if entries is not None and not isinstance(entries, list):
        raise _wrong_type(
            path,
            "skills.config",
            "a list of tables",
            entries,
            'write entries as `[[skills.config]]` tables with `name = "..."`',
        )
    return entries


def _tomlkit_mode_edit(doc: Any, key: str, value: str, mode: SkillMode) -> str:
    """The edit through tomlkit: layout kept, the new entry placed after the existing ones."""
    import tomlkit

    skills = doc.get("skills")
    entries = skills.get("config") if skills is not None else None
    match = _last_match(entries, key, value)
    if match is not None:
        _apply_mode(match, mode)
    elif entries is not None and not isinstance(entries, tomlkit.items.AoT):
        item = tomlkit.inline_table()
        item.update({key: value, "mode": mode.value})
        entries.append(item)
    elif entries is None and isinstance(skills, tomlkit.items.InlineTable):
        item = tomlkit.inline_table()
        item.update({key: value, "mode": mode.value})
        array = tomlkit.array()
        array.append(item)
        skills["config"] = array
    else:
        table = tomlkit.table()
        table.add(key, value)
        table.add("mode", mode.value)
        table.add(tomlkit.nl())
        if entries is None:
            if skills is None:
                skills = tomlkit.table(is_super_table=True)
                doc.add("skills", skills)
            skills.add("config", tomlkit.aot())
            entries = skills["config"]
        entries.append(table)
    return str(doc.as_string())


def set_skill_mode(path: Path, target: str, mode: SkillMode, *, within: Path | None = None) -> EditResult:
    """Give the skill ``target`` (a name or a path) ``mode`` in the config file ``path``.

    The last ``[[skills.config]]`` entry for the same selector is updated (Codex-style
    ``enabled = ...`` entries keep that style when the mode is enabled/disabled); without one,
    a new entry is added after the existing ones, or at the end of the file. Every other key
    keeps its parsed value (checked before writing, ``CF112`` when that cannot be done).

    ``within``: the project a project's config file belongs to; a file (or folder) there that is a
    symlink leading out of it is neither read nor written (``CF114``). A user's config may be a
    link (dotfiles): it is edited where it points.
    """
    if not target.strip():
        from skillshelf.errors import UsageError

        raise UsageError(
            "a skill name is required", hint="pass the skill's name, e.g. `skillshelf disable my-skill`"
        )
    key, value = skill_selector(target)
    _encodable(value, f"the skill {key} {value!r}")
    if within is not None:
        inside(path, within)  # before the folder lock, which would create a folder where a link points
    with editing(path):
        return _edit_skill_mode(path, key, value, mode, within)


def _edit_skill_mode(path: Path, key: str, value: str, mode: SkillMode, within: Path | None) -> EditResult:
    doc, original, data = _load(path)
    match = _last_match(_entries_of(path, data), key, value)
    previous = None if match is None else _entry_mode(match)
    in_place = copy.deepcopy(data)
    if match is not None:
        _apply_mode(_last_match(in_place["skills"]["config"], key, value), mode)
    with_new = copy.deepcopy(data)  # a new last entry: the last match is the one that applies
    with_new.setdefault("skills", {}).setdefault("config", []).append({key: value, "mode": mode.value})
    block = f"[[skills.config]]\n{key} = {toml_string(value)}\nmode = {toml_string(mode.value)}\n"
    candidates: list[tuple[Candidate, dict[str, Any]]] = []
    if match is not None:  # the file may already say so: then it stays as it is
        candidates.append((lambda: original or "", in_place))
    if doc is not None:
        made = comments_kept_below(original, lambda: _tomlkit_mode_edit(doc, key, value, mode))
        candidates += [(make, in_place if match else with_new) for make in made]
    candidates.append((lambda: appended(original, block), with_new))
    text = first_faithful(path, candidates, original, block.replace("\n", " "))
    return _finish(path, text, original, previous, mode.value, within)


def _finish(
    path: Path,
    text: str,
    original: str | None,
    previous: str | None,
    current: str,
    within: Path | None = None,
) -> EditResult:
    changed = text != original
    if changed:
        refuse_read_only(path)
        write_config(path, text, within=within)
    return EditResult(
        path=path, created=original is None, changed=changed, previous=previous, current=current
    )


def _tomlkit_trust_edit(doc: Any, key: str, level: str) -> str:
    import tomlkit

    projects = doc.get("projects")
    if projects is None:
        projects = tomlkit.table(is_super_table=True)
        doc.add("projects", projects)
    entry = projects.get(key)
    if entry is not None:
        entry["trust_level"] = level
    elif isinstance(projects, tomlkit.items.InlineTable):
        item = tomlkit.inline_table()
        item.add("trust_level", level)
        projects[key] = item
    else:
        table = tomlkit.table()
        table.add("trust_level", level)
        projects.add(key, table)
    return str(doc.as_string())


def set_trust(path: Path, folder: Path, trusted: bool) -> EditResult:
    """Write ``[projects."<folder>"] trust_level = "trusted"|"untrusted"`` in ``path``.

    Every other key keeps its parsed value (checked before writing, ``CF112`` otherwise).
    """
    level = "trusted" if trusted else "untrusted"
    key = _encodable(str(folder), f"the folder {str(folder)!r}")
    with editing(path):
        return _edit_trust(path, key, level)


def _edit_trust(path: Path, key: str, level: str) -> EditResult:
    doc, original, data = _load(path)
    projects = data.get("projects")
    if projects is not None and not isinstance(projects, dict):
        raise _wrong_type(path, "projects", "a table", projects, 'write `[projects."/path"]` tables')
    entry = (projects or {}).get(key)
    if entry is not None and not isinstance(entry, dict):
        raise _wrong_type(
            path, f'projects."{key}"', "a table", entry, 'write trust_level = "trusted" inside it'
        )
    previous = None if entry is None or entry.get("trust_level") is None else str(entry["trust_level"])
    expected = copy.deepcopy(data)
    expected.setdefault("projects", {}).setdefault(key, {})["trust_level"] = level
    block = f"[projects.{toml_string(key)}]\ntrust_level = {toml_string(level)}\n"
    candidates: list[tuple[Candidate, dict[str, Any]]] = [(lambda: original or "", expected)]
    if doc is not None:
        made = comments_kept_below(original, lambda: _tomlkit_trust_edit(doc, key, level))
        candidates += [(make, expected) for make in made]
    if entry is None:
        candidates.append((lambda: appended(original, block), expected))
    text = first_faithful(path, candidates, original, block.replace("\n", " "))
    return _finish(path, text, original, previous, level)
