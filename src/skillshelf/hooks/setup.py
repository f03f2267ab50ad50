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
``.claude/settings.local.json`` (project: the personal file, as the command is this machine's
path; hooks earlier setups put in the shared ``settings.json`` are moved out of it, and git
is told to ignore the file in this clone, :mod:`.gitexclude`) or
``~/.claude/settings.json`` (user), ``--mcp`` adds ``mcpServers.skillshelf`` to ``.mcp.json`` (project) or
``~/.claude.json`` (user).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from skillshelf.config.edit_text import editing, inside
from skillshelf.env import Env
from skillshelf.errors import FileAccessError, SkillshelfError, reason
from skillshelf.hooks import jsonfile, tomlblock
from skillshelf.hooks.agents import (
    MCP_NAME,
    Agent,
    AgentFiles,
    HookSpec,
    SetupScope,
    agent_files,
    codex_hooks_root,
    hook_specs,
)
from skillshelf.hooks.claude import trust_dialog_accepted
from skillshelf.hooks.codex import (
    codex_config,
    parse_config,
    project_trusted,
    trust_change,
)
from skillshelf.hooks.gitexclude import GitStanding, git_standing, needed_elsewhere, with_rule, without_rule
from skillshelf.hooks.setup_model import (
    Edits,
    FileChange,
    SetupPlan,
    containers,
    load_record,
    read_text,
    record_path,
)

__all__ = ["FileChange", "SetupPlan", "apply_setup", "plan_setup", "record_path"]

_EMPTY_JSON = "{}\n"


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
    _inside_their_project(files)
    edits = Edits(record=load_record(state_dir))
    _hooks(edits, files, command, remove)
    if files.trust is not None:
        _trust(edits, files, hook_specs(files.agent, command))
    if mcp or remove:
        _mcp(edits, files, command, remove)
    git = git_standing(files.hooks, env.environ) if files.personal_hooks else None
    if git is not None:
        git = _git_exclude(edits, git, remove, env.environ)
    return SetupPlan(
        agent=agent,
        scope=scope,
        remove=remove,
        changes=edits.changes(),
        notes=tuple(_notes(env, files, remove, mcp, git)),
    )


def _inside_their_project(files: AgentFiles) -> None:
    """A project's files are written only inside its folder: a cloned repository can commit
    ``.claude/settings.local.json`` (or ``.codex``, ``.mcp.json``) as a link to a file of the
    user's (``CF114``, nothing changed)."""
    if files.scope != "project":
        return
    for path in (files.hooks, files.mcp, *files.mirror_hooks, *files.former_hooks):
        inside(path, path.parent.parent if path.parent.name in (".codex", ".claude") else path.parent)


def _json_after(edits: Edits, path: Path, text: str) -> str | None:
    """``None`` (delete) when taking out left an empty document in a file setup created."""
    return None if jsonfile.is_empty_document(text) and edits.created_file(path) else text


def _hooks(edits: Edits, files: AgentFiles, command: list[str], remove: bool) -> None:
    for former in files.former_hooks:
        _take_out_hooks(edits, former)
    for path in (files.hooks, *files.mirror_hooks):
        current = edits.text(path)
        if remove:
            if current is not None:
                after = jsonfile.remove_hooks(current, str(path), created=edits.made(path))
                edits.set(path, _json_after(edits, path, after), "hooks")
            continue
        text, created = jsonfile.add_hooks(
            current if current is not None else _EMPTY_JSON, hook_specs(files.agent, command), str(path)
        )
        edits.set(path, text, "hooks", created)


def _take_out_hooks(edits: Edits, path: Path) -> None:
    """Our hooks out of a file earlier setups on this machine wrote them to (setup's record
    names it); hooks someone else put there (a team's own entry), a file without them and one
    we cannot read as JSON are left alone."""
    if edits.made(path) is None:
        return
    try:
        current = edits.text(path)
        if current is None or not jsonfile.our_hooks(current, str(path)):
            return
    except SkillshelfError:
        return
    after = jsonfile.remove_hooks(current, str(path), created=edits.made(path))
    edits.set(path, _json_after(edits, path, after), "hooks (moved)")


def _git_exclude(
    edits: Edits, git: GitStanding, remove: bool, environ: Mapping[str, str]
) -> GitStanding | None:
    """The personal hooks file ignored in this clone (see :mod:`.gitexclude`), or no longer;
    None when the exclude file cannot be read (a folder or a FIFO in its place): the hooks are
    set up all the same, and the note asks the user to keep the file out of git."""
    try:
        current = edits.text(git.exclude)
    except FileAccessError:
        return None
    if remove:
        if current is not None and not needed_elsewhere(git, environ):
            after = without_rule(current, git.rule)
            edits.set(
                git.exclude, None if not after and edits.created_file(git.exclude) else after, "git ignore"
            )
    elif not git.ignored and not git.tracked:
        edits.set(git.exclude, with_rule(current, git.rule), "git ignore")
    return git


def _trust(edits: Edits, files: AgentFiles, specs: Sequence[HookSpec]) -> None:
    """Codex: a trust entry for each of our hooks in the hooks file as it will be; only our
    handlers' entries are added, updated or taken out, the user's own moved along with their
    handlers (:func:`.codex.trust_change`), wherever in the file they are."""
    assert files.trust is not None
    current = edits.text(files.trust) or ""
    state = tomlblock.lookup(parse_config(current), ("hooks", "state"))
    block = {
        p[2]: t.get("trusted_hash") for p, t in tomlblock.block_tables(current).items() if p[:2] == _STATE
    }
    wanted: dict[tomlblock.TablePath, Mapping[str, object]] = {}
    ours: set[tomlblock.TablePath] = set()
    renames: dict[tomlblock.TablePath, tomlblock.TablePath] = {}
    users: set[tomlblock.TablePath] = set()
    for hooks_file in (files.hooks, *files.mirror_hooks):
        change = trust_change(
            hooks_file,
            edits.original(hooks_file),
            edits.text(hooks_file),
            specs,
            ours_if_hash=block,
            present=state.keys() if isinstance(state, dict) else (),
        )
        wanted |= {(*_STATE, k): {"trusted_hash": h} for k, h in change.wanted.items()}
        ours |= {(*_STATE, k) for k in change.ours}
        renames |= {(*_STATE, k): (*_STATE, n) for k, n in change.renames.items()}
        users |= {(*_STATE, k) for k in change.users}
    drop = ours - wanted.keys()
    _toml(
        edits, files.trust, ours.__contains__, wanted, "hook trust", drop=drop, renames=renames, users=users
    )


_STATE = ("hooks", "state")


def _mcp(edits: Edits, files: AgentFiles, command: list[str], remove: bool) -> None:
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
    edits: Edits,
    path: Path,
    ours: Callable[[tomlblock.TablePath], bool],
    wanted: Mapping[tomlblock.TablePath, Mapping[str, object]],
    what: str,
    *,
    drop: Collection[tomlblock.TablePath] = (),
    renames: Mapping[tomlblock.TablePath, tomlblock.TablePath] | None = None,
    users: Collection[tomlblock.TablePath] = (),
) -> None:
    """Our block in ``path`` holding ``wanted`` and what else is in it that is not ``ours``
    (moved by ``renames``), each where it was; outside it, ``drop`` taken out and ``renames``
    moved. A block left holding only ``users`` (the trust of the user's own hooks, which Codex
    wrote into it) is written without its marker lines."""
    current = edits.text(path)
    if current is None and not wanted:
        return
    moves = renames or {}
    tables: dict[tomlblock.TablePath, Mapping[str, object]] = {}
    for key, table in tomlblock.block_tables(current or "").items():
        if key in wanted:
            tables[key] = wanted[key]
        elif not ours(key) and (key in moves or key not in moves.values()):
            tables[moves.get(key, key)] = table
    after = tomlblock.with_tables(
        current or "", {**tables, **wanted}, str(path), drop=drop, renames=moves, foreign=users
    )
    edits.set(path, None if not after and edits.created_file(path) else after, what)


def _notes(env: Env, files: AgentFiles, remove: bool, mcp: bool, git: GitStanding | None) -> list[str]:
    if remove:
        return []
    notes: list[str] = []
    if mcp and files.scope == "project":
        notes.append(
            f"{files.mcp} is shared with the project, and its skillshelf server names this machine's "
            "skillshelf: for a repository others use, set the server up with --scope user instead"
        )
    if files.agent == "codex" and files.scope == "project":
        root = codex_hooks_root(env)
        if root != env.project_root:
            notes.append(
                f"{env.project_root} is a git worktree of {root}: Codex runs the main checkout's "
                "project hooks there, so they went to its .codex folder and serve each of its worktrees"
            )
        if not project_trusted(codex_config(env.codex_home / "config.toml"), root):
            notes.append(
                f"Codex does not trust {root} yet, so it ignores the project's .codex folder "
                "(these hooks included): accept Codex's trust prompt there, or run `codex exec --trust` once"
            )
    if files.personal_hooks:
        notes.append(_personal_file_note(files.hooks, git))
        if env.cwd != env.project_root:
            notes.append(
                "Claude Code reads a project's .claude settings only in the folder it starts in: "
                f"these hooks run when it starts in {env.cwd}, not in {env.project_root} (run setup "
                "there for that, or use --scope user for every folder)"
            )
    if files.agent == "claude" and files.scope == "project" and not trust_dialog_accepted(env):
        notes.append(
            "an interactive Claude Code session runs project hooks once the folder is trusted "
            "(its trust dialog); `claude -p` runs them at once"
        )
    return notes


def _personal_file_note(hooks: Path, git: GitStanding | None) -> str:
    where = (
        f"the hooks are in {hooks.name}, your own Claude Code settings for this project: "
        "they name this machine's skillshelf"
    )
    if git is None:
        return f"{where}, so keep that file out of version control"
    if git.tracked:
        return (
            f"{where}, but git tracks that file: run `git rm --cached {git.rule.lstrip('/')}` "
            "so that it is not shared with the others who use the repository"
        )
    if git.ignored:
        return f"{where}; git ignores that file"
    return f"{where}; setup has git ignore that file in this clone ({git.exclude})"


def apply_setup(plan: SetupPlan, *, state_dir: Path) -> tuple[FileChange, ...]:
    """Write the plan's changes; returns the files that changed.

    One setup at a time writes (the lock of the record's folder), and only over files that
    still hold the text the plan was made from: an agent that saved its settings in between
    keeps its change and nothing is written.

    Raises:
        FileAccessError: a file changed since the plan was made (``HK122``, nothing written),
            or a file could not be written (the ones before it are written).
        ConfigError: another setup kept the lock (``CF113``, nothing written).
    """
    with editing(record_path(state_dir)):
        for change in plan.changed:
            if read_text(change.path) != change.before:
                raise FileAccessError(
                    f"{change.path} changed since setup read it (another program saved it); "
                    "nothing was written",
                    hint="run the same setup command again: it plans from the file as it is now",
                    code="HK122",
                )
        return _apply(plan, state_dir)


def _apply(plan: SetupPlan, state_dir: Path) -> tuple[FileChange, ...]:
    """Write the changes, the record kept in step with every file written or deleted (saved
    when a write fails too), so that ``--remove`` can give back whatever was written."""
    record = load_record(state_dir)
    emptied: list[Path] = []  # folders setup created for files it now deletes
    try:
        for change in plan.changed:
            entry = record.get(str(change.path), {})
            if change.after is None:
                _delete(change.path)
                record.pop(str(change.path), None)
                emptied += [Path(str(d)) for d in entry.get("created_dirs", []) or []]  # type: ignore[attr-defined]
                continue
            if change.before is None:
                entry = {"created_file": True, "created_dirs": [str(d) for d in _missing_dirs(change.path)]}
            _write(change.path, change.after)
            made = set() if plan.remove else {*containers(entry), *change.created}
            record[str(change.path)] = {**entry, "containers": [list(p) for p in sorted(made)]}
    finally:
        kept = {k: v for k, v in record.items() if v.get("created_file") or v.get("containers")}
        _save_record(state_dir, kept)
    for folder in sorted(set(emptied), key=lambda d: len(d.parts), reverse=True):
        try:
            folder.rmdir()  # only when empty: the user may have put things there since
        except OSError:
            continue
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
            f"cannot remove {path}: {reason(exc)}",
            hint="check the folder's permissions",
            code="HK121",
        ) from exc


def _save_record(state_dir: Path, record: Mapping[str, object]) -> None:
    path = record_path(state_dir)
    if not record:
        path.unlink(missing_ok=True)
        return
    _write(path, json.dumps(record, indent=2, sort_keys=True) + "\n")
