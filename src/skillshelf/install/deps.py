"""``skillshelf deps``: the MCP servers skills declare, and whether they are configured.

Skills declare MCP servers in ``agents/openai.yaml`` (``dependencies.tools`` with
``type: mcp``; transport ``streamable_http`` (default, needs ``url``) or ``stdio`` (needs
``command``)). A server counts as configured when skillshelf's user config or Codex's
``$CODEX_HOME/config.toml`` has an ``[mcp_servers.*]`` entry with the same endpoint (Codex's
rule: same transport and URL / command line), whatever its name. ``--write`` adds the missing
ones to skillshelf's user config with tomlkit, keeping the file's comments and layout (and,
like the config edits, checking that no other key of the file changes).

A server declared by a skill of a project the user has not trusted is a command from someone
else's repository: ``--write`` leaves it out (``IS505``) unless ``allow_untrusted`` is set,
and the report marks it ``trusted: false``.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.config.edit_text import (
    appended,
    editing,
    first_faithful,
    toml_string,
    tomlkit_document,
    write_config,
)
from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.errors import ConfigError, SkillNotFoundError, reason
from skillshelf.fileio import read_toml_text
from skillshelf.install.deps_config import error_line, read_config
from skillshelf.skills.load import close_matches
from skillshelf.skills.model import Skill

__all__ = [
    "ConfiguredServer",
    "DepsReport",
    "McpDependency",
    "deps_report",
    "read_mcp_servers",
    "write_missing",
]

Status = Literal["configured", "missing", "conflict", "invalid"]


@dataclass(frozen=True, slots=True, kw_only=True)
class McpDependency:
    """One MCP server a skill needs, as declared."""

    skill: str
    skill_path: Path
    name: str  # the dependency's ``value``: the server name Codex would give it
    transport: str
    url: str | None = None
    command: str | None = None
    description: str | None = None
    trusted: bool = True  # False: the skill belongs to a project the user has not trusted

    @property
    def key(self) -> str | None:
        """Codex's canonical endpoint: ``transport|url`` or ``transport|command line``."""
        if self.transport == "stdio":
            return f"stdio|{_command_line(self.command)}" if self.command and self.command.strip() else None
        if self.transport == "streamable_http":
            return f"streamable_http|{self.url.strip()}" if self.url and self.url.strip() else None
        return None


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
            return f"stdio|{_command_line(line)}"
        return f"streamable_http|{self.url.strip()}" if self.url else None


@dataclass(frozen=True, slots=True, kw_only=True)
class DepStatus:
    """A declared server and what the configs say about it."""

    dependency: McpDependency
    status: Status
    configured_as: tuple[str, ...] = ()  # "codex:NAME", "skillshelf:NAME"
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        dep = self.dependency
        return {
            "skill": dep.skill,
            "skill_path": str(dep.skill_path),
            "server": dep.name,
            "transport": dep.transport,
            "url": dep.url,
            "command": dep.command,
            "description": dep.description,
            "trusted": dep.trusted,
            "status": self.status,
            "configured_as": list(self.configured_as),
            "note": self.note,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class DepsReport:
    """Every declared MCP server with its status; ``written`` after ``--write``."""

    entries: tuple[DepStatus, ...]
    config_file: Path
    diagnostics: tuple[Diagnostic, ...] = ()
    written: tuple[str, ...] = ()

    @property
    def missing(self) -> tuple[DepStatus, ...]:
        return tuple(e for e in self.entries if e.status == "missing")

    def to_dict(self) -> dict[str, object]:
        return {
            "config_file": str(self.config_file),
            "servers": [e.to_dict() for e in self.entries],
            "missing": sorted({e.dependency.name for e in self.missing}),
            "written": list(self.written),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def _command_line(command: str | None) -> str:
    try:
        return shlex.join(shlex.split(command or ""))
    except ValueError:
        return (command or "").strip()


def declared_dependencies(skill: Skill) -> tuple[McpDependency, ...]:
    """The ``type: mcp`` tool dependencies of ``skill``."""
    out = []
    for tool in skill.dependencies:
        if tool.type.strip().lower() != "mcp":
            continue
        transport = (tool.transport or "streamable_http").strip().lower()
        out.append(
            McpDependency(
                skill=skill.name,
                skill_path=skill.path,
                name=tool.value.strip(),
                transport=transport,
                url=tool.url,
                command=tool.command,
                description=tool.description,
                trusted=skill.trusted,
            )
        )
    return tuple(out)


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


def _status(dep: McpDependency, servers: Sequence[ConfiguredServer]) -> DepStatus:
    if dep.transport not in ("stdio", "streamable_http"):
        note = f"transport {dep.transport!r} is not supported (Codex takes streamable_http or stdio)"
        return DepStatus(dependency=dep, status="invalid", note=note)
    if dep.key is None:
        need = "a command (stdio)" if dep.transport == "stdio" else "a url (streamable_http)"
        return DepStatus(
            dependency=dep, status="invalid", note=f"declared without {need}; ask the skill's author"
        )
    same = tuple(f"{s.where}:{s.name}" for s in servers if s.key == dep.key)
    if same:
        return DepStatus(dependency=dep, status="configured", configured_as=same)
    clash = tuple(f"{s.where}:{s.name}" for s in servers if s.name == dep.name)
    if clash:
        return DepStatus(
            dependency=dep,
            status="conflict",
            configured_as=clash,
            note="a server of this name is configured with another endpoint; --write leaves it alone",
        )
    return DepStatus(dependency=dep, status="missing")


def deps_report(
    skills: Iterable[Skill], *, user_config: Path, codex_config: Path, name: str | None = None
) -> DepsReport:
    """Declared MCP servers of ``skills`` (only skill or server ``name`` if given) and their status;
    a ``name`` no skill or server has raises ``SK404`` with the closest names, as ``load`` does."""
    skills = tuple(skills)
    known = [*dict.fromkeys(n for s in skills for n in (s.name, *(d.name for d in declared_dependencies(s))))]
    if name is not None and name not in known:
        raise SkillNotFoundError(name, available=tuple(known), close=close_matches(name, known))
    ours, diags_ours = read_mcp_servers(user_config, "skillshelf")
    codex, diags_codex = read_mcp_servers(codex_config, "codex")
    servers = (*ours, *codex)
    deps = [d for s in skills for d in declared_dependencies(s) if name is None or name in (s.name, d.name)]
    entries = tuple(_status(d, servers) for d in sorted(deps, key=lambda d: (d.skill, d.name)))
    return DepsReport(entries=entries, config_file=user_config, diagnostics=(*diags_ours, *diags_codex))


def _server_values(dep: McpDependency) -> dict[str, object]:
    if dep.transport == "stdio":
        parts = shlex.split(dep.command or "")
        return {"command": parts[0], "args": parts[1:]} if parts[1:] else {"command": parts[0]}
    return {"url": dep.url or ""}


def _tomlkit_added(doc: object, added: Mapping[str, McpDependency]) -> str:
    """The servers added through tomlkit (comments and layout kept)."""
    import tomlkit

    assert isinstance(doc, tomlkit.TOMLDocument)
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc.add("mcp_servers", servers)
    for name, dep in added.items():
        table = tomlkit.table()
        table.comment(f"added by `skillshelf deps --write` for skill {dep.skill}")
        for key, value in _server_values(dep).items():
            table.add(key, value)
        servers[name] = table
    return str(tomlkit.dumps(doc))


def _appended_block(added: Mapping[str, McpDependency]) -> str:
    import tomlkit

    blocks = []
    for name, dep in added.items():
        lines = [
            f"[mcp_servers.{toml_string(name)}] # added by `skillshelf deps --write` for skill {dep.skill}"
        ]
        lines += [f"{key} = {tomlkit.item(value).as_string()}" for key, value in _server_values(dep).items()]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _untrusted_skipped(dep: McpDependency) -> Diagnostic:
    return Diagnostic(
        code="IS505",
        severity=Severity.WARNING,
        message=f"server {dep.name!r} of skill {dep.skill!r} comes from a project you have not trusted; "
        + (
            f"not written (it would run: {dep.command})"
            if dep.command
            else f"not written (it would connect to: {dep.url})"
        ),
        fix="read the command, then `skillshelf trust` the project or pass --allow-untrusted to add it",
        path=dep.skill_path,
    )


def write_missing(report: DepsReport, *, allow_untrusted: bool = False) -> DepsReport:
    """Add every missing server to ``report.config_file``, keeping its comments; return the new report.

    A file that is not valid TOML is never touched (:class:`ConfigError` with file and line);
    servers of untrusted projects' skills are left out unless ``allow_untrusted``. The file is
    read again under its folder's lock (:func:`~skillshelf.config.edit_text.editing`), so a
    server another command added meanwhile is kept and not added twice.
    """
    with editing(report.config_file):
        return _write_missing(report, allow_untrusted)


def _write_missing(report: DepsReport, allow_untrusted: bool) -> DepsReport:
    path = report.config_file
    original, data = read_config(path)
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, Mapping):
        raise ConfigError(
            "mcp_servers is not a table",
            path=path,
            hint="write servers as [mcp_servers.NAME]; nothing was written",
            code="IS502",
        )
    added: dict[str, McpDependency] = {}  # server name -> what it runs
    skipped: list[Diagnostic] = []
    for entry in report.missing:
        dep = entry.dependency
        keys = {d.key for d in added.values()}
        if dep.key is None or dep.key in keys or dep.name in servers or dep.name in added:
            continue  # like Codex: one server per name and per endpoint
        if not dep.trusted and not allow_untrusted:
            skipped.append(_untrusted_skipped(dep))
            continue
        added[dep.name] = dep
    if added:
        expected = {**data, "mcp_servers": {**servers, **{n: _server_values(d) for n, d in added.items()}}}
        doc = tomlkit_document(original)
        candidates = [] if doc is None else [(lambda: _tomlkit_added(doc, added), expected)]
        candidates.append((lambda: appended(original, _appended_block(added)), expected))
        write_config(path, first_faithful(path, candidates, original, _appended_block(added)))
    by_key = {d.key: name for name, d in added.items()}
    statuses = tuple(
        DepStatus(
            dependency=e.dependency,
            status="configured",
            configured_as=(f"skillshelf:{by_key[e.dependency.key]}",),
        )
        if e.status == "missing" and e.dependency.key in by_key
        else e
        for e in report.entries
    )
    return DepsReport(
        entries=statuses,
        config_file=path,
        diagnostics=(*report.diagnostics, *skipped),
        written=tuple(added),
    )
