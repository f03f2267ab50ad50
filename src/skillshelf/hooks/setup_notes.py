"""What ``setup`` tells the user beside its changes: notes on where the hooks went and when
the agent runs them, and :func:`other_scope`, the finding that skillshelf is set up at the
agent's other scope as well."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.env import Env
from skillshelf.errors import SkillshelfError
from skillshelf.hooks import jsonfile
from skillshelf.hooks.agents import Agent, AgentFiles, HookSpec, SetupScope, agent_files, codex_hooks_root
from skillshelf.hooks.claude import trust_dialog_accepted
from skillshelf.hooks.codex import codex_config, inline_hooks, project_trusted
from skillshelf.hooks.gitexclude import GitStanding
from skillshelf.hooks.setup_model import read_text

if TYPE_CHECKING:
    from skillshelf.config.trust import TrustDecision

__all__ = [
    "CODEX_UNREADABLE_MARK",
    "byte_order_mark_note",
    "notes",
    "other_scope",
    "users_left_note",
    "users_note",
    "users_reasons",
]

#: A UTF-8 byte-order mark: Claude Code reads a settings file that starts with one, Codex 0.171.0
#: cannot parse such a hooks.json ("failed to parse hooks config ... expected value at line 1
#: column 1") and runs none of its hooks.
CODEX_UNREADABLE_MARK = "\ufeff"

_NAMES = {"codex": "Codex", "claude": "Claude Code"}


def other_scope(env: Env, files: AgentFiles, specs: Sequence[HookSpec]) -> Diagnostic | None:
    """``HK130`` when the agent's other scope (user for project, project for user) already has
    hooks running skillshelf that the agent would run beside these: Codex runs every hook of
    both, so each call starts skillshelf twice; the call's claim (:mod:`.claims`) has the second
    do nothing, which still costs a process start. Claude Code runs an identical command once,
    so there only another command (another install, another path) counts."""
    other: SetupScope = "user" if files.scope == "project" else "project"
    there = agent_files(files.agent, other, env).hooks
    try:
        text = read_text(there)
        found = jsonfile.our_hooks(text, str(there)) if text else []
    except SkillshelfError:
        return None
    if files.agent == "codex":  # and those written inline in the config.toml beside it
        found += inline_hooks(codex_config(there.with_name("config.toml")))
    commands = {s.command for s in specs}
    twice = [h for h in found if files.agent == "codex" or h.command not in commands]
    if not twice:
        return None
    agent = files.agent
    where = "in this project" if other == "project" else "for your user"
    undo = f"`skillshelf setup {agent}" + (" --scope user" if other == "user" else "") + " --remove`"
    if other == "project":
        undo += f" in {env.project_root}"
    keep = f"skillshelf setup {agent}" + (" --scope user" if files.scope == "user" else "") + " --remove"
    events = ", ".join(dict.fromkeys(h.event for h in twice))
    return diagnostic(
        "HK130",
        Severity.WARNING,
        f"skillshelf is set up in {_NAMES[agent]} {where} too ({there}): {_NAMES[agent]} runs the hooks "
        f"of both, so each {events} call starts skillshelf twice; the second finds the call answered "
        "and does nothing else (`duplicate` in the hook log), a process start spent for nothing",
        f"keep one: run {undo} (or `{keep}` to take this one out again)",
        path=there,
    )


def users_note(path: Path, users: Sequence[jsonfile.OurHook], *, untrusted: bool) -> str:
    """The note for hooks of the user's own that run skillshelf, which setup leaves alone."""
    events = ", ".join(dict.fromkeys(h.event for h in users))
    note = (
        f"{path} already runs skillshelf for {events} with a hook of your own: setup leaves it as "
        "it is, adds none beside it, and `--remove` leaves it too"
    )
    return note + (" (Codex runs it once you trust it in its /hooks)" if untrusted else "")


def users_left_note(path: Path, users: Sequence[jsonfile.OurHook]) -> str:
    """The note of ``--remove`` for the hooks of the user's own that run skillshelf, which stay."""
    events = ", ".join(dict.fromkeys(h.event for h in users))
    return (
        f"{path} still runs skillshelf for {events} with a hook of your own, which `--remove` leaves: "
        "take it out of the file yourself if you want it gone"
    )


def users_reasons(path: Path, users: Sequence[jsonfile.OurHook], specs: Sequence[HookSpec]) -> list[str]:
    """What ``setup --status`` says of the user's own hooks running skillshelf in ``path``: one
    that is setup's but for its timeout (the user changed it) says so and what setup does."""
    wanted = {(s.event, s.command, s.matcher): s.timeout for s in specs}
    edited: dict[tuple[int | None, int], list[str]] = {}
    others: list[jsonfile.OurHook] = []
    for hook in users:
        timeout = wanted.get((hook.event, hook.command, hook.matcher))
        if timeout is None or timeout == hook.timeout:
            others.append(hook)
        else:
            edited.setdefault((hook.timeout, timeout), []).append(hook.event)
    reasons = [
        f"{path}: the {', '.join(dict.fromkeys(events))} hook{'s' if len(events) > 1 else ''} "
        f"{'run' if len(events) > 1 else 'runs'} skillshelf with "
        f"{f'a timeout of {theirs} s' if theirs is not None else 'no timeout'}, not the {ours} s setup "
        "writes: setup counts such a hook as your own, leaves it as it is, and `--remove` leaves it too "
        "(for setup's own, take it out of the file and run setup again)"
        for (theirs, ours), events in edited.items()
    ]
    return reasons + ([users_note(path, others, untrusted=False)] if others else [])


def notes(env: Env, files: AgentFiles, remove: bool, mcp: bool, git: GitStanding | None) -> list[str]:
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
    trust = _skillshelf_trust(env) if files.scope == "project" else None
    if files.scope == "project" and (trust is None or not trust.trusted):
        notes.append(_trust_note(env.project_root if trust is None else trust.root, files.agent))
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


def byte_order_mark_note(path: Path) -> str:
    """Codex's hooks file starts with a UTF-8 byte-order mark, which Codex 0.171.0 cannot parse
    (it warns and runs none of the file's hooks); setup writes the file without it."""
    return (
        f"{path} starts with a byte-order mark, which Codex cannot read (it runs none of the file's hooks): "
        "setup writes the file without the mark"
    )


def _skillshelf_trust(env: Env) -> TrustDecision | None:
    """skillshelf's own trust decision for the project (``skillshelf trust``), for the root the
    config loader finds; None when the config cannot be loaded (the note is worth giving)."""
    from skillshelf.config import load_config

    try:
        return load_config(env).trust
    except SkillshelfError:
        return None


def _trust_note(root: Path, agent: Agent) -> str:
    """skillshelf's own trust, which the agent's does not give: the hooks mark the project's
    skills ``[untrusted project]`` (a skill put back or pinned comes with a caution) and skip
    its ``.skillshelf`` config until the user trusts ``root``."""
    from skillshelf.config.trust import trust_command

    agents = "Codex's trust (`codex exec --trust`)" if agent == "codex" else "Claude Code's folder trust"
    return (
        f"skillshelf itself has not been told to trust {root}: the hooks mark the project's "
        "skills `[untrusted project]` (and skip its .skillshelf config) until you run "
        f"`{trust_command(root)}`; {agents} does not count for skillshelf"
    )


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
