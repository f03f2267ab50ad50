"""Which agents are installed on this machine, for ``install`` without ``--for``.

Codex is found by ``$CODEX_HOME`` holding anything or ``codex`` on the PATH; Claude Code by
``~/.claude.json``, ``~/.claude`` holding more than what skillshelf makes there, or ``claude``
on the PATH. What skillshelf makes itself (``~/.claude/skills`` and the staging folder an
install uses, which a killed install leaves) never changes which agent is found.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from skillshelf.env import Env
from skillshelf.install.files import TMP_DIR_NAME

__all__ = ["agents_found"]

#: What ``install --for claude`` makes in ``~/.claude``: the skills folder and its staging folder.
_MADE_IN_CLAUDE = ("skills", TMP_DIR_NAME)


def agents_found(env: Env) -> tuple[bool, bool]:
    """Whether Codex and whether Claude Code are installed here, by their traces."""
    path = env.environ.get("PATH", os.defpath)
    codex = _used(env.codex_home, made_here=()) or shutil.which("codex", path=path) is not None
    claude = (env.home / ".claude.json").is_file() or _used(env.home / ".claude", made_here=_MADE_IN_CLAUDE)
    return codex, claude or shutil.which("claude", path=path) is not None


def _used(folder: Path, *, made_here: tuple[str, ...]) -> bool:
    """Whether an agent's folder holds more than ``made_here`` (what ``install --for`` makes
    there): skillshelf's own installs never change which agent is found."""
    try:
        with os.scandir(folder) as entries:
            return any(entry.name not in made_here for entry in entries)
    except OSError:
        return False
