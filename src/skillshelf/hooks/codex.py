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
- **Memories.** Codex injects its own memory summary when ``features.memories`` is on and
  ``memories.use_memories`` is not false; skillshelf's ``SessionStart`` hook then stays quiet
  by default (``hooks.session_memory``).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

from skillshelf.fileio import read_toml_text
from skillshelf.hooks.jsonfile import OurHook

__all__ = [
    "codex_config",
    "codex_memories_on",
    "project_trusted",
    "snake_event",
    "trust_hash",
    "trust_key",
    "trusted_hashes",
]

DEFAULT_TIMEOUT = 600


def snake_event(event: str) -> str:
    """``UserPromptSubmit`` -> ``user_prompt_submit``."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def trust_key(hooks_file: Path, hook: OurHook) -> str:
    return f"{hooks_file}:{snake_event(hook.event)}:{hook.group}:{hook.handler}"


def trust_hash(hook: OurHook) -> str:
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


def codex_config(path: Path) -> dict[str, Any]:
    """A Codex ``config.toml`` as data; a missing or unreadable file reads as empty."""
    try:
        return tomllib.loads(read_toml_text(path))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
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
