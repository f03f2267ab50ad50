"""The agent's hands: bash, read_file, write_file, edit_file, confined to one workspace folder.

Every call returns a :class:`WorkspaceOutcome` (text for the model, error flag, and what the
guards need: which file was edited, which command ran with which exit code). Nothing raises
to the loop: a bad path or a failing command is an error *result* the model can act on.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.serve.schemas import ToolSpec

__all__ = ["WORKSPACE_TOOLS", "WorkspaceOutcome", "WorkspaceTools"]

MAX_OUTPUT_CHARS = 30_000
MAX_READ_BYTES = 2_000_000

BASH = ToolSpec(
    name="bash",
    description="Run a shell command in the workspace folder and return its exit code and output.",
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command line, run with bash -c."},
            "timeout": {"type": "integer", "minimum": 1, "maximum": 3600, "description": "Seconds (default 120)."},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    read_only=False,
)
READ_FILE = ToolSpec(
    name="read_file",
    description="Read a text file of the workspace (path relative to the workspace folder).",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)
WRITE_FILE = ToolSpec(
    name="write_file",
    description="Create or overwrite a file of the workspace with the given content.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    read_only=False,
)
EDIT_FILE = ToolSpec(
    name="edit_file",
    description="Replace one exact occurrence of old_text with new_text in a workspace file.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_text": {"type": "string", "description": "Text that occurs exactly once in the file."},
            "new_text": {"type": "string"},
        },
        "required": ["path", "old_text", "new_text"],
        "additionalProperties": False,
    },
    read_only=False,
)
WORKSPACE_TOOLS: tuple[ToolSpec, ...] = (BASH, READ_FILE, WRITE_FILE, EDIT_FILE)


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceOutcome:
    text: str
    is_error: bool = False
    edited: Path | None = None
    command: str | None = None
    exit_code: int | None = None


class WorkspaceError(Exception):
    """A tool call the workspace refuses (reported to the model, never raised to the loop)."""


class WorkspaceTools:
    """Executes the four workspace tools inside ``root``."""

    def __init__(self, root: Path, *, default_timeout: int = 120) -> None:
        self.root = root.resolve()
        self.default_timeout = default_timeout

    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in WORKSPACE_TOOLS)

    def execute(self, name: str, arguments: Mapping[str, Any]) -> WorkspaceOutcome:
        handlers = {"bash": self._bash, "read_file": self._read, "write_file": self._write, "edit_file": self._edit}
        try:
            return handlers[name](arguments)
        except WorkspaceError as exc:
            return WorkspaceOutcome(text=f"error: {exc}", is_error=True)
        except OSError as exc:
            return WorkspaceOutcome(text=f"error: {exc.strerror or exc} ({exc.filename or ''})", is_error=True)

    def _path(self, arguments: Mapping[str, Any]) -> Path:
        raw = _text(arguments, "path")
        candidate = (self.root / raw).resolve()
        if candidate != self.root and self.root not in candidate.parents:
            raise WorkspaceError(f"{raw!r} is outside the workspace {self.root}; use a path inside it")
        return candidate

    def _bash(self, arguments: Mapping[str, Any]) -> WorkspaceOutcome:
        command = _text(arguments, "command")
        timeout = arguments.get("timeout") or self.default_timeout
        if not isinstance(timeout, int) or timeout < 1:
            raise WorkspaceError("timeout must be a positive whole number of seconds")
        try:
            proc = subprocess.run(
                ["bash", "-c", command], cwd=self.root, capture_output=True, text=True, timeout=timeout,
                stdin=subprocess.DEVNULL, errors="replace", check=False,
            )
        except subprocess.TimeoutExpired:
            return WorkspaceOutcome(text=f"error: timed out after {timeout} s", is_error=True, command=command,
                                    exit_code=124)
        output = _clip(proc.stdout + (("\n" + proc.stderr) if proc.stderr else ""))
        return WorkspaceOutcome(text=f"exit code {proc.returncode}\n{output}".rstrip(), is_error=proc.returncode != 0,
                                command=command, exit_code=proc.returncode)

    def _read(self, arguments: Mapping[str, Any]) -> WorkspaceOutcome:
        path = self._path(arguments)
        if not path.is_file():
            raise WorkspaceError(f"{arguments.get('path')!r} is not a file")
        data = path.read_bytes()[:MAX_READ_BYTES]
        if b"\0" in data[:8192]:
            raise WorkspaceError(f"{arguments.get('path')!r} is a binary file")
        return WorkspaceOutcome(text=_clip(data.decode("utf-8", errors="replace")))

    def _write(self, arguments: Mapping[str, Any]) -> WorkspaceOutcome:
        path = self._path(arguments)
        content = _text(arguments, "content", allow_empty=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return WorkspaceOutcome(text=f"wrote {len(content)} characters to {path.relative_to(self.root)}", edited=path)

    def _edit(self, arguments: Mapping[str, Any]) -> WorkspaceOutcome:
        path = self._path(arguments)
        old, new = _text(arguments, "old_text"), _text(arguments, "new_text", allow_empty=True)
        if not path.is_file():
            raise WorkspaceError(f"{arguments.get('path')!r} is not a file; use write_file to create it")
        text = path.read_text(encoding="utf-8")
        count = text.count(old)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise WorkspaceError(f"old_text {where} in {arguments.get('path')!r}; give text that occurs exactly once")
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return WorkspaceOutcome(text=f"edited {path.relative_to(self.root)}", edited=path)


def _text(arguments: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or (not allow_empty and not value):
        raise WorkspaceError(f"argument {key!r} must be a non-empty string")
    return value


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    half = MAX_OUTPUT_CHARS // 2
    return f"{text[:half]}\n... [{len(text) - MAX_OUTPUT_CHARS} characters cut] ...\n{text[-half:]}"
