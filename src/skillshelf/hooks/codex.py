"""What Codex 0.171.0 checks before it runs a command hook, computed the way Codex does.

Checked against the pinned CLI (``codex exec`` against ``model-standin``):

- **Project trust.** Project-local configuration, hooks included, is ignored (with a warning)
  until ``$CODEX_HOME/config.toml`` has ``[projects."<root>"] trust_level = "trusted"`` (Codex
  writes it when the user accepts its trust prompt, or ``codex exec --trust``).
- **Hook trust.** A hook that is not managed runs only when ``[hooks.state."<key>"]
  trusted_hash`` in ``$CODEX_HOME/config.toml`` equals its current hash; otherwise ``codex
  exec`` skips it without a word. The key is ``<hooks file>:<event in snake case>:<group
  index>:<handler index>``. The hash is ``sha256:`` + the SHA-256 of the compact JSON, keys
  sorted, of ``{"event_name", "hooks": [{"type", "command", "timeout", "async"}]}`` plus
  ``matcher`` when the group has one (``timeout`` defaults to 600, ``async`` to false).
- **Hooks inline in config.toml.** ``[[hooks.EVENT]]`` groups of ``[[hooks.EVENT.hooks]]``
  handlers in a layer's ``config.toml`` run beside its ``hooks.json``'s; their trust key names
  that ``config.toml`` (:func:`inline_hooks`).
- **Memories.** Codex injects its own memory summary when ``features.memories`` is on and
  ``memories.use_memories`` is not false; skillshelf's ``SessionStart`` hook then stays quiet
  by default (``hooks.session_memory``).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillshelf.fileio import BYTE_ORDER_MARK, read_toml_text
from skillshelf.hooks.agents import HookSpec, is_our_command
from skillshelf.hooks.jsonfile import (
    OurHook,
    Position,
    Recorded,
    handler_positions,
    moved_handlers,
    our_hooks,
    users_hooks,
)

__all__ = [
    "TrustChange",
    "codex_config",
    "codex_memories_on",
    "inline_hooks",
    "parse_config",
    "project_trusted",
    "snake_event",
    "trust_change",
    "trust_hash",
    "trust_key",
    "trusted_hashes",
]

DEFAULT_TIMEOUT = 600


def snake_event(event: str) -> str:
    """``UserPromptSubmit`` -> ``user_prompt_submit``."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def trust_key(hooks_file: Path, hook: OurHook | Position) -> str:
    """``<hooks file>:<event in snake case>:<group index>:<handler index>``."""
    return f"{hooks_file}:{snake_event(hook.event)}:{hook.group}:{hook.handler}"


def trust_hash(hook: OurHook | HookSpec) -> str:
    handler = {
        "type": "command",
        "command": hook.command,
        "timeout": hook.timeout if hook.timeout is not None else DEFAULT_TIMEOUT,
        "async": False,
    }
    identity: dict[str, object] = {"event_name": snake_event(hook.event), "hooks": [handler]}
    if hook.matcher is not None:
        identity["matcher"] = hook.matcher
    compact = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(compact.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustChange:
    """How setup changes the ``hooks.state`` entries of one hooks file (keys as Codex writes them)."""

    wanted: dict[str, str]  # key -> hash, for each of our handlers in the file as it will be
    ours: frozenset[str]  # entries that are ours: to update, or take out when not wanted
    renames: dict[str, str]  # the user's own entries whose handler moved: old key -> new key
    users: frozenset[str]  # the keys of the user's own handlers in the file as it will be


def trust_change(
    hooks_file: Path,
    before: str | None,
    after: str | None,
    specs: Sequence[HookSpec],
    *,
    ours_if_hash: Mapping[str, object],
    present: Collection[str],
    recorded: tuple[Recorded, Recorded] = (None, None),
) -> TrustChange:
    """The trust entries to write, take out and move when ``hooks_file`` goes from ``before`` to
    ``after`` (None: no file).

    Ours are the entries keyed by a position one of our handlers held before, and those of
    ``ours_if_hash`` (setup's own block) whose hash is one of our handlers' (a position we no
    longer hold). The user's own handlers (one running skillshelf that setup did not write
    counts: ``recorded`` before and after, see :func:`.jsonfile.our_hooks`) keep their trust:
    an entry of ``present`` whose handler moved is renamed to its new key, and the entry at
    the key of one that stays where it was is never ours, unless it is in setup's block with
    the hash of one of our handlers that is not the user's handler's own (the position was
    ours when setup wrote it; the user put their hook there since).

    Raises:
        ConfigError: ``before`` or ``after`` is not a hooks file setup can read.
    """
    where = str(hooks_file)
    old, new = recorded
    mine = our_hooks(after, where, new) if after else []
    had = our_hooks(before, where, old) if before else []
    places = handler_positions(before, where, old) if before else {}
    hashes = {trust_hash(s) for s in specs} | {trust_hash(h) for h in had}
    ours = {trust_key(hooks_file, p) for p, is_ours in places.items() if is_ours}
    ours |= {k for k, h in ours_if_hash.items() if k.startswith(f"{where}:") and h in hashes}
    moves = moved_handlers(before, after, where, recorded) if before and after else {}
    users = handler_positions(after, where, new) if after else {}
    stayed = {p for p, is_ours in users.items() if not is_ours and places.get(p) is False}
    theirs = (
        {trust_key(hooks_file, h): trust_hash(h) for h in users_hooks(after, where, new)} if after else {}
    )
    ours -= {
        key
        for key in (trust_key(hooks_file, p) for p in stayed - set(moves.values()))
        if not _stale_in_block(ours_if_hash.get(key), hashes, theirs.get(key))
    }
    return TrustChange(
        wanted={trust_key(hooks_file, h): trust_hash(h) for h in mine},
        ours=frozenset(ours),
        renames={
            trust_key(hooks_file, old): trust_key(hooks_file, new)
            for old, new in moves.items()
            if trust_key(hooks_file, old) in present
        },
        users=frozenset(trust_key(hooks_file, p) for p, is_ours in users.items() if not is_ours),
    )


def _stale_in_block(found: object, hashes: Collection[str], theirs: str | None) -> bool:
    """Whether setup's block holds, at the key of a user's handler, the trust of one of our
    handlers (``hashes``) that is not that handler's own (``theirs``: its hash when it runs
    skillshelf too): a position our hook held before the user put theirs there. Such an entry
    trusts nothing the file holds, and is setup's to take out."""
    return isinstance(found, str) and found in hashes and found != theirs


def codex_config(path: Path) -> dict[str, Any]:
    """A Codex ``config.toml`` as data; a missing or unreadable file reads as empty."""
    try:
        return parse_config(read_toml_text(path))
    except (OSError, UnicodeDecodeError):
        return {}


def parse_config(text: str) -> dict[str, Any]:
    """The text of a Codex ``config.toml`` as data; text that is not TOML reads as empty."""
    try:
        return tomllib.loads(text.removeprefix(BYTE_ORDER_MARK))
    except (tomllib.TOMLDecodeError, RecursionError):
        return {}


def trusted_hashes(config: dict[str, Any]) -> dict[str, str]:
    """``hooks.state`` keys -> their ``trusted_hash``."""
    state = config.get("hooks", {}).get("state", {}) if isinstance(config.get("hooks"), dict) else {}
    if not isinstance(state, dict):
        return {}
    return {
        str(k): str(v["trusted_hash"])
        for k, v in state.items()
        if isinstance(v, dict) and isinstance(v.get("trusted_hash"), str)
    }


def project_trusted(config: dict[str, Any], root: Path) -> bool | None:
    """True/False when ``[projects."<root>"]`` says trusted/untrusted, None when it says nothing."""
    projects = config.get("projects")
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    level = entry.get("trust_level") if isinstance(entry, dict) else None
    return None if level is None else level == "trusted"


def inline_hooks(config: Mapping[str, Any]) -> list[OurHook]:
    """The handlers written inline in a Codex ``config.toml`` (parsed) that run skillshelf, in
    file order, by their trust key's group and handler index; ``member`` is -1 (no hooks file
    holds them). Setup never writes one: each is the user's own."""
    hooks = config.get("hooks")
    found: list[OurHook] = []
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if not isinstance(handler, dict) or not is_our_command(handler.get("command")):
                    continue
                timeout, matcher = handler.get("timeout"), group.get("matcher")
                found.append(
                    OurHook(
                        event=str(event),
                        group=g,
                        handler=h,
                        member=-1,
                        command=str(handler["command"]),
                        timeout=timeout
                        if isinstance(timeout, int) and not isinstance(timeout, bool)
                        else None,
                        matcher=matcher if isinstance(matcher, str) else None,
                    )
                )
    return found


def codex_memories_on(*configs: dict[str, Any]) -> bool:
    """Whether Codex's own memories are injected (later configs win, as Codex layers them)."""
    enabled, use = False, True
    for config in configs:
        features = config.get("features")
        if isinstance(features, dict) and isinstance(features.get("memories"), bool):
            enabled = features["memories"]
        memories = config.get("memories")
        if isinstance(memories, dict) and isinstance(memories.get("use_memories"), bool):
            use = memories["use_memories"]
    return enabled and use
