"""What ``setup`` plans, as data: each file's text before and after (:class:`FileChange`), the
whole plan (:class:`SetupPlan`), the edits being built up file by file (:class:`Edits`), and
setup's record of what it created (``<state>/setup/record.json``).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.errors import FileAccessError, reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text
from skillshelf.hooks.agents import Agent, SetupScope

__all__ = ["Edits", "FileChange", "SetupPlan", "containers", "load_record", "read_text", "record_path"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    """One file's text before and after (``None``: the file does not exist / is deleted)."""

    path: Path
    before: str | None
    after: str | None
    what: tuple[str, ...]  # "hooks", "hook trust", "MCP server"
    created: tuple[tuple[str, ...], ...] = ()  # JSON tables the change creates

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
        }


@dataclass(slots=True)
class Edits:
    """The new text of each file, built up edit by edit."""

    record: Mapping[str, dict[str, object]]
    texts: dict[Path, str | None] = field(default_factory=dict)
    before: dict[Path, str | None] = field(default_factory=dict)
    what: dict[Path, list[str]] = field(default_factory=dict)
    created: dict[Path, list[tuple[str, ...]]] = field(default_factory=dict)

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

    def changes(self) -> tuple[FileChange, ...]:
        return tuple(
            FileChange(
                path=p,
                before=self.before[p],
                after=t,
                what=tuple(self.what.get(p, ())),
                created=tuple(self.created.get(p, ())),
            )
            for p, t in self.texts.items()
        )


def containers(entry: Mapping[str, object]) -> tuple[tuple[str, ...], ...]:
    found = entry.get("containers")
    items = found if isinstance(found, list) else []
    return tuple(tuple(str(k) for k in p) for p in items if isinstance(p, list))


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
