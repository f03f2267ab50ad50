"""The values of the instructions layer: one :class:`InstructionLayer` per file, in the order
the model reads them, and :class:`Instructions`, the rendered block plus its provenance.

Nothing here touches the disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.tokens import approx_tokens

__all__ = ["InstructionLayer", "InstructionScope", "Instructions", "LayerKind", "Profile"]

Profile = Literal["codex", "claude"]


class InstructionScope(IntEnum):
    """How wide a file applies, from widest to narrowest (ordered: ``MANAGED < USER < PROJECT < ...``)."""

    MANAGED = -1  # Claude Code's managed policy: its folder's CLAUDE.md and rules, its claudeMd
    USER = 0  # $CODEX_HOME/AGENTS.md, ~/.claude/CLAUDE.md and ~/.claude/rules
    PROJECT = 1  # the project root (and, for Claude Code, the folders above it)
    FOLDER = 2  # a folder between the project root (exclusive) and the cwd (inclusive)
    LOCAL = 3  # CLAUDE.local.md: private to this checkout

    @property
    def label(self) -> str:
        return self.name.lower()


class LayerKind(StrEnum):
    """Why a file was read."""

    AGENTS = "agents"  # AGENTS.md
    OVERRIDE = "override"  # AGENTS.override.md
    FALLBACK = "fallback"  # a name from project_doc_fallback_filenames
    CLAUDE = "claude"  # CLAUDE.md or .claude/CLAUDE.md
    CLAUDE_LOCAL = "claude-local"  # CLAUDE.local.md
    RULE = "rule"  # .claude/rules/**/*.md
    IMPORT = "import"  # pulled in by an @path line
    POLICY = "policy"  # claudeMd of Claude Code's managed settings (text, not a file)


@dataclass(frozen=True, slots=True, kw_only=True)
class InstructionLayer:
    """One instructions file and what became of it.

    ``text`` is exactly what the model gets from this file (after truncation, decoding and,
    for CLAUDE.md, front matter and comment removal). ``bytes_cut`` counts the bytes of the file
    left out by the byte cap; ``included`` is false for files found but left out entirely
    (empty, over the cap, an import outside the working folder...), with ``reason``.
    """

    path: Path
    scope: InstructionScope
    kind: LayerKind
    text: str
    size: int
    bytes_cut: int = 0
    included: bool = True
    reason: str | None = None
    imported_from: Path | None = None
    depth: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "scope": self.scope.label,
            "kind": self.kind.value,
            "included": self.included,
            "reason": self.reason,
            "size": self.size,
            "bytes_cut": self.bytes_cut,
            "imported_from": str(self.imported_from) if self.imported_from else None,
            "depth": self.depth,
            "tokens": approx_tokens(self.text),
        }

    @classmethod
    def left_out(
        cls,
        path: Path,
        scope: InstructionScope,
        kind: LayerKind,
        *,
        size: int,
        reason: str,
        bytes_cut: int = 0,
        imported_from: Path | None = None,
        depth: int = 0,
    ) -> InstructionLayer:
        """A file found but left out entirely (no text), and why."""
        return cls(
            path=path,
            scope=scope,
            kind=kind,
            text="",
            size=size,
            bytes_cut=bytes_cut,
            included=False,
            reason=reason,
            imported_from=imported_from,
            depth=depth,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Instructions:
    """The instructions the model gets for ``cwd``: the layers and the rendered block.

    ``text`` is empty when no file contributes anything (the agent then sends no block).
    """

    profile: Profile
    cwd: Path
    layers: tuple[InstructionLayer, ...]
    text: str
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def included(self) -> tuple[InstructionLayer, ...]:
        return tuple(layer for layer in self.layers if layer.included)

    @property
    def tokens(self) -> int:
        return approx_tokens(self.text)

    def to_dict(self) -> dict[str, object]:
        return {
            "profile": self.profile,
            "cwd": str(self.cwd),
            "tokens": self.tokens,
            "layers": [layer.to_dict() for layer in self.layers],
            "text": self.text,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
