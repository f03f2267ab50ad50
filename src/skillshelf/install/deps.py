"""``skillshelf deps``: the MCP servers skills declare, and whether they are configured.

Skills declare MCP servers in ``agents/openai.yaml`` (``dependencies.tools`` with
``type: mcp``; transport ``streamable_http`` (default, needs ``url``) or ``stdio`` (needs
``command``)). That file is Codex's, and a server counts as configured when Codex's
``$CODEX_HOME/config.toml``, where Codex reads its MCP servers, has an ``[mcp_servers.*]`` entry
with the same endpoint (Codex's rule: same transport and URL / command line), whatever its name.
``--write`` adds the missing ones there with tomlkit, keeping the file's comments and layout (and,
like the config edits, checking that no other key of the file changes); an inline
``mcp_servers = { ... }`` table gets them as entries, since no ``[mcp_servers.NAME]`` table may
follow it. A file no edit leaves otherwise unchanged is not written (``CF112``), and the hint
gives the text to add by hand, in the form the file takes. No agent reads an
``[mcp_servers]`` table of skillshelf's own config: a server found only there is still missing,
and says so. Claude Code keeps its servers in its own files, which ``claude mcp add`` edits: each
server's report carries that command line (``claude_add``).

A server declared by a skill of a project the user has not trusted is a command from someone
else's repository: ``--write`` leaves it out (``IS505``) unless ``allow_untrusted`` is set,
and the report marks it ``trusted: false``.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
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
from skillshelf.errors import ConfigError, SkillNotFoundError
from skillshelf.install.deps_config import (
    ConfiguredServer,
    command_line,
    read_config,
    read_mcp_servers,
)
from skillshelf.skills.load import close_matches
from skillshelf.skills.model import Skill

__all__ = [
    "ConfiguredServer",
    "DepsReport",
    "McpDependency",
    "claude_add_command",
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
            return f"stdio|{command_line(self.command)}" if self.command and self.command.strip() else None
        if self.transport == "streamable_http":
            return f"streamable_http|{self.url.strip()}" if self.url and self.url.strip() else None
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class DepStatus:
    """A declared server and what the configs say about it."""

    dependency: McpDependency
    status: Status
    configured_as: tuple[str, ...] = ()  # "codex:NAME"
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
            "claude_add": claude_add_command(dep),
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


def claude_add_command(dep: McpDependency) -> str | None:
    """The ``claude mcp add`` line that configures ``dep`` for Claude Code at user scope (its
    ``~/.claude.json``); None for a server declared without a usable endpoint."""
    if dep.key is None:
        return None
    if dep.transport == "stdio":
        parts = shlex.split(dep.command or "") if dep.command else []
        return shlex.join(["claude", "mcp", "add", "--scope", "user", dep.name, "--", *parts])
    return shlex.join(
        ["claude", "mcp", "add", "--transport", "http", "--scope", "user", dep.name, (dep.url or "").strip()]
    )


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


def _status(dep: McpDependency, servers: Sequence[ConfiguredServer]) -> DepStatus:
    if dep.transport not in ("stdio", "streamable_http"):
        note = f"transport {dep.transport!r} is not supported (Codex takes streamable_http or stdio)"
        return DepStatus(dependency=dep, status="invalid", note=note)
    if dep.key is None:
        need = "a command (stdio)" if dep.transport == "stdio" else "a url (streamable_http)"
        return DepStatus(
            dependency=dep, status="invalid", note=f"declared without {need}; ask the skill's author"
        )
    same = tuple(f"{s.where}:{s.name}" for s in servers if s.key == dep.key and s.where == "codex")
    if same:
        return DepStatus(dependency=dep, status="configured", configured_as=same)
    clash = tuple(f"{s.where}:{s.name}" for s in servers if s.name == dep.name and s.where == "codex")
    if clash:
        return DepStatus(
            dependency=dep,
            status="conflict",
            configured_as=clash,
            note="a server of this name is configured with another endpoint; --write leaves it alone",
        )
    ours = [s for s in servers if s.where == "skillshelf" and s.key == dep.key]
    if ours:
        return DepStatus(dependency=dep, status="missing", note=_only_ours_note(ours[0]))
    return DepStatus(dependency=dep, status="missing")


def _only_ours_note(server: ConfiguredServer) -> str:
    return (
        f"listed as [mcp_servers.{server.name}] in {server.file}, which no agent reads; "
        "--write adds it to Codex's config.toml"
    )


def deps_report(
    skills: Iterable[Skill], *, user_config: Path, codex_config: Path, name: str | None = None
) -> DepsReport:
    """Declared MCP servers of ``skills`` (only skill or server ``name`` if given) and their status
    in Codex's config (``codex_config``, the file ``--write`` edits); ``user_config`` (skillshelf's)
    only names where a server no agent reads is listed. A ``name`` no skill or server has raises
    ``SK404`` with the closest names, as ``load`` does."""
    skills = tuple(skills)
    known = [*dict.fromkeys(n for s in skills for n in (s.name, *(d.name for d in declared_dependencies(s))))]
    if name is not None and name not in known:
        raise SkillNotFoundError(name, available=tuple(known), close=close_matches(name, known))
    ours, diags_ours = read_mcp_servers(user_config, "skillshelf")
    codex, diags_codex = read_mcp_servers(codex_config, "codex")
    servers = (*ours, *codex)
    deps = [d for s in skills for d in declared_dependencies(s) if name is None or name in (s.name, d.name)]
    entries = tuple(_status(d, servers) for d in sorted(deps, key=lambda d: (d.skill, d.name)))
    return DepsReport(entries=entries, config_file=codex_config, diagnostics=(*diags_ours, *diags_codex))


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
    if isinstance(servers, tomlkit.items.InlineTable):  # `mcp_servers = { ... }`: no table fits in it
        for name in added:
            entry = tomlkit.inline_table()
            entry.update(_server_values(added[name]))
            servers[name] = entry
        return str(tomlkit.dumps(doc))
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


def _inline_entries(added: Mapping[str, McpDependency]) -> str:
    """The servers as entries of an inline ``mcp_servers = { ... }`` table."""
    import tomlkit

    def entry(dep: McpDependency) -> str:
        values = ", ".join(f"{key} = {tomlkit.item(v).as_string()}" for key, v in _server_values(dep).items())
        return f"{{ {values} }}"

    return ", ".join(f"{toml_string(name)} = {entry(dep)}" for name, dep in added.items())


def _by_hand(original: str | None, added: Mapping[str, McpDependency]) -> str:
    """What to add by hand when no edit is faithful: the ``[mcp_servers.NAME]`` tables, or, when
    those cannot follow the file's ``mcp_servers`` (an inline table: a table header after it would
    define it again), the entries to write inside its braces, or the tables once it is made tables."""
    block = _appended_block(added)
    try:
        tomllib.loads(appended(original, block))
    except tomllib.TOMLDecodeError:
        return (
            "mcp_servers is an inline table (`mcp_servers = { ... }`), so a [mcp_servers.NAME] table "
            "cannot follow it; write these entries inside its braces, after its last entry and a comma "
            f"(none when it is empty):\n  {_inline_entries(added)}\n"
            "or take the `mcp_servers = { ... }` line out, write each of its entries as a "
            f"[mcp_servers.NAME] table at the end of the file, and add after them:\n{block}"
        )
    return block


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
    """Add every missing server to ``report.config_file`` (Codex's config.toml), keeping its
    comments; return the new report.

    A file that is not valid TOML is never touched (:class:`ConfigError` with file and line);
    servers of untrusted projects' skills are left out unless ``allow_untrusted``. The file is
    read again under its folder's lock (:func:`~skillshelf.config.edit_text.editing`), so a
    server another command added meanwhile is kept and not added twice.

    Raises:
        ConfigError: the file's folder (Codex's home) does not exist (``IS506``): Codex is not set
            up here, and making its folder would tell other commands it is; nothing was written.
    """
    folder = report.config_file.parent
    if not any(e.dependency.trusted or allow_untrusted for e in report.missing):
        firsts = {e.dependency.key: e.dependency for e in reversed(report.missing) if e.dependency.key}
        skipped = tuple(_untrusted_skipped(dep) for dep in reversed(firsts.values()))
        return replace(report, diagnostics=(*report.diagnostics, *skipped), written=())
    if not folder.is_dir():
        raise ConfigError(
            f"Codex's folder {folder} does not exist, so Codex is not set up here; nothing was written",
            path=report.config_file,
            hint="run Codex once (or set CODEX_HOME to its folder) and run again; for Claude Code, "
            "`skillshelf deps` shows the `claude mcp add` line of each server",
            code="IS506",
        )
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
        write_config(path, first_faithful(path, candidates, original, _by_hand(original, added)))
    by_key = {d.key: name for name, d in added.items()}
    statuses = tuple(
        DepStatus(
            dependency=e.dependency,
            status="configured",
            configured_as=(f"codex:{by_key[e.dependency.key]}",),
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
