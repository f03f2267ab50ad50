"""Editing a config file in place with tomlkit: comments, order and formatting survive.

Only the entry being changed is touched; everything else in the file stays byte for byte.
A file that does not parse is never written (``ConfigError`` with its line). Writes go to a
temporary file in the same folder that then replaces the original, so a crash cannot leave
half a file.

Codes raised here (``ConfigError``, nothing is written): ``CF100`` the file does not parse,
``CF110`` the path is not a regular file (a folder, FIFO, device, symlink loop), ``CF111`` the
file parses but the table to edit has the wrong type (``skills = 5``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.config.layers import parse_toml
from skillshelf.config.modes import SkillMode
from skillshelf.errors import ConfigError, FileAccessError

__all__ = ["EditResult", "set_skill_mode", "set_trust", "write_atomic"]


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
            raise ConfigError(
                f"{path.name} is a symlink loop; nothing was changed",
                path=path,
                code="CF110",
                hint="remove the link (or point it at a real file) and run again",
            ) from exc
        raise FileAccessError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the path and its folders' permissions"
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


def _load(path: Path) -> tuple[Any, str | None]:
    import tomlkit

    if not _is_regular_file(path):
        return tomlkit.document(), None
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FileAccessError(
            f"cannot read {path}: {exc}", hint="check the file (it must be UTF-8 TOML)"
        ) from exc
    _, problem = parse_toml(text, path)
    if problem is not None:
        raise ConfigError(
            problem.message,
            hint=problem.fix + "; nothing was changed",
            path=path,
            line=problem.line,
            code="CF100",
        )
    return tomlkit.parse(text), text


def _wrong_type(path: Path, key: str, expected: str, value: object, example: str) -> ConfigError:
    found = type(value).__name__.lower()
    return ConfigError(
        f"`{key}` must be {expected}, not {found}; nothing was changed",
        path=path,
        code="CF111",
        hint=f"fix `{key}` in this file ({example}) or remove it, then run again",
    )


def _same_newlines(text: str, original: str | None) -> str:
    """New lines use the file's own line ending (a CRLF file stays CRLF)."""
    if original is None or "\r\n" not in original:
        return text
    return re.sub(r"(?<!\r)\n", "\r\n", text)


def _write(path: Path, text: str) -> None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - tomlkit output always parses
        raise ConfigError(f"refusing to write invalid TOML: {exc}", path=path) from exc
    write_atomic(path, text)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step (a temporary file beside it, then a rename), keeping
    the file's permissions; a symlinked file is written where the link points, the link kept.

    Raises:
        ConfigError: ``path`` is a symlink loop (``CF110``).
        FileAccessError: the file cannot be written.
    """
    if path.is_symlink():
        try:
            path = path.resolve()  # edit the file a dotfiles link points to; keep the link
        except (OSError, RuntimeError) as exc:  # a loop made after _load looked at it
            raise ConfigError(
                f"{path.name} is a symlink loop; nothing was changed",
                path=path,
                code="CF110",
                hint="remove the link (or point it at a real file) and run again",
            ) from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise FileAccessError(
            f"cannot write {path}: {exc.strerror or exc}", hint="check the folder's permissions"
        ) from exc


def _selector(target: str) -> tuple[str, str]:
    """``("path", abs)`` for a path to a skill, else ``("name", target)``."""
    if "/" in target or target.endswith("SKILL.md"):
        return "path", str(Path(target).expanduser().absolute())
    return "name", target.strip()


def _entry_mode(entry: Any) -> str:
    if "mode" in entry:
        return str(entry["mode"])
    if "enabled" in entry:
        return SkillMode.ENABLED.value if entry["enabled"] else SkillMode.DISABLED.value
    return SkillMode.ENABLED.value


def set_skill_mode(path: Path, target: str, mode: SkillMode) -> EditResult:
    """Give the skill ``target`` (a name or a path) ``mode`` in the config file ``path``.

    The last ``[[skills.config]]`` entry for the same selector is updated (Codex-style
    ``enabled = ...`` entries keep that style when the mode is enabled/disabled); without one,
    a new entry is appended at the end of the file.
    """
    import tomlkit

    if not target.strip():
        from skillshelf.errors import UsageError

        raise UsageError(
            "a skill name is required", hint="pass the skill's name, e.g. `skillshelf disable my-skill`"
        )
    doc, original = _load(path)
    key, value = _selector(target)
    skills = doc.get("skills")
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
    existing = [e for e in (entries or []) if hasattr(e, "get") and e.get(key) == value]
    if existing:
        entry = existing[-1]
        previous = _entry_mode(entry)
        if "mode" not in entry and "enabled" in entry and mode in {SkillMode.ENABLED, SkillMode.DISABLED}:
            entry["enabled"] = mode is SkillMode.ENABLED
        else:
            if "enabled" in entry:
                del entry["enabled"]
            entry["mode"] = mode.value
    else:
        previous = None
        if entries is not None and not isinstance(entries, tomlkit.items.AoT):
            item = tomlkit.inline_table()
            item.update({key: value, "mode": mode.value})
            entries.append(item)
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
    text = _same_newlines(doc.as_string(), original)
    changed = text != original
    if changed:
        _write(path, text)
    return EditResult(
        path=path, created=original is None, changed=changed, previous=previous, current=mode.value
    )


def set_trust(path: Path, folder: Path, trusted: bool) -> EditResult:
    """Write ``[projects."<folder>"] trust_level = "trusted"|"untrusted"`` in ``path``."""
    import tomlkit

    doc, original = _load(path)
    level = "trusted" if trusted else "untrusted"
    projects = doc.get("projects")
    if projects is not None and not isinstance(projects, dict):
        raise _wrong_type(path, "projects", "a table", projects, 'write `[projects."/path"]` tables')
    if projects is None:
        projects = tomlkit.table(is_super_table=True)
        doc.add("projects", projects)
    key = str(folder)
    entry = projects.get(key)
    if entry is not None and not isinstance(entry, dict):
        raise _wrong_type(
            path, f'projects."{key}"', "a table", entry, 'write trust_level = "trusted" inside it'
        )
    previous = None
    if entry is None:
        entry = tomlkit.table()
        entry.add("trust_level", level)
        projects.add(key, entry)
    else:
        previous = str(entry.get("trust_level")) if entry.get("trust_level") is not None else None
        entry["trust_level"] = level
    text = _same_newlines(doc.as_string(), original)
    changed = text != original
    if changed:
        _write(path, text)
    return EditResult(path=path, created=original is None, changed=changed, previous=previous, current=level)
