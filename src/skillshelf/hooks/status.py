"""``skillshelf setup --status``: what is installed where, for both agents, and whether the
agent will run it (Codex's project and hook trust, Claude Code's settings and policy); and the
newest problem in each hook log (:func:`last_problems`)."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from skillshelf.env import Env
from skillshelf.errors import SkillshelfError, reason
from skillshelf.fileio import MAX_SETTINGS_BYTES, open_regular, read_regular_text, read_toml_text
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
from skillshelf.hooks.codex import codex_config, project_trusted, trust_hash, trust_key, trusted_hashes
from skillshelf.hooks.hooklog import jobs_log_path, log_path
from skillshelf.hooks.setup_model import load_record

__all__ = ["HookStatus", "LastProblems", "last_problems", "setup_status"]

TAIL_BYTES = 64 * 1024  # how much of a log's end last_problems reads
_PROBLEMS = ("error", "timeout")  # a hook call's status words that are problems

_SCOPES: tuple[SetupScope, ...] = ("project", "user")


@dataclass(frozen=True, slots=True, kw_only=True)
class HookStatus:
    """skillshelf in one agent at one scope."""

    agent: Agent
    scope: SetupScope
    hooks_file: Path
    events: tuple[str, ...]  # events with a skillshelf hook
    current: bool  # every event set up, with this installation's command
    mcp_file: Path
    mcp: bool
    runs: bool  # the agent will run the hooks (when any are installed)
    reasons: tuple[str, ...] = ()  # why not, or what to know

    @property
    def installed(self) -> bool:
        return bool(self.events) or self.mcp

    def to_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "scope": self.scope,
            "hooks_file": str(self.hooks_file),
            "events": list(self.events),
            "current": self.current,
            "mcp_file": str(self.mcp_file),
            "mcp": self.mcp,
            "runs": self.runs,
            "reasons": list(self.reasons),
        }


def setup_status(env: Env, *, command: list[str]) -> tuple[HookStatus, ...]:
    """The state of every agent and scope (project first)."""
    return tuple(_one(env, agent, scope, command) for agent in AGENTS for scope in _SCOPES)


def _ours(path: Path) -> tuple[list[jsonfile.OurHook], str | None]:
    try:
        text = read_regular_text(path, limit=MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return [], None
    except (OSError, UnicodeDecodeError) as exc:
        return [], f"cannot read {path}: {reason(exc)}"
    try:
        return jsonfile.our_hooks(text, str(path)), None
    except SkillshelfError as exc:
        return [], exc.message


def _one(env: Env, agent: Agent, scope: SetupScope, command: list[str]) -> HookStatus:
    files = agent_files(agent, scope, env)
    hooks, problem = _ours(files.hooks)
    wanted = {(s.event, s.command, s.timeout, s.matcher) for s in hook_specs(agent, command)}
    have = {(h.event, h.command, h.timeout, h.matcher) for h in hooks}
    reasons = [problem] if problem else []
    made_here = load_record(env.dirs.state)
    for former in files.former_hooks:
        shared, _ = _ours(former)
        hooks += shared  # they run, wherever they came from
        if shared and str(former) in made_here:
            have = set()  # not current until setup moves them
            reasons.append(
                f"the hooks are in {former}, which the project shares: run `skillshelf setup {agent}` "
                f"again to move them to {files.hooks}"
            )
    if agent == "codex":
        broken = _codex_config_problems(files.trust or files.mcp, files.mcp)
        reasons += broken
        runs = _codex_runs(env, scope, files.hooks, files.trust or files.mcp, hooks, reasons) and not broken
        mcp = tomlblock.lookup(codex_config(files.mcp), ("mcp_servers", MCP_NAME)) is not None
    else:
        blockers = hook_blockers(env)
        reasons += blockers
        if scope == "project":
            reasons += _claude_hooks_of_other_folders(env, files.hooks.parent)
        runs = not blockers
        servers = read_json(files.mcp).get("mcpServers")
        mcp = isinstance(servers, dict) and MCP_NAME in servers
    events = tuple(e for e in EVENTS if any(h.event == e for h in hooks))
    return HookStatus(
        agent=agent,
        scope=scope,
        hooks_file=files.hooks,
        events=events,
        current=wanted <= have,
        mcp_file=files.mcp,
        mcp=mcp,
        runs=runs and bool(events),
        reasons=tuple(reasons),
    )


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
    reasons: list[str],
) -> bool:
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
    untrusted = [h.event for h in hooks if trusted.get(trust_key(hooks_file, h)) != trust_hash(h)]
    if untrusted:
        reasons.append(
            f"Codex skips untrusted hooks: {', '.join(untrusted)} (run `skillshelf setup codex` again, "
            "or trust them in Codex's /hooks)"
        )
        runs = False
    return runs


@dataclass(frozen=True, slots=True, kw_only=True)
class LastProblems:
    """The newest problem line of each hook log (``None``: none in its last 64 KB, or no log)."""

    hook_call: str | None
    job_error: str | None


def last_problems(state_dir: Path) -> LastProblems:
    """The newest hook call that failed or timed out, and the newest error a detached job wrote
    (lines such as a hook server's start-up notes are not errors)."""
    calls = _tail_lines(log_path(state_dir))
    jobs = _tail_lines(jobs_log_path(state_dir))
    return LastProblems(
        hook_call=next((line for line in reversed(calls) if _is_problem(line)), None),
        job_error=next((line for line in reversed(jobs) if _is_job_error(line)), None),
    )


def _is_problem(line: str) -> bool:
    words = line.split(maxsplit=4)  # stamp, agent, event, status, the rest
    return len(words) >= 4 and words[3] in _PROBLEMS


_JOB_ERROR = re.compile(r"(?i:\berror\b)|^[\w.]*(?:Error|Exception)\b")
"""An error line of a job's output: the word ``error`` (``skillshelf: error CODE: ...``, a
finding's ``path: error CODE``) or a Python exception's last line (``OSError: ...``)."""


def _is_job_error(line: str) -> bool:
    return _JOB_ERROR.search(line) is not None


def _tail_lines(path: Path) -> list[str]:
    """The whole lines of the last :data:`TAIL_BYTES` of ``path``, stripped; [] if unreadable."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - TAIL_BYTES))
            data = f.read(TAIL_BYTES)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    return [line.strip() for line in (lines[1:] if size > TAIL_BYTES else lines)]
