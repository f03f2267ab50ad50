"""Problems in content, as data: every finding has a code, a place and a fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

__all__ = ["Diagnostic", "Severity", "diagnostic", "has_errors", "sort_diagnostics"]


class Severity(StrEnum):
    """How bad a finding is. ``error`` means the thing was not loaded / not valid."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One finding about one file.

    ``code`` is stable (``SK101``...): tests and programs match on it, never on the message.
    ``fix`` says what to do, in one sentence.
    """

    code: str
    severity: Severity
    message: str
    fix: str
    path: Path | None = None
    line: int | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path) if self.path is not None else None,
            "line": self.line,
            "field": self.field,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "fix": self.fix,
        }

    def format(self) -> str:
        where = "skillshelf" if self.path is None else str(self.path)  # no file: the program's own
        if self.line is not None and self.path is not None:
            where += f":{self.line}"
        return f"{where}: {self.severity.value} {self.code}: {self.message}\n  fix: {self.fix}"


def diagnostic(
    code: str,
    severity: Severity,
    message: str,
    fix: str,
    path: Path | str | None = None,
    line: int | None = None,
    field: str | None = None,
) -> Diagnostic:
    """The short way to write a :class:`Diagnostic`: what (code, severity, message, fix), then where."""
    return Diagnostic(
        code=code,
        severity=severity,
        message=message,
        fix=fix,
        path=Path(path) if isinstance(path, str) else path,
        line=line,
        field=field,
    )


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Stable order for output: by path, then line, then severity, then code."""
    return sorted(
        diagnostics,
        key=lambda d: (str(d.path or ""), d.line or 0, d.severity.rank, d.code),
    )
