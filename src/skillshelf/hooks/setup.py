"""``skillshelf setup codex|claude``: write (or take out) skillshelf's entries in an agent's
own configuration files, changing nothing else in them.

:func:`plan_setup` is pure over the files' current text: it returns the new text of every
file it would touch (:class:`FileChange`, with a unified diff) and notes for the user;
:func:`apply_setup` writes them (atomically, keeping each file's permissions) and keeps a
small record in skillshelf's state folder of what setup created (files, folders, JSON tables),
which hooks it wrote and which of the user's tables it overwrote (:mod:`.setup_model`), so that
``--remove`` gives back the files exactly as they were, byte for byte, or deletes the ones
setup made. A hook running skillshelf that the user wrote by hand stays theirs: setup adds
none beside it and ``--remove`` leaves it (with no record of the file, a hook exactly as a
setup writes it is setup's, one that differs the user's). Running setup twice changes nothing the second
time. A setup whose writing fails partway puts back the files it wrote before (all or nothing).

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

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from skillshelf.config.edit_text import inside
from skillshelf.env import Env
from skillshelf.errors import FileAccessError, SkillshelfError
from skillshelf.hooks import jsonfile, tomlblock
from skillshelf.hooks.agents import (
    MCP_NAME,
    Agent,
    AgentFiles,
    HookSpec,
    SetupScope,
    agent_files,
    hook_specs,
)
from skillshelf.hooks.codex import (
    inline_hooks,
    parse_config,
    trust_change,
    trust_hash,
    trust_key,
    trusted_hashes,
)
from skillshelf.hooks.gitexclude import GitStanding, git_standing, needed_elsewhere, with_rule, without_rule
from skillshelf.hooks.jsonfile import HookValue
from skillshelf.hooks.setup_apply import apply_setup, refuse_read_only_changes
from skillshelf.hooks.setup_model import Edits, FileChange, SetupPlan, load_record, read_text, record_path
from skillshelf.hooks.setup_notes import (
    CODEX_UNREADABLE_MARK,
    byte_order_mark_note,
    notes,
    other_scope,
    users_left_note,
    users_note,
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

    A file the plan would change that is read-only is refused here as :func:`apply_setup`
    refuses it, so that ``--dry-run`` says what the real run would.

    Raises:
        ConfigError: a file to edit is not valid JSON / TOML, or has a part in a shape setup
            cannot add to, or is read-only (``CF117``); nothing is changed then.
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
    twice = None if remove else other_scope(env, files, hook_specs(files.agent, command))
    found = (twice,) if twice is not None else ()
    plan = SetupPlan(
        agent=agent,
        scope=scope,
        remove=remove,
        changes=edits.changes(),
        notes=(
            *edits.notes,
            *notes(env, files, remove, mcp, git),
            *(f"{d.message} ({d.code}; fix: {d.fix})" for d in found),
        ),
        diagnostics=found,
    )
    refuse_read_only_changes(plan)
    return plan


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
        _take_out_hooks(edits, former, files.agent)
    config, inline = _inline(edits, files)
    specs = [s for s in hook_specs(files.agent, command) if s.event not in {h.event for h in inline}]
    for path in (files.hooks, *files.mirror_hooks):
        current = edits.text(path)
        recorded = edits.recorded_hooks(path, files.agent)
        if files.agent == "codex" and current is not None and current.startswith(CODEX_UNREADABLE_MARK):
            current = current.removeprefix(CODEX_UNREADABLE_MARK)  # written without it
            edits.notes.append(byte_order_mark_note(path))
        if remove:
            if current is not None:
                after = jsonfile.remove_hooks(current, str(path), created=edits.made(path), recorded=recorded)
                edits.set(path, _json_after(edits, path, after), "hooks")
                left = jsonfile.users_hooks(current, str(path), recorded) if path == files.hooks else []
                if left:
                    edits.notes.append(users_left_note(path, left))
            edits.keep(path, "hooks", None)
            continue
        text = current if current is not None else _EMPTY_JSON
        users = jsonfile.users_hooks(text, str(path), recorded)
        text, created = jsonfile.add_hooks(text, specs, str(path), recorded)
        edits.set(path, text, "hooks", created)
        edits.keep(path, "hooks", [list(v) for v in jsonfile.skillshelf_values(text, str(path), users)])
        if users and path == files.hooks:
            edits.notes.append(users_note(path, users, untrusted=_untrusted(edits, files, users)))
    if inline:
        untrusted = not remove and _untrusted(edits, files, inline, config)
        edits.notes.append(
            users_left_note(config, inline) if remove else users_note(config, inline, untrusted=untrusted)
        )


def _untrusted(
    edits: Edits, files: AgentFiles, users: Sequence[jsonfile.OurHook], where: Path | None = None
) -> bool:
    """Codex: whether one of the user's own hooks running skillshelf (in ``where``, by default
    the hooks file) is not trusted yet."""
    if files.trust is None:
        return False
    trusted = trusted_hashes(parse_config(edits.text(files.trust) or ""))
    return any(trusted.get(trust_key(where or files.hooks, h)) != trust_hash(h) for h in users)


def _inline(edits: Edits, files: AgentFiles) -> tuple[Path, list[jsonfile.OurHook]]:
    """Codex: the ``config.toml`` beside the hooks file, and the hooks running skillshelf the
    user wrote inline in it (:func:`.codex.inline_hooks`), which Codex runs as it runs those of
    the hooks file: an event that has one gets none from setup."""
    config = files.hooks.with_name("config.toml")
    if files.agent != "codex":
        return config, []
    try:  # as read: setup's edits of the file are to its block, never to the user's [hooks.EVENT]
        text = edits.texts[config] if config in edits.texts else read_text(config)
    except SkillshelfError:  # an unreadable config.toml: Codex reads no hook from it either
        return config, []
    return config, inline_hooks(parse_config(text or ""))


def _take_out_hooks(edits: Edits, path: Path, agent: Agent) -> None:
    """Our hooks out of a file earlier setups on this machine wrote them to (setup's record
    names it); hooks someone else put there (a team's own entry), a file without them and one
    we cannot read as JSON are left alone."""
    if edits.made(path) is None:
        return
    recorded = edits.recorded_hooks(path, agent)
    try:
        current = edits.text(path)
        if current is None or not jsonfile.our_hooks(current, str(path), recorded):
            return
    except SkillshelfError:
        return
    after = jsonfile.remove_hooks(current, str(path), created=edits.made(path), recorded=recorded)
    edits.set(path, _json_after(edits, path, after), "hooks (moved)")
    edits.keep(path, "hooks", None)


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
    handlers (:func:`.codex.trust_change`), wherever in the file they are. A table of the
    user's at a key our trust needs is updated in place, its values recorded, and given back
    when our trust there goes (:func:`_replaced`)."""
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
            recorded=(edits.recorded_hooks(hooks_file, files.agent), _kept_hooks(edits, hooks_file)),
        )
        wanted |= {(*_STATE, k): {"trusted_hash": h} for k, h in change.wanted.items()}
        ours |= {(*_STATE, k) for k in change.ours}
        renames |= {(*_STATE, k): (*_STATE, n) for k, n in change.renames.items()}
        users |= {(*_STATE, k) for k in change.users}
    config, inline = _inline(edits, files)
    users |= {(*_STATE, trust_key(config, h)) for h in inline}
    drop = ours - wanted.keys()
    restore = _replaced(edits, files.trust, wanted, ours, drop - set(renames.values()))
    _toml(
        edits,
        files.trust,
        ours.__contains__,
        wanted,
        "hook trust",
        drop=drop - restore.keys(),
        renames=renames,
        users=users,
        restore=restore,
    )


_STATE = ("hooks", "state")


def _kept_hooks(edits: Edits, path: Path) -> tuple[HookValue, ...]:
    """The handlers setup's record will name as its own in ``path`` once the plan is applied."""
    found = edits.records.get(path, {}).get("hooks")
    return tuple((str(e), str(c), t, m) for e, c, t, m in found) if isinstance(found, list) else ()


def _replaced(
    edits: Edits,
    path: Path,
    wanted: Mapping[tomlblock.TablePath, Mapping[str, object]],
    ours: Collection[tomlblock.TablePath],
    going: Collection[tomlblock.TablePath],
) -> dict[tomlblock.TablePath, Mapping[str, str | None]]:
    """The user's trust tables (outside the block, at a key not ours) that ``wanted`` updates
    are recorded with their values' text; those of the record whose key our trust leaves
    (``going``) are returned, to be given back instead of taken out."""
    replaced = edits.replaced(path)
    current = edits.text(path) or ""
    for key, table in wanted.items():
        name = key[-1]
        if key in ours or name in replaced:
            continue
        raw = tomlblock.raw_values(current, key)
        if raw is not None:
            replaced[name] = {**dict.fromkeys(table), **raw}
    restore: dict[tomlblock.TablePath, Mapping[str, str | None]] = {
        (*_STATE, k): v for k, v in replaced.items() if (*_STATE, k) in going
    }
    left = {k: v for k, v in replaced.items() if (*_STATE, k) not in restore}
    edits.keep(path, "replaced", left or None)
    return restore


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
    restore: Mapping[tomlblock.TablePath, Mapping[str, str | None]] | None = None,
) -> None:
    """Our block in ``path`` holding ``wanted`` and what else is in it that is not ``ours``
    (moved by ``renames``), each where it was; outside it, ``drop`` taken out and ``renames``
    moved. A block left holding only ``users`` (the trust of the user's own hooks, which Codex
    wrote into it) is written without its marker lines; ``restore``: tables outside it given
    back their values' text. When the block changes, tables of the user's that Codex wrote into
    it (``[projects."…"]``) go just after it (:func:`.tomlblock.ejected`): a block that setup
    leaves as it is stays byte for byte."""
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

    def written(text: str) -> str:
        kept = {**tables, **wanted}
        return tomlblock.with_tables(
            text, kept, str(path), drop=drop, renames=moves, foreign=users, restore=restore
        )

    after = written(current or "")
    if current is not None and after != current and (moved := tomlblock.ejected(current)) != current:
        after = written(moved)  # the block is rewritten: the user's tables leave it
    edits.set(path, None if not after and edits.created_file(path) else after, what)
