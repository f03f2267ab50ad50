"""``skillshelf setup --status``: what is installed where, for both agents, and whether the
agent will run it (Codex's project and hook trust, Claude Code's settings and policy, and the
command a hook names, found as the agent's shell finds it: :func:`missing_commands`); the
newest problem in each hook log (:func:`last_problems`); and the layers of skillshelf's own
config the hooks skip (:func:`config_problems`), which no hook call reports as a problem."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError, reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, read_regular_text, read_toml_text
from skillshelf.hooks import jsonfile, tomlblock
from skillshelf.hooks.agents import (
    AGENTS,
    EVENTS,
    MCP_NAME,
    Agent,
    SetupScope,
    agent_files,
    codex_hooks_root,
    hook_specs,
)
from skillshelf.hooks.claude import hook_blockers, read_json
from skillshelf.hooks.codex import (
    codex_config,
    inline_hooks,
    project_trusted,
    trust_hash,
    trust_key,
    trusted_hashes,
)
from skillshelf.hooks.command_check import command_problem, missing_commands
from skillshelf.hooks.setup_model import Edits, load_record
from skillshelf.hooks.setup_notes import CODEX_UNREADABLE_MARK, users_reasons
from skillshelf.hooks.status_logs import TAIL_BYTES, LastProblems, last_problems

__all__ = [
    "TAIL_BYTES",
    "HookStatus",
    "LastProblems",
    "config_problems",
    "last_problems",
    "missing_commands",
    "setup_status",
]

_SCOPES: tuple[SetupScope, ...] = ("project", "user")


@dataclass(frozen=True, slots=True, kw_only=True)
class HookStatus:
    """skillshelf in one agent at one scope.

    ``runs`` and ``not_running`` (``setup --status --json`` prints both) say the same thing in
    every row: ``not_running`` names the events of ``events`` whose hooks here the agent does
    not run. When the set does not run at all (``runs`` false: Codex does not trust the
    project, Claude Code's settings turn hooks off, every hook's command is gone, ...) that is
    every event; when it runs, the events whose every hook fails on its own (a program the
    shell cannot start, a Codex hook it does not trust), the others running; ``()`` when all
    run, or when no hook is installed.
    """

    agent: Agent
    scope: SetupScope
    hooks_file: Path  # the file holding the hooks (the first of ``hooks_files``), else where setup writes
    events: tuple[str, ...]  # events with a skillshelf hook
    users_events: tuple[str, ...]  # those of them whose hook is the user's own (setup leaves it)
    current: bool  # setup again would change nothing (see the reasons when it would)
    mcp_file: Path
    mcp: bool
    runs: bool  # the agent will run the hooks (when any are installed), some of them at least
    reasons: tuple[str, ...] = ()  # why not, or what to know
    not_running: tuple[str, ...] = ()  # events whose hooks do not run: all of them when not ``runs``
    # every file holding a skillshelf hook here: the hooks file, a file an earlier setup used,
    # Codex's config.toml for hooks written inline in it
    hooks_files: tuple[Path, ...] = ()

    @property
    def installed(self) -> bool:
        return bool(self.events) or self.mcp

    @property
    def verdict(self) -> str:
        """Whether the agent runs these hooks, in words: which do not, when some run."""
        if not self.runs:
            return "does NOT run"
        if self.not_running:
            return f"runs, but {', '.join(self.not_running)} does NOT"
        return "runs"

    def to_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "scope": self.scope,
            "hooks_file": str(self.hooks_file),
            "hooks_files": [str(p) for p in self.hooks_files],
            "events": list(self.events),
            "users_events": list(self.users_events),
            "current": self.current,
            "mcp_file": str(self.mcp_file),
            "mcp": self.mcp,
            "runs": self.runs,
            "not_running": list(self.not_running),
            "reasons": list(self.reasons),
        }


def setup_status(env: Env, *, command: list[str]) -> tuple[HookStatus, ...]:
    """The state of every agent and scope (project first)."""
    return tuple(_one(env, agent, scope, command) for agent in AGENTS for scope in _SCOPES)


def _ours(path: Path) -> tuple[list[jsonfile.OurHook], str | None]:
    hooks, _text, problem = _read_hooks(path)
    return hooks, problem


def _read_hooks(path: Path) -> tuple[list[jsonfile.OurHook], str | None, str | None]:
    """Every handler in ``path`` that runs skillshelf, the file's text, and why it cannot be read."""
    try:
        text = read_regular_text(path, limit=MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return [], None, None
    except (OSError, UnicodeDecodeError) as exc:
        return [], None, f"cannot read {path}: {reason(exc)}"
    try:
        return jsonfile.our_hooks(text, str(path)), text, None
    except SkillshelfError as exc:
        return [], None, exc.message


def _users(
    path: Path, text: str | None, agent: Agent, record: dict[str, dict[str, object]]
) -> list[jsonfile.OurHook]:
    """The handlers running skillshelf in ``path`` that are the user's own, as setup tells them
    (:meth:`.setup_model.Edits.recorded_hooks`): setup leaves them, and ``--remove`` too."""
    if text is None:
        return []
    try:
        recorded = Edits(record=record).recorded_hooks(path, agent)
        return jsonfile.users_hooks(text, str(path), recorded)
    except SkillshelfError:
        return []


def _one(env: Env, agent: Agent, scope: SetupScope, command: list[str]) -> HookStatus:
    files = agent_files(agent, scope, env)
    hooks, text, problem = _read_hooks(files.hooks)
    reasons = [problem] if problem else []
    made_here = load_record(env.dirs.state)
    users = _users(files.hooks, text, agent, made_here)
    holding = [(h, files.hooks) for h in hooks]  # each hook and the file it is in
    for former in files.former_hooks:
        shared, _ = _ours(former)
        hooks += shared  # they run, wherever they came from
        holding += [(h, former) for h in shared]
        if shared and str(former) in made_here:
            reasons.append(
                f"the hooks are in {former}, which the project shares: run `skillshelf setup {agent}` "
                f"again to move them to {files.hooks}"
            )
    reasons += users_reasons(files.hooks, users, hook_specs(agent, command))
    if agent == "codex":
        broken = _codex_config_problems(files.trust or files.mcp, files.mcp)
        reasons += broken
        inline = inline_hooks(codex_config(files.hooks.with_name("config.toml")))
        reasons += users_reasons(files.hooks.with_name("config.toml"), inline, hook_specs(agent, command))
        hooks, users = hooks + inline, users + inline
        holding += [(h, files.hooks.with_name("config.toml")) for h in inline]
        trust = files.trust or files.mcp
        runs, skipped = _codex_runs(env, scope, files.hooks, trust, hooks, users, reasons)
        if text is not None and text.startswith(CODEX_UNREADABLE_MARK):
            skipped = [*skipped, *(h for h in hooks if h.member >= 0)]  # all but config.toml's
            reasons.append(
                f"Codex cannot parse {files.hooks}: it starts with a byte-order mark; run "
                f"`skillshelf setup codex{' --scope user' if scope == 'user' else ''}` again "
                "(it writes the file without the mark), or save the file without one"
            )
        runs = runs and not broken
        mcp = tomlblock.lookup(codex_config(files.mcp), ("mcp_servers", MCP_NAME)) is not None
    else:
        blockers = hook_blockers(env)
        reasons += blockers
        if scope == "project":
            reasons += _claude_hooks_of_other_folders(env, files.hooks.parent)
        runs, skipped = not blockers, []
        servers = read_json(files.mcp).get("mcpServers")
        mcp = isinstance(servers, dict) and MCP_NAME in servers
    reasons += _command_reasons(env, agent, scope, hooks, users, holding)
    failing = {h.command for h in hooks if command_problem(env, h.command) is not None}
    stopped = [h for h in hooks if h in skipped or h.command in failing]
    events = tuple(e for e in EVENTS if any(h.event == e for h in hooks))
    failing_events = tuple(e for e in events if all(h in stopped for h in hooks if h.event == e))
    runs = runs and len(failing_events) < len(events)
    current = True
    if len(hooks) > len(users):  # some are setup's: would setup again change them?
        current, changes = _setup_changes(env, agent, scope, command)
        reasons += changes
    where = tuple(dict.fromkeys(path for _, path in holding))
    return HookStatus(
        agent=agent,
        scope=scope,
        hooks_file=where[0] if where else files.hooks,
        hooks_files=where,
        events=events,
        users_events=tuple(dict.fromkeys(h.event for h in users)),
        current=current,
        mcp_file=files.mcp,
        mcp=mcp,
        runs=runs and bool(events),
        reasons=tuple(reasons),
        not_running=failing_events if runs else events,
    )


def _command_reasons(
    env: Env,
    agent: Agent,
    scope: SetupScope,
    hooks: list[jsonfile.OurHook],
    users: list[jsonfile.OurHook],
    holding: list[tuple[jsonfile.OurHook, Path]],
) -> list[str]:
    """Why hooks fail to start their program (:func:`missing_commands`): setup's, which setup
    again fixes, and the user's own, each named with the files that hold them."""
    setups = missing_commands(env, [h.command for h in hooks if h not in users])
    found = [
        f"{problem}: the hooks that start it fail and give the agent nothing; "
        f"run `skillshelf setup {agent}{' --scope user' if scope == 'user' else ''}` again"
        for problem in setups
    ]
    for problem in missing_commands(env, [h.command for h in users]):
        if problem in setups:
            continue
        failing = [h for h in users if command_problem(env, h.command) == problem]
        where = dict.fromkeys(str(path) for hook, path in holding if hook in failing)
        found.append(
            f"{problem}: your own hooks that start it fail; fix their command in {' and '.join(where)}"
        )
    return found


def config_problems(env: Env) -> tuple[Diagnostic, ...]:
    """The errors of skillshelf's own config layers as the hooks load them (a layer that is not
    TOML or cannot be read is skipped: ``CF100``, ``CF101``); a hook goes on without the layer
    and logs nothing, except for the system layer, whose requirements cannot be applied then:
    every skill is withheld (``CF118``, in the hook log too). A config that cannot be loaded at
    all is one ``CF`` error too."""
    from skillshelf.config import load_config

    try:
        config = load_config(env)
    except SkillshelfError as exc:
        return (
            Diagnostic(
                code=exc.code,
                severity=Severity.ERROR,
                message=f"{exc.message}; every hook fails",
                fix=exc.hint,
            ),
        )
    return tuple(d for d in config.diagnostics if d.severity is Severity.ERROR and d.code.startswith("CF1"))


def _setup_changes(env: Env, agent: Agent, scope: SetupScope, command: list[str]) -> tuple[bool, list[str]]:
    """Whether ``setup`` again would change nothing (what it would change, if not): status
    agrees with setup, which leaves the user's own hooks as they are."""
    from skillshelf.hooks.setup import plan_setup

    try:
        plan = plan_setup(env, agent, scope, command=command, state_dir=env.dirs.state)
    except SkillshelfError as exc:
        return False, [f"setup cannot bring it up to date: {exc.message} ({exc.code}; fix: {exc.hint})"]
    if not plan.changed:
        return True, []
    what = "; ".join(f"{' and '.join(dict.fromkeys(c.what))} in {c.path}" for c in plan.changed)
    return False, [f"setup again would update: {what}"]


def _claude_hooks_of_other_folders(env: Env, settings_dir: Path) -> list[str]:
    """skillshelf's hooks in the ``.claude`` settings of the folders from the project root down
    to the cwd's parent, which Claude Code started here does not read."""
    folders = [f for f in env.folders_root_to_cwd() if f / ".claude" != settings_dir]
    return [
        f"skillshelf's hooks in {path} run only when Claude Code starts in {folder}, "
        "not here: run `skillshelf setup claude` here, or use --scope user"
        for folder in folders
        for path in (folder / ".claude" / "settings.local.json", folder / ".claude" / "settings.json")
        if _ours(path)[0]
    ]


def _codex_config_problems(*paths: Path) -> list[str]:
    """Why Codex cannot start with the ``config.toml`` files at ``paths`` (the user's; the
    project's): one that is not TOML stops Codex 0.171.0 at start ("Error loading config.toml"),
    hooks and all. A missing file is none."""
    problems: list[str] = []
    for path in dict.fromkeys(paths):
        try:
            tomllib.loads(read_toml_text(path))
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"cannot read {path}: {reason(exc)}")
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            problems.append(
                f"{path} is not valid TOML ({reason(exc)}): Codex stops at start until it is fixed"
            )
    return problems


def _codex_runs(
    env: Env,
    scope: SetupScope,
    hooks_file: Path,
    trust_file: Path,
    hooks: list[jsonfile.OurHook],
    users: list[jsonfile.OurHook],
    reasons: list[str],
) -> tuple[bool, list[jsonfile.OurHook]]:
    """Whether Codex runs the hooks at this scope at all (the project trusted, ...), and the
    hooks it skips one by one (untrusted); the reasons appended to ``reasons``."""
    config = codex_config(trust_file)
    runs = True
    root = codex_hooks_root(env)
    if scope == "project" and hooks and not project_trusted(config, root):
        reasons.append(f"Codex does not trust {root}: it ignores the project's .codex folder")
        runs = False
    if (
        scope == "project"
        and hooks
        and root != env.project_root
        and not (env.project_root / ".codex").is_dir()
    ):
        reasons.append(
            f"in this worktree Codex runs {root}'s hooks only once the worktree has a .codex folder: "
            "run `skillshelf setup codex` here"
        )
        runs = False
    trusted = trusted_hashes(config)
    inline = hooks_file.with_name("config.toml")  # hooks written there: member -1 (inline_hooks)
    untrusted = [
        h for h in hooks if trusted.get(trust_key(inline if h.member < 0 else hooks_file, h)) != trust_hash(h)
    ]
    setups = [h.event for h in untrusted if h not in users]
    if setups:
        reasons.append(
            f"Codex skips untrusted hooks: {', '.join(setups)} (run `skillshelf setup codex` again, "
            "or trust them in Codex's /hooks)"
        )
    theirs = [h.event for h in untrusted if h in users]
    if theirs:
        reasons.append(
            f"Codex skips untrusted hooks of your own: {', '.join(theirs)} (setup leaves them to you: "
            "trust them in Codex's /hooks)"
        )
    return runs, untrusted
