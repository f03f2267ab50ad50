"""What skillshelf installs into each agent, and where that agent reads it.

Observed with the pinned CLIs (Codex 0.171.0 and Claude Code 2.1.197, driven offline against
``model-standin``):

- Both read hooks in the same JSON shape, ``{"hooks": {EVENT: [{"matcher"?: ..., "hooks":
  [{"type": "command", "command": ..., "timeout": SECONDS}]}]}}``: Codex from
  ``<project>/.codex/hooks.json`` (in a linked worktree, the main checkout's) and
  ``$CODEX_HOME/hooks.json``, Claude Code from
  ``.claude/settings.json``, ``.claude/settings.local.json`` and ``~/.claude/settings.json``
  (``$CLAUDE_CONFIG_DIR`` moves the user folder). Claude Code's ``.claude`` is that of the
  folder it starts in, not the repository root's: started in ``repo/app`` it runs no hook of
  ``repo/.claude/settings.local.json``, so setup writes the cwd's.
- The hook command names this machine's skillshelf by absolute path. A project's
  ``.claude/settings.json`` is shared (committed), and Claude Code runs its hooks for everyone
  who trusts the folder, so for them the command would fail on every prompt: Claude Code's
  project hooks go to ``settings.local.json``, the personal file (earlier setups wrote
  ``settings.json``: setup moves them out). Codex runs a project hook only when the user's own
  ``config.toml`` trusts that very command, so ``.codex/hooks.json`` cannot fail for others.
- Both send ``SessionStart``, ``UserPromptSubmit``, ``PostToolUse`` (Codex names its shell tool
  ``Bash`` there too, with ``tool_input.command``), ``Stop`` and ``SessionEnd``; ``codex exec``
  sends no ``SessionEnd``, and Codex clamps a ``SessionEnd`` timeout to 3 s.
- Codex skips a command hook that is not trusted (``[hooks.state."<file>:<event>:<group>:
  <handler>"] trusted_hash`` in ``$CODEX_HOME/config.toml``, see :mod:`.codex`); Claude Code
  has no such step.
- MCP servers: Codex ``[mcp_servers.NAME]`` in ``config.toml`` (project ``.codex/`` or
  ``$CODEX_HOME``); Claude Code ``mcpServers`` in ``<project>/.mcp.json`` (read in every folder
  from the cwd up) or ``~/.claude.json``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillshelf.env import Env
from skillshelf.gitrepo import main_checkout
from skillshelf.skills.claude_settings import claude_state_file, project_settings_dir
from skillshelf.skills.roots import claude_user_dir

__all__ = [
    "AGENTS",
    "EVENTS",
    "Agent",
    "AgentFiles",
    "HookSpec",
    "SetupScope",
    "agent_files",
    "codex_hooks_root",
    "claude_state_file",
    "hook_command",
    "hook_specs",
    "is_our_command",
    "skillshelf_command",
]

Agent = Literal["codex", "claude"]
SetupScope = Literal["project", "user"]
AGENTS: tuple[Agent, ...] = ("codex", "claude")
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd")
MCP_NAME = "skillshelf"

#: PostToolUse matchers: Codex reports its shell tool as ``Bash``; Claude Code reads a SKILL.md
#: with ``Read`` and runs a skill with ``Skill`` as well.
_MATCHERS: Mapping[Agent, str] = {"codex": "Bash", "claude": "Bash|Read|Skill"}
#: Seconds the agent waits before it kills the hook (the hook answers well before: see runner).
_TIMEOUTS: Mapping[str, int] = {"SessionEnd": 3}
DEFAULT_TIMEOUT = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class HookSpec:
    """One hook entry skillshelf adds: the event, an optional tool matcher, the command."""

    event: str
    command: str
    timeout: int
    matcher: str | None = None

    def group(self) -> dict[str, object]:
        """The ``{"matcher"?, "hooks": [...]}`` group written into the agent's hooks file."""
        handler = {"type": "command", "command": self.command, "timeout": self.timeout}
        if self.matcher is None:
            return {"hooks": [handler]}
        return {"matcher": self.matcher, "hooks": [handler]}


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentFiles:
    """The files ``setup`` edits for one agent and scope."""

    agent: Agent
    scope: SetupScope
    hooks: Path  # JSON with a "hooks" table
    mcp: Path  # Codex: TOML [mcp_servers]; Claude Code: JSON "mcpServers"
    trust: Path | None  # Codex: $CODEX_HOME/config.toml (hook trust); None for Claude Code
    former_hooks: tuple[Path, ...] = ()  # where earlier setups put the hooks: moved out of them
    # the same hooks again: a Codex worktree's own .codex/hooks.json, which Codex 0.171.0 does
    # not run but whose folder makes it run the main checkout's (``hooks``)
    mirror_hooks: tuple[Path, ...] = ()

    @property
    def personal_hooks(self) -> bool:
        """The hooks go to a project's personal settings file, to be kept out of git."""
        return self.agent == "claude" and self.scope == "project"


def codex_hooks_root(env: Env) -> Path:
    """The folder whose ``.codex/hooks.json`` Codex runs and whose trust it asks for: the project
    root, or in a linked git worktree the main checkout (seen with Codex 0.171.0: from a
    worktree that has a ``.codex`` folder it runs the main checkout's hooks, never the
    worktree's own, though it reads the worktree's skills and AGENTS.md; without that folder,
    none)."""
    return main_checkout(env.project_root)


def agent_files(agent: Agent, scope: SetupScope, env: Env) -> AgentFiles:
    root = env.project_root
    if agent == "codex":
        config = root / ".codex" if scope == "project" else env.codex_home
        hooks = codex_hooks_root(env) / ".codex" if scope == "project" else env.codex_home
        return AgentFiles(
            agent=agent,
            scope=scope,
            hooks=hooks / "hooks.json",
            mcp=config / "config.toml",  # a worktree's own: Codex reads its config.toml (seen)
            trust=env.codex_home / "config.toml",
            mirror_hooks=(config / "hooks.json",) if config != hooks else (),
        )
    if scope == "project":
        settings = project_settings_dir(env)
        return AgentFiles(
            agent=agent,
            scope=scope,
            hooks=settings / "settings.local.json",
            mcp=root / ".mcp.json",
            trust=None,
            former_hooks=(settings / "settings.json",),
        )
    return AgentFiles(
        agent=agent,
        scope=scope,
        hooks=claude_user_dir(env) / "settings.json",
        mcp=claude_state_file(env),
        trust=None,
    )


def skillshelf_command(env: Env) -> list[str]:
    """How an agent should start skillshelf: this very installation, by absolute path.

    The console script that is running now when there is one, else ``skillshelf`` on the PATH,
    else this Python with ``-m skillshelf.cli.main``."""
    import shutil

    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "skillshelf" and argv0.exists():
        return [str(argv0.absolute())]
    found = shutil.which("skillshelf", path=env.environ.get("PATH", os.defpath))
    if found:
        return [found]
    return [sys.executable, "-m", "skillshelf.cli.main"]


def hook_command(prefix: list[str], agent: Agent, event: str) -> str:
    import shlex

    return shlex.join([*prefix, "hook", event, "--agent", agent])


def hook_specs(agent: Agent, prefix: list[str]) -> tuple[HookSpec, ...]:
    """Every hook entry skillshelf adds for ``agent``, in event order."""
    return tuple(
        HookSpec(
            event=event,
            command=hook_command(prefix, agent, event),
            timeout=_TIMEOUTS.get(event, DEFAULT_TIMEOUT),
            matcher=_MATCHERS[agent] if event == "PostToolUse" else None,
        )
        for event in EVENTS
    )


def is_our_command(command: object) -> bool:
    """Whether a hook command is one :func:`hook_command` writes: ``skillshelf hook ...`` by any
    path to the script, or ``PYTHON -m skillshelf.cli.main hook ...``, and nothing else (no
    other command before or after it through ``;``, ``&&``, ``|`` or the like)."""
    if not isinstance(command, str):
        return False
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return False
    if "hook" not in words or any(w and set(w) <= set(lexer.punctuation_chars) for w in words):
        return False
    before = words[: words.index("hook")]
    script = len(before) == 1 and Path(before[0]).name == "skillshelf"
    return script or (len(before) == 3 and before[1:] == ["-m", "skillshelf.cli.main"])
