"""Registering transcripts: each new or changed transcript file read into the store as one
session row (its memory project told by :mod:`skillshelf.memory.projects`), the files that cannot
be used counted and reported."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import SkillshelfError, reason
from skillshelf.memory.projects import gone_folder_projects, session_project
from skillshelf.memory.redact import redact_secrets
from skillshelf.memory.run_report import Progress, RunReport
from skillshelf.memory.store import SessionRow, Store
from skillshelf.memory.transcripts import find_transcripts, read_transcript

__all__ = ["register_transcripts"]


def _session_row(
    path: Path, stat: os.stat_result, gone_project: Callable[[str, str, Path], str]
) -> tuple[SessionRow | None, int]:
    session = read_transcript(path)
    if session is None:
        return None, 0
    cwd = session.cwd
    gone = cwd is not None and not cwd.is_dir()
    return SessionRow(
        id=f"{session.id}",
        source=session.source,
        path=str(path),
        cwd=str(cwd or ""),
        project=gone_project(str(path), session.id, cwd) if gone and cwd else session_project(cwd),
        updated_at_ms=stat.st_mtime_ns // 1_000_000,
        # redacted before the cut, which could otherwise leave half a secret no rule knows
        first_user_message=redact_secrets(session.first_user_message[:4000])[:2000],
        git_branch=session.git_branch,
        origin=session.origin,
        subagent=session.subagent,
        file_size=stat.st_size,
        file_mtime_ns=stat.st_mtime_ns,
    ), session.skipped_lines


def _skip_file(report: RunReport, path: Path, code: str, message: str, fix: str) -> None:
    """Count ``path`` as unreadable and say why (a warning: the run goes on with the other files)."""
    report.unreadable.append(str(path))
    report.problems.append(
        Diagnostic(code=code, severity=Severity.WARNING, message=message, fix=fix, path=path)
    )


def register_transcripts(
    store: Store,
    paths: tuple[Path, ...],
    *,
    now_ms: int,
    report: RunReport,
    progress: Progress | None = None,
    gone_project: Callable[[str, str, Path], str] | None = None,
) -> list[str]:
    """Read new or changed transcript files into the store; returns their paths. A session
    whose folder no longer exists is filed by ``gone_project`` (default: :func:`gone_folder_projects`)."""
    files = find_transcripts(paths)
    report.files = len(files)
    known = store.known_files()
    gone_project = gone_project or gone_folder_projects(store, queued={})
    rows: list[SessionRow] = []
    for n, path in enumerate(files, 1):
        try:
            stat = path.stat()
            if known.get(str(path)) == (stat.st_size, stat.st_mtime_ns):
                continue
            row, skipped = _session_row(path, stat, gone_project)
        except OSError as exc:
            _skip_file(
                report,
                path,
                "ME101",
                f"cannot read the transcript: {reason(exc)}",
                "check the file's permissions",
            )
            continue
        except SkillshelfError as exc:
            _skip_file(report, path, exc.code, exc.message.removeprefix(f"{path}: "), exc.hint)
            continue
        except Exception as exc:  # a bug met on one odd file must not stop the others
            _skip_file(
                report,
                path,
                "ME106",
                f"internal error reading the transcript ({type(exc).__name__}: {exc}); skipped",
                "this is a bug in skillshelf; please report it with the file's shape",
            )
            continue
        report.skipped_lines += skipped
        if row is None:
            _skip_file(
                report,
                path,
                "ME104",
                "not a transcript in a format skillshelf reads (no Codex rollout, "
                "Claude Code session or skillshelf transcript line among its first 20 lines); skipped",
                "pass Codex, Claude Code or skillshelf session .jsonl files; other files are left alone",
            )
        else:
            rows.append(row)
        if progress:
            progress("scan", n, len(files))
    report.registered = store.register_sessions(rows, now_ms)
    report.problems += [  # two files of one session: the newer is used; said once for each copy
        Diagnostic(
            code="ME107",
            severity=Severity.WARNING,
            message=f"session {row.id} is also in {kept}, which is newer (or as new and longer): "
            "that copy is used, this one is not (said once for this copy)",
            fix="delete or move the copy not used; each transcript file should hold its own session",
            path=Path(row.path),
        )
        for row, kept in store.new_id_clashes(rows, now_ms)
    ]
    return [str(p) for p in files]
