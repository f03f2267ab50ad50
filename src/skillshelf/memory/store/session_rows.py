"""How a row of the ``sessions`` table reads: its columns in order, and the :class:`SessionRow`."""

from __future__ import annotations

from typing import Any

from skillshelf.memory.store.records import SessionRow

__all__ = ["SESSION_COLUMNS", "session_params", "session_row"]

SESSION_COLUMNS = (
    "id, source, path, cwd, project, git_branch, origin, subagent, first_user_message, updated_at_ms, "
    "file_size, file_mtime_ns, memory_mode"
)


def session_row(r: tuple[Any, ...]) -> SessionRow:
    return SessionRow(
        id=r[0],
        source=r[1],
        path=r[2],
        cwd=r[3],
        project=r[4],
        git_branch=r[5],
        origin=r[6],
        subagent=bool(r[7]),
        first_user_message=r[8],
        updated_at_ms=int(r[9]),
        file_size=int(r[10]),
        file_mtime_ns=int(r[11]),
        memory_mode=r[12],
    )


def session_params(r: SessionRow, registered_at_ms: int) -> tuple[Any, ...]:
    """The values of :data:`SESSION_COLUMNS` and ``registered_at_ms`` for ``r``, in order."""
    return (
        r.id,
        r.source,
        r.path,
        r.cwd,
        r.project,
        r.git_branch,
        r.origin,
        int(r.subagent),
        r.first_user_message[:2000],
        r.updated_at_ms,
        r.file_size,
        r.file_mtime_ns,
        r.memory_mode,
        registered_at_ms,
    )
