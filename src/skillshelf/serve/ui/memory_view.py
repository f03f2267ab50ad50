"""The memory view: per project, the memory summary and ``MEMORY.md``, and every memory with
the session it came from and how often agents cited it; and forgetting one.

Reads only the memory folders (``<data>/memories/<scope>``, files confined to them as skill
files are) and the memory database; a missing database is reported, never created. A memory
file's text is redacted before it is shown, as it is before a model reads it
(:mod:`skillshelf.memory.read_redacted`): a card shows what an agent could be given, never a
secret a hand edit put back. The card ``in_context`` marks is the one whose summary
``context`` gives the model; the page shows that text (``in_context``: cut to its cap, and read
through a symlink as the read path reads it) on that card. Forgetting
is :meth:`Store.forget <skillshelf.memory.store.Store.forget>`, as ``skillshelf memory forget``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.env import Env
from skillshelf.errors import NotFoundError, PathEscapeError, SkillshelfError, UsageError
from skillshelf.memory.control import forget_session
from skillshelf.memory.layout import GLOBAL_SCOPE, memory_project, project_scope, scope_dir
from skillshelf.memory.read import memory_folders_for, memory_summary_for, scope_setting, summary_token_cap
from skillshelf.memory.store import OutputRow, default_db_path, open_store
from skillshelf.skills.bundled import read_confined_file
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.config import Config

__all__ = ["forget_memory", "memory_view", "scope_title"]

MAX_FILE_BYTES = 256 * 1024
MAX_MEMORY_CHARS = 4000
MAX_SESSION_ID = 200


def memory_view(env: Env, config: Config) -> dict[str, object]:
    """The memory view's data: the current project first, then the global scope, then the rest
    (the current project's card always, the global one when it exists or ``memory.scope`` uses it,
    the others when they exist); ``in_context`` is the summary of the scope ``memory.scope`` (in
    ``config``) writes; ``used``: the scope that setting reads and writes here; ``title``: each
    card's (:func:`scope_title`)."""
    data = env.dirs.data
    db = default_db_path(data)
    current = project_scope(memory_project(env.project_root))
    outputs: list[OutputRow] = []
    sources: dict[str, str] = {}
    if db.is_file():
        with open_store(None, data_dir=data, read_only=True) as store:
            outputs = store.outputs()
            for row in outputs:
                session = store.session(row.session_id)
                sources[row.session_id] = session.source if session else ""
    setting = scope_setting(config)
    cap = summary_token_cap(config, on_bad=lambda exc: None)  # a bad value: `context` names it
    in_context = memory_summary_for(env, setting=setting, token_cap=cap)
    used = {scope for scope, _ in memory_folders_for(env, setting=setting)}
    scopes = list(dict.fromkeys([current, GLOBAL_SCOPE, *sorted(r.scope for r in outputs)]))
    views = []
    for scope in scopes:
        rows = [r for r in outputs if r.scope == scope]
        folder = scope_dir(data, scope)
        if scope != current and scope not in used and not rows and not folder.is_dir():
            continue
        views.append(
            {
                "scope": scope,
                "title": scope_title(scope, current=scope == current, used=scope in used, setting=setting),
                "current": scope == current,
                "used": scope in used,
                "folder": str(folder),
                "in_context": in_context is not None and in_context.folder == folder,
                "summary": _read(folder, "memory_summary.md"),
                "memory_md": _read(folder, "MEMORY.md"),
                "memories": [_memory(r, sources.get(r.session_id, "")) for r in rows],
            }
        )
    return {
        "db": str(db) if db.is_file() else None,
        "project": str(env.project_root),
        "setting": setting,
        "in_context": in_context.to_dict() if in_context else None,
        "scopes": views,
    }


def scope_title(scope: str, *, current: bool, used: bool, setting: str) -> str:
    """A memory card's title: what the folder holds, and whether ``memory.scope = setting``
    reads and writes it here when that is not what its name says (``This project (not used:
    memory.scope = "global")``, ``Global (used here: memory.scope = "global")``)."""
    shown = f'memory.scope = "{setting}"' if setting else "memory.scope is not text"
    if current:
        return "This project" if used else f"This project (not used: {shown})"
    if scope == GLOBAL_SCOPE:
        return f"Global (used here: {shown})" if used else "Global"
    return scope.removeprefix("project:")


def _read(folder: Path, name: str) -> dict[str, object] | None:
    """One file of a memory folder, redacted (None when absent); never follows a link out of it."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    try:
        file = read_confined_file(folder, name, skill="memory", max_bytes=MAX_FILE_BYTES)
    except NotFoundError:
        return None
    except PathEscapeError as exc:
        return {"error": _refusal(folder, name, exc), "code": exc.code}
    except SkillshelfError as exc:
        return {"error": exc.message, "code": exc.code}
    from skillshelf.memory.redact import redact_secrets  # only with a file to show: its import costs

    text = redact_secrets(file.text or "")
    return {
        "path": str(folder / name),
        "text": text,
        "tokens": approx_tokens(text),
        "truncated": file.truncated,
    }


def _refusal(folder: Path, name: str, exc: PathEscapeError) -> str:
    """Why a memory file is not shown, in the memory folder's words."""
    inside = os.path.realpath(folder)
    real = os.path.realpath(folder / name)
    if os.path.commonpath([inside, real]) != inside:
        return f"{name} is a symlink that leads out of the memory folder (to {real}); not shown"
    try:
        links = os.stat(folder / name).st_nlink
    except OSError:
        links = 1
    if links > 1:
        return f"{name} is hard-linked: its content may belong to a file outside the memory folder; not shown"
    return exc.message


def _memory(row: OutputRow, source: str) -> dict[str, object]:
    raw = row.raw_memory
    return {
        "session_id": row.session_id,
        "source": source,
        "transcript": row.path,
        "cwd": row.cwd,
        "git_branch": row.git_branch,
        "updated_ms": row.source_updated_at_ms,
        "citations": row.usage_count,
        "last_cited_ms": row.last_usage_ms,
        "selected": row.selected_for_phase2,
        "forgotten": not raw and not row.rollout_summary,
        "summary": row.rollout_summary[:MAX_MEMORY_CHARS],
        "memory": raw[:MAX_MEMORY_CHARS],
        "memory_cut": len(raw) > MAX_MEMORY_CHARS,
    }


def forget_memory(env: Env, session_id: object) -> dict[str, object]:
    """Forget one session's memory, as ``skillshelf memory forget SESSION_ID`` does.

    Raises:
        UsageError: ``session_id`` is not a plausible session id.
        NotFoundError: the memory database does not know it.
    """
    if (
        not isinstance(session_id, str)
        or not session_id.strip()
        or len(session_id) > MAX_SESSION_ID
        or not session_id.isprintable()
    ):
        raise UsageError(
            "session_id must be a session id string", hint="pick a memory on the page", code="SV400"
        )
    if not default_db_path(env.dirs.data).is_file():
        raise NotFoundError(
            "there is no memory database yet", code="ME404", hint="run `skillshelf memory run`"
        )
    scope = forget_session(env, session_id)
    return {
        "forgotten": session_id,
        "scope": scope or None,
        "next": "run `skillshelf memory run --phase 2` to update the memory folder",
    }
