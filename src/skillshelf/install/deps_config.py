"""The config files ``deps`` reads: their ``[mcp_servers]`` (a broken file is a finding), and
the file ``deps --write`` edits, read with errors that say nothing was written."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import ConfigError, FileAccessError, reason
from skillshelf.fileio import read_toml_text

__all__ = ["ConfiguredServer", "command_line", "error_line", "read_config", "read_mcp_servers"]


def command_line(command: str | None) -> str:
    """``command`` as Codex compares command lines: split as a shell would, joined again."""
    try:
        return shlex.join(shlex.split(command or ""))
    except ValueError:
        return (command or "").strip()


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfiguredServer:
    """One ``[mcp_servers.NAME]`` entry of a config file."""

    name: str
    where: Literal["skillshelf", "codex"]
    file: Path
    url: str | None = None
    command: str | None = None
    args: tuple[str, ...] = ()

    @property
    def key(self) -> str | None:
        if self.command:
            line = shlex.join([self.command, *self.args]) if self.args else self.command
            return f"stdio|{command_line(line)}"
        return f"streamable_http|{self.url.strip()}" if self.url else None


def _server_from(
    name: str, raw: object, where: Literal["skillshelf", "codex"], file: Path
) -> ConfiguredServer | None:
    if not isinstance(raw, Mapping):
        return None
    url, command, args = raw.get("url"), raw.get("command"), raw.get("args", ())
    arg_list = tuple(str(a) for a in args) if isinstance(args, list | tuple) else ()
    return ConfiguredServer(
        name=name,
        where=where,
        file=file,
        url=url if isinstance(url, str) else None,
        command=command if isinstance(command, str) else None,
        args=arg_list,
    )


def read_mcp_servers(
    path: Path, where: Literal["skillshelf", "codex"]
) -> tuple[tuple[ConfiguredServer, ...], tuple[Diagnostic, ...]]:
    """The ``[mcp_servers]`` of one TOML file; a broken file is a diagnostic, not an exception."""
    try:
        data = tomllib.loads(read_toml_text(path))
    except FileNotFoundError:
        return (), ()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        diag = Diagnostic(
            code="IS501",
            severity=Severity.WARNING,
            message=f"cannot read MCP servers from this file: {reason(exc)}",
            fix="fix the TOML syntax at the line shown; until then its [mcp_servers] are not counted",
            path=path,
            line=error_line(exc),
        )
        return (), (diag,)
    table = data.get("mcp_servers", {})
    if not isinstance(table, Mapping):
        diag = Diagnostic(
            code="IS502",
            severity=Severity.WARNING,
            message="mcp_servers is not a table",
            fix="write each server as [mcp_servers.NAME] with url = ... or command = ...",
            path=path,
            field="mcp_servers",
        )
        return (), (diag,)
    servers = (_server_from(str(name), raw, where, path) for name, raw in table.items())
    return tuple(s for s in servers if s is not None), ()


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
