"""What ``setup`` plans, as data: each file's text before and after (:class:`FileChange`), the
whole plan (:class:`SetupPlan`), the edits being built up file by file (:class:`Edits`), and
setup's record of what it created (``<state>/setup/record.json``).

The record holds, per file: ``created_file`` and ``created_dirs`` (what a delete gives back),
``containers`` (JSON tables setup created), ``hooks`` (the handlers setup wrote, by value:
any other handler running skillshelf is the user's, see :mod:`.jsonfile`; a file with no
``hooks`` in the record has setup's handlers by their shape) and ``replaced``
(trust tables of the user's that setup's trust overwrote, with their values' original TOML
text, put back by ``--remove``).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.diagnostics import Diagnostic
from skillshelf.errors import FileAccessError, SkillshelfError, reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text
from skillshelf.hooks.agents import Agent, SetupScope
from skillshelf.hooks.jsonfile import HookValue, setup_written

__all__ = [
    "Edits",
    "FileChange",
    "SetupPlan",
    "containers",
    "load_record",
    "read_text",
    "record_path",
    "updated_entry",
    "worth_keeping",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    """One file's text before and after (``None``: the file does not exist / is deleted)."""

    path: Path
    before: str | None
    after: str | None
    what: tuple[str, ...]  # "hooks", "hook trust", "MCP server"
    created: tuple[tuple[str, ...], ...] = ()  # JSON tables the change creates
    # fields of setup's record of this file to set (None: to take out), see the module docstring
    record: Mapping[str, object] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change (``/dev/null`` for a created or deleted file)."""
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path) if self.after is not None else "/dev/null",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
        )

    def to_dict(self) -> dict[str, object]:
        action = "create" if self.before is None else ("delete" if self.after is None else "edit")
        return {"path": str(self.path), "action": action, "what": list(self.what), "diff": self.diff()}


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupPlan:
    """Everything one ``setup`` run would change, and what the user should know."""

    agent: Agent
    scope: SetupScope
    remove: bool
    changes: tuple[FileChange, ...]
    notes: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()  # problems setup does not fix; each also a note

    @property
    def changed(self) -> tuple[FileChange, ...]:
        return tuple(c for c in self.changes if c.changed)

    def to_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "scope": self.scope,
            "remove": self.remove,
            "changes": [c.to_dict() for c in self.changed],
            "notes": list(self.notes),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@dataclass(slots=True)
class Edits:
    """The new text of each file, built up edit by edit."""

    record: Mapping[str, dict[str, object]]
    texts: dict[Path, str | None] = field(default_factory=dict)
    before: dict[Path, str | None] = field(default_factory=dict)
    what: dict[Path, list[str]] = field(default_factory=dict)
    created: dict[Path, list[tuple[str, ...]]] = field(default_factory=dict)
    records: dict[Path, dict[str, object]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def text(self, path: Path) -> str | None:
        if path not in self.texts:
            self.before[path] = self.texts[path] = read_text(path)
        return self.texts[path]

    def original(self, path: Path) -> str | None:
        """The file's text as it was read, before any edit of this plan."""
        self.text(path)
        return self.before[path]

    def set(self, path: Path, text: str | None, what: str, created: Sequence[tuple[str, ...]] = ()) -> None:
        if text != self.text(path):
            self.what.setdefault(path, []).append(what)
        self.texts[path] = text
        self.created.setdefault(path, []).extend(created)

    def made(self, path: Path) -> tuple[tuple[str, ...], ...] | None:
        """The JSON tables setup created in ``path`` (None: no record of this file)."""
        entry = self.record.get(str(path))
        if entry is None:
            return None
        return containers(entry)

    def created_file(self, path: Path) -> bool:
        return bool(self.record.get(str(path), {}).get("created_file"))

    def recorded_hooks(self, path: Path, agent: Agent) -> tuple[HookValue, ...] | None:
        """The handlers setup wrote to ``path`` (see :func:`.jsonfile.our_hooks`). With no
        record of them (the record lost, kept in another state folder, or from a skillshelf
        that did not record hooks), those of the file as it was read that are exactly as a
        setup for ``agent`` writes them (:func:`.jsonfile.setup_written`); None (every handler
        running skillshelf) when the file cannot be read as a hooks file."""
        found = self.record.get(str(path), {}).get("hooks")
        if isinstance(found, list):
            return tuple(_hook_value(v) for v in found if isinstance(v, list) and len(v) == 4)
        try:
            text = self.original(path)
            return setup_written(text, str(path), agent) if text is not None else ()
        except SkillshelfError:
            return None

    def replaced(self, path: Path) -> dict[str, dict[str, str | None]]:
        """The user's tables setup's trust overwrote in ``path``: key -> value name -> its
        original TOML text (None: the table did not have it)."""
        found = self.record.get(str(path), {}).get("replaced")
        if not isinstance(found, dict):
            return {}
        return {
            str(k): {str(n): t if isinstance(t, str) else None for n, t in v.items()}
            for k, v in found.items()
            if isinstance(v, dict)
        }

    def keep(self, path: Path, name: str, value: object) -> None:
        """``name`` of setup's record of ``path`` set to ``value`` (None: taken out) when the
        plan is applied."""
        self.text(path)
        self.records.setdefault(path, {})[name] = value

    def changes(self) -> tuple[FileChange, ...]:
        return tuple(
            FileChange(
                path=p,
                before=self.before[p],
                after=t,
                what=tuple(self.what.get(p, ())),
                created=tuple(self.created.get(p, ())),
                record=dict(self.records.get(p, {})),
            )
            for p, t in self.texts.items()
        )


def containers(entry: Mapping[str, object]) -> tuple[tuple[str, ...], ...]:
    found = entry.get("containers")
    items = found if isinstance(found, list) else []
    return tuple(tuple(str(k) for k in p) for p in items if isinstance(p, list))


def _hook_value(found: list[object]) -> HookValue:
    event, command, timeout, matcher = found
    return (
        str(event),
        str(command),
        timeout if isinstance(timeout, int) and not isinstance(timeout, bool) else None,
        matcher if isinstance(matcher, str) else None,
    )


def updated_entry(entry: Mapping[str, object], fields: Mapping[str, object]) -> dict[str, object]:
    """A file's record ``entry`` with ``fields`` set (a None value taking the field out)."""
    merged = {**entry, **fields}
    return {k: v for k, v in merged.items() if v is not None}


def worth_keeping(entry: Mapping[str, object]) -> bool:
    """Whether a file's record entry still says something."""
    return bool(
        entry.get("created_file") or entry.get("containers") or "hooks" in entry or entry.get("replaced")
    )


def read_text(path: Path) -> str | None:
    try:
        return read_regular_text(path, limit=MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise FileAccessError(
            f"cannot read {path}: {reason(exc)}",
            hint="an agent's settings file must be a regular UTF-8 file; fix or move it, then run again",
            code="HK120",
        ) from exc


def record_path(state_dir: Path) -> Path:
    return state_dir / "setup" / "record.json"


def load_record(state_dir: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(read_regular_text(record_path(state_dir), limit=MAX_SETTINGS_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
