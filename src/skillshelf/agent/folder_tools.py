"""The agent's folder tools: bash, read_file, write_file, edit_file, confined to its working folder
(the "workspace" of the tool descriptions the model reads; not :mod:`skillshelf.workspace`).

Every call returns a :class:`FolderOutcome` (text for the model, error flag, and what the
guards need: which file was edited, which command ran with which exit code). Nothing raises
to the loop: a bad path or a failing command is an error *result* the model can act on.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from skillshelf.serve.schemas import ToolSpec

__all__ = ["FOLDER_TOOLS", "FolderOutcome", "FolderTools"]

MAX_OUTPUT_CHARS = 30_000
MAX_READ_BYTES = 2_000_000

BASH = ToolSpec(
    name="bash",
    description="Run a shell command in the workspace folder and return its exit code and output.",
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command line, run with bash -c."},
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": 3600,
                "description": "Seconds (default 120).",
            },
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
FOLDER_TOOLS: tuple[ToolSpec, ...] = (BASH, READ_FILE, WRITE_FILE, EDIT_FILE)


@dataclass(frozen=True, slots=True, kw_only=True)
class FolderOutcome:
    text: str
    is_error: bool = False
    edited: Path | None = None
    command: str | None = None
    exit_code: int | None = None


class FolderError(Exception):
    """A tool call the workspace refuses (reported to the model, never raised to the loop)."""


class FolderTools:
    """Executes the workspace tools inside ``root``.

    ``allowed`` limits the tools to a subset (e.g. no ``bash``: then nothing runs outside the
    file tools). ``writable`` is an allow-list for writes: a predicate on the path relative to
    the root (POSIX form); when given, writes and edits must name a plain relative path (no
    ``..``, not absolute) that passes it, and no part of it may be a symlink. ``writable_rule``
    tells the model what may be written.
    """

    def __init__(
        self,
        root: Path,
        *,
        default_timeout: int = 120,
        allowed: Collection[str] | None = None,
        writable: Callable[[str], bool] | None = None,
        writable_rule: str = "",
    ) -> None:
        self.root = root.resolve()
        self.default_timeout = default_timeout
        known = {spec.name for spec in FOLDER_TOOLS}
        unknown = set(allowed or ()) - known
        if unknown:
            raise ValueError(f"unknown workspace tools: {', '.join(sorted(unknown))}")
        self.allowed = frozenset(known if allowed is None else allowed)
        self.writable = writable
        self.writable_rule = writable_rule

    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.specs())

    def specs(self) -> tuple[ToolSpec, ...]:
        """The tool definitions this workspace offers (in the usual order)."""
        return tuple(spec for spec in FOLDER_TOOLS if spec.name in self.allowed)

    def execute(self, name: str, arguments: Mapping[str, Any]) -> FolderOutcome:
        handlers = {
            "bash": self._bash,
            "read_file": self._read,
            "write_file": self._write,
            "edit_file": self._edit,
        }
        if name not in self.allowed:
            offered = ", ".join(self.names()) or "none"
            return FolderOutcome(
                text=f"error: the tool {name!r} is not available here; the workspace tools are: {offered}",
                is_error=True,
            )
        try:
            return handlers[name](arguments)
        except FolderError as exc:
            return FolderOutcome(text=f"error: {exc}", is_error=True)
        except OSError as exc:
            return FolderOutcome(text=f"error: {exc.strerror or exc} ({exc.filename or ''})", is_error=True)
        except UnicodeDecodeError as exc:
            how = (
                "use bash to change it" if "bash" in self.allowed else "it cannot be edited with these tools"
            )
            return FolderOutcome(
                text=f"error: the file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                f"offset {exc.start}); {how}",
                is_error=True,
            )

    def _path(self, arguments: Mapping[str, Any]) -> Path:
        raw = _text(arguments, "path")
        if "\0" in raw:
            raise FolderError("argument 'path' must not contain NUL characters")
        try:
            candidate = (self.root / raw).resolve()
        except RuntimeError as exc:  # a symlink loop (Python 3.11 raises RuntimeError for it)
            raise FolderError(f"{raw!r} cannot be resolved: {exc}") from exc
        if candidate != self.root and self.root not in candidate.parents:
            raise FolderError(f"{raw!r} is outside the workspace {self.root}; use a path inside it")
        return candidate

    def _write_path(self, arguments: Mapping[str, Any]) -> Path:
        """The target of a write or edit: inside the root and, with an allow-list, on it."""
        if self.writable is None:
            return self._path(arguments)
        raw = _text(arguments, "path")
        pure = PurePosixPath(raw)
        rule = f" ({self.writable_rule})" if self.writable_rule else ""
        if pure.is_absolute() or ".." in pure.parts or raw.startswith("~") or "\0" in raw or "\\" in raw:
            raise FolderError(
                f"{raw!r} is not a plain relative path inside the workspace; writes are refused{rule}"
            )
        relative = pure.as_posix()
        if not self.writable(relative):
            raise FolderError(f"writing {raw!r} is not allowed{rule}")
        current = self.root
        for part in pure.parts:
            current = current / part
            if current.is_symlink():
                raise FolderError(
                    f"{raw!r} goes through the symlink {current.relative_to(self.root)}; "
                    "writes through symlinks are refused"
                )
        return self._path(arguments)

    def _bash(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        command = _text(arguments, "command")
        timeout = arguments.get("timeout") or self.default_timeout
        if not isinstance(timeout, int) or timeout < 1:
            raise FolderError("timeout must be a positive whole number of seconds")
        try:
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=self.root,
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                errors="replace",
                check=False,
            )
        except subprocess.TimeoutExpired:
            return FolderOutcome(
                text=f"error: timed out after {timeout} s", is_error=True, command=command, exit_code=124
            )
        output = _clip(proc.stdout + (("\n" + proc.stderr) if proc.stderr else ""))
        return FolderOutcome(
            text=f"exit code {proc.returncode}\n{output}".rstrip(),
            is_error=proc.returncode != 0,
            command=command,
            exit_code=proc.returncode,
        )

    def _read(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        path = self._path(arguments)
        if not path.is_file():
            raise FolderError(f"{arguments.get('path')!r} is not a file")
        with open(path, "rb") as handle:
            data = handle.read(MAX_READ_BYTES)
        if b"\0" in data[:8192]:
            raise FolderError(f"{arguments.get('path')!r} is a binary file")
        return FolderOutcome(text=_clip(data.decode("utf-8", errors="replace")))

    def _write(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        path = self._write_path(arguments)
        content = _text(arguments, "content", allow_empty=True)
        if path.exists() and not path.is_file():
            raise FolderError(
                f"{arguments.get('path')!r} exists and is not a regular file; it was left alone"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return FolderOutcome(
            text=f"wrote {len(content)} characters to {path.relative_to(self.root)}", edited=path
        )

    def _edit(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        path = self._write_path(arguments)
        old, new = _text(arguments, "old_text"), _text(arguments, "new_text", allow_empty=True)
        if not path.is_file():
            raise FolderError(f"{arguments.get('path')!r} is not a file; use write_file to create it")
        text = path.read_text(encoding="utf-8")
        count = text.count(old)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise FolderError(
                f"old_text {where} in {arguments.get('path')!r}; give text that occurs exactly once"
            )
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return FolderOutcome(text=f"edited {path.relative_to(self.root)}", edited=path)


def _text(arguments: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or (not allow_empty and not value):
        raise FolderError(f"argument {key!r} must be a non-empty string")
    return value


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    half = MAX_OUTPUT_CHARS // 2
    return f"{text[:half]}\n... [{len(text) - MAX_OUTPUT_CHARS} characters cut] ...\n{text[-half:]}"
