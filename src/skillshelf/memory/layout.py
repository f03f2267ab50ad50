"""Where memories live and how their files are named.

Memories are scoped per project by default: ``<user data dir>/memories/<name>-<hash>/`` for
the project root of a session's cwd (:func:`memory_project`: a git worktree's main checkout, so
the worktrees agents make for each task share their project's memories); the opt-in global
scope is ``<user data dir>/memories/global``.
Each folder holds ``memory_summary.md``, ``MEMORY.md``, ``raw_memories.md``,
``rollout_summaries/`` and ``skills/`` (a skillshelf skill root), and
``.skillshelf-database.json``, which names the memory database that consolidates it
(:mod:`.origin`: every database writes its scopes here; another's run refuses to rewrite it).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path

from skillshelf.gitrepo import main_checkout

__all__ = [
    "GLOBAL_SCOPE",
    "is_other_scope",
    "memories_root",
    "memory_project",
    "project_scope",
    "scope_dir",
    "summary_file_stem",
]

GLOBAL_SCOPE = "global"
_BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def memories_root(data_dir: Path) -> Path:
    return data_dir / "memories"


def memory_project(project_root: Path) -> Path:
    """The project whose memories a session at ``project_root`` has: the main checkout of a
    linked git worktree, else ``project_root`` itself."""
    return main_checkout(project_root)


def project_scope(project_root: Path | str) -> str:
    """The scope key of a project: ``project:<absolute root>``."""
    return f"project:{project_root}"


def is_other_scope(scope: str, setting: str) -> bool:
    """Whether ``scope`` is of the kind ``memory.scope = setting`` does not write: a project's
    under ``global``, the global one under ``project`` (left from before a switch)."""
    return (scope == GLOBAL_SCOPE) != (setting == "global")


def scope_dir(data_dir: Path, scope: str) -> Path:
    """The memory folder of a scope (a readable name plus a hash, so paths never collide)."""
    if scope == GLOBAL_SCOPE:
        return memories_root(data_dir) / GLOBAL_SCOPE
    root = scope.removeprefix("project:")
    name = re.sub(r"[^a-z0-9_-]+", "-", Path(root).name.lower()).strip("-")[:40] or "root"
    digest = hashlib.sha256(_path_bytes(root)).hexdigest()[:10]
    return memories_root(data_dir) / f"{name}-{digest}"


def _path_bytes(text: str) -> bytes:
    """A path's bytes as the file system names it: UTF-8, with the undecodable bytes that
    Python keeps as lone surrogates (``surrogateescape``) written back as those bytes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _stem_time(session_id: str, fallback_ms: int) -> tuple[datetime, int]:
    try:
        parsed = uuid.UUID(session_id)
    except ValueError:
        seed = 0
        for byte in session_id.encode("utf-8"):
            seed = (seed * 31 + byte) & 0xFFFFFFFF
        return datetime.fromtimestamp(fallback_ms / 1000, tz=UTC), seed
    seed = parsed.int & 0xFFFFFFFF
    if parsed.version == 7:
        return datetime.fromtimestamp((parsed.int >> 80) / 1000, tz=UTC), seed
    return datetime.fromtimestamp(fallback_ms / 1000, tz=UTC), seed


def summary_file_stem(session_id: str, source_updated_at_ms: int, slug: str | None) -> str:
    """Codex's ``rollout_summaries/<stem>.md`` name: ``<UTC time>-<4 base-62>[-<slug>]``."""
    when, seed = _stem_time(session_id, source_updated_at_ms)
    seed %= 62**4
    digits = ""
    for _ in range(4):
        seed, rem = divmod(seed, 62)
        digits = _BASE62[rem] + digits
    prefix = f"{when.strftime('%Y-%m-%dT%H-%M-%S')}-{digits}"
    clean = ""
    for ch in slug or "":
        if len(clean) >= 60:
            break
        clean += ch.lower() if ch.isascii() and ch.isalnum() else "_"
    clean = clean.rstrip("_")
    return f"{prefix}-{clean}" if clean else prefix
