"""The one error tree of skillshelf.

Problems *in content* (a broken SKILL.md, an unknown config key) are never raised: they are
:class:`~skillshelf.diagnostics.Diagnostic` values returned beside the result. Exceptions are
for misuse of the API or CLI and for I/O that cannot go on::

    SkillshelfError                 code, message, hint; exit_code 1
     ├── UsageError                 bad arguments or option values (exit 2)
     ├── NotFoundError              a named thing does not exist
     │    └── SkillNotFoundError    unknown skill name (carries close matches)
     │         ├── SkillDisabledError  the skill exists, but config disables it
     │         └── SkillSkippedError   the skill exists, but discovery skipped it (its finding)
     ├── RequiredSkillError         a `required` skill is missing or invalid
     ├── PathEscapeError            a path leaves the folder it is confined to
     ├── ConfigError                a config file that cannot be used (file, line)
     ├── InstallError               installing / updating / removing a skill failed
     │    ├── SkillValidationError  the skill does not validate (carries the findings)
     │    └── NameTakenError        a skill folder of that name is already there
     ├── StoreError                 the memory state database failed
     │    └── OtherDatabaseError    a memory folder holds another database's consolidation
     ├── ModelCallError             a model API call failed
     └── FileAccessError            reading or writing a file failed

The two install errors live in :mod:`skillshelf.install`. Every error has a stable ``code`` and
a ``hint`` that says what to do about it.

Beside the tree, :class:`StdoutFailed` carries a failed write to stdout up to the command line's
``main``, which says it (``SS007``, or exit 0 for a closed pipe).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

__all__ = [
    "ConfigError",
    "StdoutFailed",
    "FileAccessError",
    "InstallError",
    "ModelCallError",
    "NotFoundError",
    "OtherDatabaseError",
    "PathEscapeError",
    "RequiredSkillError",
    "SkillDisabledError",
    "SkillNotFoundError",
    "SkillSkippedError",
    "SkillshelfError",
    "StoreError",
    "UsageError",
    "reason",
]


class SkillshelfError(Exception):
    """Base of every error skillshelf raises on purpose."""

    exit_code: ClassVar[int] = 1
    default_code: ClassVar[str] = "SS000"

    def __init__(self, message: str, *, hint: str = "", code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code or self.default_code

    def __str__(self) -> str:
        return f"{self.message}\n  fix: {self.hint}" if self.hint else self.message

    def one_line(self) -> str:
        """``CODE: message (fix: hint)``, for a list of failures where each keeps its own fix."""
        return f"{self.code}: {self.message}" + (f" (fix: {self.hint})" if self.hint else "")

    def to_dict(self) -> dict[str, object]:
        return {"error": type(self).__name__, "code": self.code, "message": self.message, "fix": self.hint}


class UsageError(SkillshelfError):
    """The caller passed arguments that cannot work."""

    exit_code = 2
    default_code = "SS002"


class NotFoundError(SkillshelfError):
    """A named thing (file, folder, record) does not exist."""

    default_code = "SS404"


class SkillNotFoundError(NotFoundError):
    """No enabled skill has the requested name."""

    default_code = "SK404"

    def __init__(
        self,
        name: str,
        *,
        available: Sequence[str],
        close: Sequence[str] = (),
        where_listed: str = "run `skillshelf list`",
    ) -> None:
        """``where_listed``: how the reader sees the skills there are (a model: a tool to call)."""
        self.name = name
        self.available = tuple(available)
        self.close = tuple(close)
        hint = f"did you mean {', '.join(repr(c) for c in self.close)}?" if self.close else ""
        if not hint:
            hint = f"{where_listed} to see the skills that are available here"
        super().__init__(f"no skill named {name!r}", hint=hint)


class SkillDisabledError(SkillNotFoundError):
    """The requested skill exists but a config entry disables it; ``disabled_by`` says where
    (``file:line``) and the hint how to enable it."""

    default_code = "SK405"

    def __init__(self, name: str, *, disabled_by: str, hint: str) -> None:
        self.name = name
        self.available: tuple[str, ...] = ()
        self.close: tuple[str, ...] = ()
        self.disabled_by = disabled_by
        NotFoundError.__init__(self, f"skill {name!r} is disabled by {disabled_by}", hint=hint)


class SkillSkippedError(SkillNotFoundError):
    """A ``SKILL.md`` answers to the requested name, but discovery skipped it (broken YAML, no
    name): ``message`` names the file and its first problem, ``hint`` how to mend it."""

    default_code = "SK407"

    def __init__(self, name: str, *, message: str, hint: str) -> None:
        self.name = name
        self.available: tuple[str, ...] = ()
        self.close: tuple[str, ...] = ()
        NotFoundError.__init__(self, message, hint=hint)


class RequiredSkillError(SkillshelfError):
    """A skill configured with mode `required` is missing or does not load."""

    default_code = "SK410"


class PathEscapeError(SkillshelfError):
    """A path would leave the folder it must stay in (``..``, absolute, symlink, device)."""

    default_code = "SS403"

    def __init__(self, message: str, *, path: str | Path, hint: str = "") -> None:
        self.path = str(path)
        super().__init__(message, hint=hint or "use a path relative to the skill folder that stays inside it")


class ConfigError(SkillshelfError):
    """A configuration file or value cannot be used at all."""

    default_code = "CF001"

    def __init__(
        self,
        message: str,
        *,
        hint: str = "",
        path: Path | None = None,
        line: int | None = None,
        code: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}: " if path and line else (f"{path}: " if path else "")
        super().__init__(f"{where}{message}", hint=hint, code=code)


class InstallError(SkillshelfError):
    """Installing, updating or removing a skill failed; nothing was left half done."""

    default_code = "IS001"


class StoreError(SkillshelfError):
    """The memory state store failed (database unreachable, migration failed...)."""

    default_code = "ME001"


class OtherDatabaseError(StoreError):
    """A memory folder holds what another memory database consolidated: a run against this one
    refuses to rewrite it (the other database's memories would vanish from the folder)."""

    default_code = "ME053"


class ModelCallError(SkillshelfError):
    """A call to a model API failed after retries."""

    default_code = "MD001"


class FileAccessError(SkillshelfError):
    """A file or folder could not be read or written."""

    default_code = "SS005"


def reason(exc: BaseException) -> str:
    """What went wrong, in words for a message that names the file itself: an ``OSError``'s
    text without its errno and path, "nested too deeply" for a parser's ``RecursionError``,
    else the exception's own text."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


class StdoutFailed(Exception):
    """Writing to stdout failed (``error``). No ``OSError``, so that it passes click's and rich's
    own handling of a closed pipe (both exit 1) and every ``except OSError`` on its way up to the
    command line's ``main``, which exits 0 for a closed pipe and says ``SS007`` for the rest."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error
