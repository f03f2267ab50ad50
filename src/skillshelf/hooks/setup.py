"""``skillshelf setup codex|claude``: write (or take out) skillshelf's entries in an agent's
own configuration files, changing nothing else in them.

:func:`plan_setup` is pure over the files' current text: it returns the new text of every
file it would touch (:class:`FileChange`, with a unified diff) and notes for the user;
:func:`apply_setup` writes them (atomically, keeping each file's permissions) and keeps a
small record in skillshelf's state folder of what setup created (files, folders, JSON tables),
so that ``--remove`` gives back the files exactly as they were, byte for byte, or deletes the
ones setup made. Running setup twice changes nothing the second time.

For Codex: the hooks go to ``hooks.json`` beside the config layer, the trust Codex asks for
each hook to ``$CODEX_HOME/config.toml`` (:mod:`.codex`), and ``--mcp`` adds
``[mcp_servers.skillshelf]`` to the layer's ``config.toml``. For Claude Code: the hooks go to
``settings.json``, ``--mcp`` adds ``mcpServers.skillshelf`` to ``.mcp.json`` (project) or
``~/.claude.json`` (user).
"""

from __future__ import annotations

import contextlib
import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillshelf.config.edit_text import EDIT_WAIT
from skillshelf.env import Env
from skillshelf.errors import FileAccessError, reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, folder_lock, read_regular_text
from skillshelf.hooks import jsonfile, tomlblock
from skillshelf.hooks.agents import (
    MCP_NAME,
    Agent,
    AgentFiles,
    SetupScope,
    agent_files,
    hook_specs,
)
from skillshelf.hooks.claude import trust_dialog_accepted
from skillshelf.hooks.codex import codex_config, project_trusted, trust_hash, trust_key

__all__ = ["FileChange", "SetupPlan", "apply_setup", "plan_setup", "record_path"]

_EMPTY_JSON = "{}\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    """One file's text before and after (``None``: the file does not exist / is deleted)."""

    path: Path
    before: str | None
    after: str | None
    what: tuple[str, ...]  # "hooks", "hook trust", "MCP server"
    created: tuple[tuple[str, ...], ...] = ()  # JSON tables the change creates

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change (``/dev/null`` for a created or deleted file)."""
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path) if self.after is not None else "/dev/null",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
        )

    def to_dict(self) -> dict[str, object]:
        action = "create" if self.before is None else ("delete" if self.after is None else "edit")
        return {"path": str(self.path), "action": action, "what": list(self.what), "diff": self.diff()}


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupPlan:
    """Everything one ``setup`` run would change, and what the user should know."""

    agent: Agent
    scope: SetupScope
    remove: bool
    changes: tuple[FileChange, ...]
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> tuple[FileChange, ...]:
        return tuple(c for c in self.changes if c.changed)

    def to_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "scope": self.scope,
            "remove": self.remove,
            "changes": [c.to_dict() for c in self.changed],
            "notes": list(self.notes),
        }


@dataclass(slots=True)
class _Edits:
    """The new text of each file, built up edit by edit."""

    record: Mapping[str, dict[str, object]]
    texts: dict[Path, str | None] = field(default_factory=dict)
    before: dict[Path, str | None] = field(default_factory=dict)
    what: dict[Path, list[str]] = field(default_factory=dict)
    created: dict[Path, list[tuple[str, ...]]] = field(default_factory=dict)

    def text(self, path: Path) -> str | None:
        if path not in self.texts:
            self.before[path] = self.texts[path] = _read(path)
        return self.texts[path]

    def set(self, path: Path, text: str | None, what: str, created: Sequence[tuple[str, ...]] = ()) -> None:
        if text != self.text(path):
            self.what.setdefault(path, []).append(what)
        self.texts[path] = text
        self.created.setdefault(path, []).extend(created)

    def made(self, path: Path) -> tuple[tuple[str, ...], ...] | None:
        """The JSON tables setup created in ``path`` (None: no record of this file)."""
        entry = self.record.get(str(path))
        if entry is None:
            return None
        return _containers(entry)

    def created_file(self, path: Path) -> bool:
        return bool(self.record.get(str(path), {}).get("created_file"))

    def changes(self) -> tuple[FileChange, ...]:
        return tuple(
            FileChange(
                path=p,
                before=self.before[p],
                after=t,
                what=tuple(self.what.get(p, ())),
                created=tuple(self.created.get(p, ())),
            )
            for p, t in self.texts.items()
        )


def _containers(entry: Mapping[str, object]) -> tuple[tuple[str, ...], ...]:
    found = entry.get("containers")
    items = found if isinstance(found, list) else []
    return tuple(tuple(str(k) for k in p) for p in items if isinstance(p, list))


def _read(path: Path) -> str | None:
    try:
        return read_regular_text(path, limit=MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise FileAccessError(
            f"cannot read {path}: {reason(exc)}",
            hint="an agent's settings file must be a regular UTF-8 file; fix or move it, then run again",
            code="HK120",
        ) from exc


def record_path(state_dir: Path) -> Path:
    return state_dir / "setup" / "record.json"


def _load_record(state_dir: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(read_regular_text(record_path(state_dir), limit=MAX_SETTINGS_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def plan_setup(
    env: Env,
    agent: Agent,
    scope: SetupScope,
    *,
    command: list[str],
    state_dir: Path,
    remove: bool = False,
    mcp: bool = False,
) -> SetupPlan:
    """What ``setup`` (or ``setup --remove``) would write; nothing is changed.

    ``command`` starts skillshelf (:func:`~skillshelf.hooks.agents.skillshelf_command`).

    Raises:
        ConfigError: a file to edit is not valid JSON / TOML, or has a part in a shape setup
            cannot add to; nothing is changed then.
        FileAccessError: a file cannot be read.
    """
    files = agent_files(agent, scope, env)
    edits = _Edits(record=_load_record(state_dir))
    _hooks(edits, files, command, remove)
    if files.trust is not None:
        _trust(edits, files)
    if mcp or remove:
        _mcp(edits, files, command, remove)
    return SetupPlan(
        agent=agent,
        scope=scope,
        remove=remove,
        changes=edits.changes(),
        notes=tuple(_notes(env, files, remove)),
    )


def _json_after(edits: _Edits, path: Path, text: str) -> str | None:
    """``None`` (delete) when taking out left an empty document in a file setup created."""
    return None if jsonfile.is_empty_document(text) and edits.created_file(path) else text


def _hooks(edits: _Edits, files: AgentFiles, command: list[str], remove: bool) -> None:
    path = files.hooks
    current = edits.text(path)
    if remove:
        if current is not None:
            after = jsonfile.remove_hooks(current, str(path), created=edits.made(path))
            edits.set(path, _json_after(edits, path, after), "hooks")
        return
    text, created = jsonfile.add_hooks(
        current if current is not None else _EMPTY_JSON, hook_specs(files.agent, command), str(path)
    )
    edits.set(path, text, "hooks", created)


def _trust(edits: _Edits, files: AgentFiles) -> None:
    """Codex: a trust entry for each of our hooks in the hooks file as it will be."""
    assert files.trust is not None
    hooks_text = edits.text(files.hooks)
    prefix = f"{files.hooks}:"
    wanted: dict[tomlblock.TablePath, Mapping[str, object]] = {
        ("hooks", "state", trust_key(files.hooks, h)): {"trusted_hash": trust_hash(h)}
        for h in (jsonfile.our_hooks(hooks_text, str(files.hooks)) if hooks_text else ())
    }
    _toml(
        edits,
        files.trust,
        lambda path: path[:2] == ("hooks", "state") and path[2].startswith(prefix),
        wanted,
        "hook trust",
    )


def _mcp(edits: _Edits, files: AgentFiles, command: list[str], remove: bool) -> None:
    server: dict[str, object] = {"command": command[0], "args": [*command[1:], "serve"]}
    if files.agent == "codex":
        wanted: dict[tomlblock.TablePath, Mapping[str, object]] = (
            {} if remove else {("mcp_servers", MCP_NAME): server}
        )
        _toml(edits, files.mcp, lambda path: path == ("mcp_servers", MCP_NAME), wanted, "MCP server")
        return
    path = files.mcp
    current = edits.text(path)
    if remove:
        if current is not None:
            after = jsonfile.remove_server(current, MCP_NAME, str(path), created=edits.made(path))
            edits.set(path, _json_after(edits, path, after), "MCP server")
        return
    text, created = jsonfile.set_server(
        current if current is not None else _EMPTY_JSON, MCP_NAME, server, str(path)
    )
    edits.set(path, text, "MCP server", created)


def _toml(
    edits: _Edits,
    path: Path,
    ours: Callable[[tomlblock.TablePath], bool],
    wanted: Mapping[tomlblock.TablePath, Mapping[str, object]],
    what: str,
) -> None:
    current = edits.text(path)
    if current is None and not wanted:
        return
    tables = {p: t for p, t in tomlblock.block_tables(current or "").items() if not ours(p)}
    after = tomlblock.with_tables(current or "", {**tables, **wanted}, str(path))
    edits.set(path, None if not after and edits.created_file(path) else after, what)


def _notes(env: Env, files: AgentFiles, remove: bool) -> list[str]:
    if remove:
        return []
    notes: list[str] = []
    if files.agent == "codex" and files.scope == "project":
        trusted = project_trusted(codex_config(env.codex_home / "config.toml"), env.project_root)
        if not trusted:
            notes.append(
                f"Codex does not trust {env.project_root} yet, so it ignores the project's .codex folder "
                "(these hooks included): accept Codex's trust prompt there, or run `codex exec --trust` once"
            )
    if files.agent == "claude" and files.scope == "project" and not trust_dialog_accepted(env):
        notes.append(
            "an interactive Claude Code session runs project hooks once the folder is trusted "
            "(its trust dialog); `claude -p` runs them at once"
        )
    return notes


def apply_setup(plan: SetupPlan, *, state_dir: Path) -> tuple[FileChange, ...]:
    """Write the plan's changes; returns the files that changed.

    One setup at a time writes (the lock of the record's folder), and only over files that
    still hold the text the plan was made from: an agent that saved its settings in between
    keeps its change and nothing is written.

    Raises:
        FileAccessError: a file changed since the plan was made (``HK122``, nothing written),
            another setup kept the lock (``HK123``), or a file could not be written (the ones
            before it are written).
    """
    folder = record_path(state_dir).parent
    held = contextlib.ExitStack()
    try:
        held.enter_context(folder_lock(folder, wait=EDIT_WAIT))
    except OSError as exc:
        raise FileAccessError(
            f"cannot take the setup lock in {folder}: {reason(exc)}",
            hint="wait for the other `skillshelf setup` to end (or stop it), then run again",
            code="HK123",
        ) from exc
    with held:
        for change in plan.changed:
            if _read(change.path) != change.before:
                raise FileAccessError(
                    f"{change.path} changed since setup read it (another program saved it); "
                    "nothing was written",
                    hint="run the same setup command again: it plans from the file as it is now",
                    code="HK122",
                )
        return _apply(plan, state_dir)


def _apply(plan: SetupPlan, state_dir: Path) -> tuple[FileChange, ...]:
    record = _load_record(state_dir)
    emptied: list[Path] = []  # folders setup created for files it now deletes
    for change in plan.changed:
        entry = record.pop(str(change.path), {})
        if change.after is None:
            _delete(change.path)
            emptied += [Path(str(d)) for d in entry.get("created_dirs", []) or []]  # type: ignore[attr-defined]
            continue
        if change.before is None:
            entry = {"created_file": True, "created_dirs": [str(d) for d in _missing_dirs(change.path)]}
        _write(change.path, change.after)
        made = set() if plan.remove else {*_containers(entry), *change.created}
        record[str(change.path)] = {**entry, "containers": [list(p) for p in sorted(made)]}
    for folder in sorted(set(emptied), key=lambda d: len(d.parts), reverse=True):
        try:
            folder.rmdir()  # only when empty: the user may have put things there since
        except OSError:
            continue
    _save_record(state_dir, {k: v for k, v in record.items() if v.get("created_file") or v.get("containers")})
    return plan.changed


def _missing_dirs(path: Path) -> list[Path]:
    missing = []
    for folder in path.parents:
        if folder.exists():
            break
        missing.append(folder)
    return missing


def _write(path: Path, text: str) -> None:
    from skillshelf.config.edit import write_user_file

    write_user_file(path, text)


def _delete(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise FileAccessError(
            f"cannot remove {path}: {exc.strerror or exc}",
            hint="check the folder's permissions",
            code="HK121",
        ) from exc


def _save_record(state_dir: Path, record: Mapping[str, object]) -> None:
    path = record_path(state_dir)
    if not record:
        path.unlink(missing_ok=True)
        return
    _write(path, json.dumps(record, indent=2, sort_keys=True) + "\n")
