"""The config file ``deps --write`` edits, read with errors that say nothing was written."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from skillshelf.errors import ConfigError, FileAccessError, reason
from skillshelf.fileio import read_toml_text

__all__ = ["error_line", "read_config"]


def read_config(path: Path) -> tuple[str | None, dict[str, object]]:
    """The config's text (None when there is no file) and data; errors say nothing was written."""
    try:
        text = read_toml_text(path) if path.exists() else None
        return text, tomllib.loads(text or "")
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(
            f"not valid TOML: {reason(exc)}",
            path=path,
            line=error_line(exc),
            hint="fix the file first; nothing was written",
            code="IS503",
        ) from exc
    except UnicodeDecodeError as exc:
        raise FileAccessError(
            f"{path}: cannot read: not valid UTF-8 ({exc.reason} at byte {exc.start})",
            hint="re-save the file as UTF-8 (TOML files must be UTF-8); nothing was written",
            code="IS504",
        ) from exc
    except OSError as exc:
        raise FileAccessError(
            f"{path}: cannot read: {exc.strerror or exc}",
            hint="check the file's permissions; nothing was written",
            code="IS504",
        ) from exc


def error_line(exc: Exception) -> int | None:
    found = re.search(r"at line (\d+)", str(exc))
    return int(found.group(1)) if found else getattr(exc, "lineno", None)
