"""The agent's folder tools: bash, read_file, write_file, edit_file, confined to its working folder
(the "workspace" of the tool descriptions the model reads; not :mod:`skillshelf.workspace`).

Every call returns a :class:`FolderOutcome` (text for the model, error flag, and what the
guards need: which file was edited, which command ran with which exit code). Nothing raises
to the loop: a bad path, an argument out of range (a timeout of 10**12 s, a NUL in a command)
or a failing command is an error *result* the model can act on. Arguments are checked first
(:func:`~skillshelf.agent.tool_arguments.argument_problem`: a JSON object that fits the tool's
schema). A file larger than ``MAX_READ_BYTES`` is shown by its real first and last bytes, with
its size and the count of bytes left out. ``read_file`` also reads, read-only, in the folders of
the discovered skills (``skill_folders``: what the catalog tells the model to read).

A command's output is streamed and clipped as it arrives (:func:`~skillshelf.agent.tool_io.
run_clipped`), and writes encode the content first, then replace the file in one rename
(:func:`~skillshelf.agent.tool_io.write_atomic`): text that cannot be encoded (a lone
surrogate from a ``"\\ud800"`` JSON escape) is refused and the file keeps its content.

A command runs with the ``environ`` it is given (:func:`~skillshelf.agent.shell_env.
shell_environment`: the caller's, less the variables named like secrets), and its output is
redacted (:func:`~skillshelf.agent.shell_env.redacted_parts`) before it is cut and before the
model reads it. The exact values left out of that environment (``stripped``) are replaced by the
marker in every tool's output (a command can read them back from this process). ``read_file``
shows a file exactly (the model edits files byte for byte), but for those values and for a file
that is not UTF-8 (shown with U+FFFD and a note that says so); where bash is offered,
``write_file`` / ``edit_file`` refuse text that adds the redaction marker to a file, so a
redacted ``cat`` written back cannot replace a secret with the marker, and the tools'
descriptions say so. Neither replaces a read-only file, nor writes text from a lossy read over
a file that is not UTF-8 (:mod:`~skillshelf.agent.file_checks`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from skillshelf.agent.file_checks import (
    LOSSY_CODE,
    FolderError,
    current_text,
    encoded,
    refuse_locked,
    refuse_lossy_overwrite,
    refuse_new_markers,
    shown_text,
)
from skillshelf.agent.path_messages import os_error_text
from skillshelf.agent.shell_env import REDACTED, redacted_parts
from skillshelf.agent.skill_reads import SKILL_READ_NOTE, SkillFolders
from skillshelf.agent.stripped_values import NO_VALUES, StrippedValues
from skillshelf.agent.tool_arguments import argument_problem
from skillshelf.agent.tool_io import run_clipped, write_atomic
from skillshelf.errors import SkillshelfError
from skillshelf.fileio import resolve_path
from skillshelf.serve.schemas import ToolSpec
from skillshelf.skills.model import Skill

__all__ = ["FOLDER_TOOLS", "FolderError", "FolderOutcome", "FolderTools"]

MAX_OUTPUT_CHARS = 30_000
MAX_READ_BYTES = 2_000_000
MAX_TIMEOUT = 3600  # seconds; the schema's maximum

BASH = ToolSpec(
    name="bash",
    description="Run a shell command in the workspace folder and return its exit code and output. "
    f"Secrets in the output are replaced by {REDACTED}: use read_file to see a file exactly.",
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command line, run with bash -c."},
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT,
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
#: What the file tools' descriptions add when bash is offered, whose output is redacted.
REDACTION_NOTES: Mapping[str, str] = {
    "read_file": " It shows the file exactly, secrets included (bash's output has them redacted).",
    "write_file": f" Refused when the content adds {REDACTED} markers the file did not hold: "
    "read the file with read_file first.",
    "edit_file": f" Refused when new_text adds {REDACTED} markers: read the file with read_file first.",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class FolderOutcome:
    text: str
    is_error: bool = False
    edited: Path | None = None
    command: str | None = None
    exit_code: int | None = None
    read: Path | None = None  # the file read_file read


class FolderTools:
    """Executes the workspace tools inside ``root``.

    ``allowed`` limits the tools to a subset (e.g. no ``bash``: then nothing runs outside the
    file tools). ``writable`` is an allow-list for writes: a predicate on the path relative to
    the root (POSIX form); when given, writes and edits must name a plain relative path (no
    ``..``, not absolute) that passes it, and no part of it may be a symlink. ``writable_rule``
    tells the model what may be written. ``environ``: the whole environment of a bash command
    (``None``: this process's, as it is). With bash offered, whose output is redacted, writes
    and edits that add the redaction marker to a file are refused (``refuse_markers``), and the
    tool descriptions say so; without it (the memory consolidation, whose input is redacted
    text) they are not. ``stripped``: the exact values left out of ``environ``, replaced by the
    marker in every output (:mod:`~skillshelf.agent.stripped_values`).
    """

    def __init__(
        self,
        root: Path,
        *,
        default_timeout: int = 120,
        allowed: Collection[str] | None = None,
        writable: Callable[[str], bool] | None = None,
        writable_rule: str = "",
        environ: Mapping[str, str] | None = None,
        skill_folders: SkillFolders | None = None,
        stripped: StrippedValues = NO_VALUES,
    ) -> None:
        self.root = root.resolve()
        self.skill_folders = skill_folders
        self.environ = environ
        self.stripped = stripped
        self.default_timeout = default_timeout
        known = {spec.name for spec in FOLDER_TOOLS}
        unknown = set(allowed or ()) - known
        if unknown:
            raise ValueError(f"unknown workspace tools: {', '.join(sorted(unknown))}")
        self.allowed = frozenset(known if allowed is None else allowed)
        self.writable = writable
        self.writable_rule = writable_rule
        self.refuse_markers = "bash" in self.allowed

    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.specs())

    def specs(self) -> tuple[ToolSpec, ...]:
        """The tool definitions this workspace offers (in the usual order)."""
        notes = dict(REDACTION_NOTES) if self.refuse_markers else {}
        if self.skill_folders is not None:
            notes["read_file"] = SKILL_READ_NOTE + notes.get("read_file", "")
        return tuple(
            replace(spec, description=spec.description + notes.get(spec.name, ""))
            for spec in FOLDER_TOOLS
            if spec.name in self.allowed
        )

    def execute(self, name: str, arguments: Mapping[str, Any]) -> FolderOutcome:
        """Run one tool call; its text scrubbed of the values left out of the environment."""
        outcome = self._execute(name, arguments)
        if not self.stripped:
            return outcome
        return replace(outcome, text=self.stripped.scrub(outcome.text))

    def _execute(self, name: str, arguments: Mapping[str, Any]) -> FolderOutcome:
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
            _check(name, arguments)
            return handlers[name](arguments)
        except FolderError as exc:
            return FolderOutcome(text=f"error: {exc}", is_error=True)
        except OSError as exc:
            return FolderOutcome(text=f"error: {os_error_text(exc, self.root)}", is_error=True)
        except UnicodeDecodeError as exc:
            how = "change it with bash (iconv, sed)" if "bash" in self.allowed else "leave it alone"
            return FolderOutcome(
                text=f"error: {LOSSY_CODE} the file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                f"at offset {exc.start}); nothing was changed\nfix: {how}: these tools edit UTF-8 text only",
                is_error=True,
            )
        except ValueError as exc:  # e.g. a path with a lone surrogate the file system cannot name
            return FolderOutcome(text=f"error: {exc}", is_error=True)

    def _path(self, arguments: Mapping[str, Any]) -> Path:
        raw = _text(arguments, "path")
        if "\0" in raw:
            raise FolderError("argument 'path' must not contain NUL characters")
        try:
            candidate = resolve_path(self.root / raw)
        except OSError as exc:  # a loop of symlinks
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
        if "\0" in command:
            raise FolderError("argument 'command' must not contain NUL characters")
        timeout = arguments.get("timeout") or self.default_timeout
        if not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= MAX_TIMEOUT:
            raise FolderError(f"timeout must be a whole number of seconds from 1 to {MAX_TIMEOUT}")
        run = run_clipped(
            command,
            cwd=self.root,
            timeout=timeout,
            limit=MAX_OUTPUT_CHARS,
            env=self.environ,
            clean=lambda texts: redacted_parts(texts, self.stripped.scrub),
        )
        output = run.output
        if run.exit_code is None:
            return FolderOutcome(
                text=f"error: timed out after {timeout} s\n{output}".rstrip(),
                is_error=True,
                command=command,
                exit_code=124,
            )
        return FolderOutcome(
            text=f"exit code {run.exit_code}\n{output}".rstrip(),
            is_error=run.exit_code != 0,
            command=command,
            exit_code=run.exit_code,
        )

    def _read(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        try:
            path = self._path(arguments)
        except FolderError:
            if (folders := self.skill_folders) and (found := folders.find(self.root, arguments["path"])):
                return _skill_file(folders, *found)
            raise
        if not path.is_file():
            raise FolderError(f"{arguments.get('path')!r} is not a file")
        with open(path, "rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
            if b"\0" in data[:8192]:
                raise FolderError(f"{arguments.get('path')!r} is a binary file")
            if len(data) <= MAX_READ_BYTES:
                return FolderOutcome(text=_clip(shown_text(data)), read=path)
            size = max(os.fstat(handle.fileno()).st_size, len(data))
            handle.seek(max(0, size - MAX_OUTPUT_CHARS // 2))
            tail = handle.read(MAX_OUTPUT_CHARS // 2)
        return FolderOutcome(text=_ends(data[: MAX_OUTPUT_CHARS // 2], tail, size), read=path)

    def _write(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        path = self._write_path(arguments)
        content = _text(arguments, "content", allow_empty=True)
        if path.exists() and not path.is_file():
            raise FolderError(
                f"{arguments.get('path')!r} exists and is not a regular file; it was left alone"
            )
        refuse_locked(path, arguments.get("path"))
        converted = refuse_lossy_overwrite(path, content, arguments.get("path"))
        if self.refuse_markers:
            refuse_new_markers(content, current_text(path), arguments.get("path"))
        data = encoded(content, "content")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
        return FolderOutcome(
            text=f"wrote {len(content)} characters to {path.relative_to(self.root)}{converted}", edited=path
        )

    def _edit(self, arguments: Mapping[str, Any]) -> FolderOutcome:
        path = self._write_path(arguments)
        old, new = _text(arguments, "old_text"), _text(arguments, "new_text", allow_empty=True)
        if not path.is_file():
            raise FolderError(f"{arguments.get('path')!r} is not a file; use write_file to create it")
        refuse_locked(path, arguments.get("path"))
        text = path.read_text(encoding="utf-8")
        count = text.count(old)
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise FolderError(
                f"old_text {where} in {arguments.get('path')!r}; give text that occurs exactly once"
            )
        edited = text.replace(old, new, 1)
        if self.refuse_markers:
            refuse_new_markers(edited, text, arguments.get("path"))
        write_atomic(path, encoded(edited, "new_text"))
        return FolderOutcome(text=f"edited {path.relative_to(self.root)}", edited=path)


def _skill_file(folders: SkillFolders, skill: Skill, relative: str) -> FolderOutcome:
    """A file in a discovered skill's folder outside the workspace, read-only and confined."""
    try:
        read = folders.read(skill, relative, max_bytes=MAX_READ_BYTES)
    except SkillshelfError as exc:
        raise FolderError(f"{exc.message}; {exc.hint}" if exc.hint else exc.message) from None
    return FolderOutcome(text=_clip(read.text), read=read.path)


def _check(name: str, arguments: Mapping[str, Any]) -> None:
    """A ``FolderError`` unless ``arguments`` are a JSON object that fits the tool's schema."""
    spec = next(spec for spec in FOLDER_TOOLS if spec.name == name)
    problem = argument_problem(spec, arguments)
    if problem:
        raise FolderError(problem)


def _text(arguments: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or (not allow_empty and not value):
        raise FolderError(f"argument {key!r} must be a non-empty string")
    return value


def _ends(head: bytes, tail: bytes, size: int) -> str:
    """A large file as its first and last bytes, with what lies between counted in bytes."""
    cut = size - len(head) - len(tail)
    return (
        f"{head.decode('utf-8', errors='replace')}\n... [{cut} bytes cut: the file is {size} bytes; "
        f"shown are its first {len(head)} and last {len(tail)} bytes; use bash (grep, sed -n, head, "
        f"tail) to read the rest] ...\n{tail.decode('utf-8', errors='replace')}"
    )


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    half = MAX_OUTPUT_CHARS // 2
    return f"{text[:half]}\n... [{len(text) - MAX_OUTPUT_CHARS} characters cut] ...\n{text[-half:]}"
