"""skillshelf.instructions: the AGENTS.md (Codex) and CLAUDE.md (Claude Code) layers.

:func:`load_instructions` finds the instruction files that apply at ``env.cwd`` for one
agent's conventions and renders the block that agent gives the model, keeping for every file
where it came from, its scope and how many bytes were cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.instructions.model import InstructionLayer, Instructions, InstructionScope, LayerKind, Profile

__all__ = [
    "InstructionLayer",
    "InstructionScope",
    "Instructions",
    "LayerKind",
    "Profile",
    "load_instructions",
]


def load_instructions(
    env: Env,
    *,
    profile: Literal["codex", "claude"] = "codex",
    max_bytes: int | None = None,
    fallback_filenames: Sequence[str] | None = None,
    extra_fallback_filenames: Sequence[str] = (),
) -> Instructions:
    """The instruction layers for ``env.cwd``.

    ``codex``: AGENTS.md files as Codex loads them; ``max_bytes`` and ``fallback_filenames``
    override ``project_doc_max_bytes`` / ``project_doc_fallback_filenames`` from Codex's
    config.toml; ``extra_fallback_filenames`` are tried after those names (Codex's or the
    override). ``claude``: CLAUDE.md files with their ``@path`` imports (``max_bytes`` and the
    fallback names do not apply).
    """
    if max_bytes is not None and max_bytes < 0:
        raise UsageError(
            f"max_bytes must be 0 or more, not {max_bytes}", hint="pass a byte count such as 32768"
        )
    if profile == "codex":
        from skillshelf.instructions.agents_md import load_agents_md

        return load_agents_md(
            env,
            max_bytes=max_bytes,
            fallback_filenames=fallback_filenames,
            extra_fallback_filenames=extra_fallback_filenames,
        )
    if profile == "claude":
        from skillshelf.instructions.claude_md import load_claude_md

        return load_claude_md(env)
    raise UsageError(f"unknown instructions profile {profile!r}", hint="use 'codex' or 'claude'")
