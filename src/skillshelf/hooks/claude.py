"""What decides whether Claude Code 2.1.197 runs a hook from its settings files.

Read from the pinned CLI's own settings code:

- Settings layers, lowest first: user (``~/.claude/settings.json``, or ``$CLAUDE_CONFIG_DIR``),
  project (``.claude/settings.json``), local (``.claude/settings.local.json``), the command
  line, and managed policy (``/etc/claude-code/managed-settings.json`` plus
  ``managed-settings.d/*.json`` on Linux). Hooks of every layer are combined. The project and
  local files are those of the folder Claude Code starts in, never of a folder above it.
- ``disableAllHooks: true`` in managed policy turns every hook off; in any other layer (the
  highest that sets the key wins) it turns off all hooks but managed ones. Managed
  ``allowManagedHooksOnly: true`` (or ``strictPluginOnlyCustomization`` naming ``hooks``) keeps
  only managed hooks; so does ``CLAUDE_CODE_SAFE_MODE``.
- ``claude -p`` runs project hooks at once; an interactive session first asks the user to trust
  the folder (``projects[<folder>].hasTrustDialogAccepted`` in ``~/.claude.json``, a parent
  folder's acceptance counts).
"""

from __future__ import annotations

from skillshelf.env import Env
from skillshelf.skills.claude_settings import (
    claude_flag,
    claude_project_key,
    claude_state_file,
    managed_settings,
    read_json,
    settings_layers,
)

__all__ = ["hook_blockers", "read_json", "trust_dialog_accepted"]


def hook_blockers(env: Env) -> list[str]:
    """Why Claude Code would not run skillshelf's hooks here (empty: it will run them); the
    managed policy is the one in ``env.claude_managed_dir``."""
    policy = managed_settings(env.claude_managed_dir)
    where = env.claude_managed_dir / "managed-settings.json"
    if policy.get("disableAllHooks") is True:
        return [f"managed policy ({where}) sets disableAllHooks: no hook runs"]
    reasons = []
    strict = policy.get("strictPluginOnlyCustomization")
    if (
        policy.get("allowManagedHooksOnly") is True
        or strict is True
        or (isinstance(strict, list) and "hooks" in strict)
    ):
        reasons.append(f"managed policy ({where}) allows managed hooks only")
    disabled = None
    for name, settings in settings_layers(env):
        if isinstance(settings.get("disableAllHooks"), bool):
            disabled = (name, settings["disableAllHooks"])
    if disabled is not None and disabled[1]:
        reasons.append(f"disableAllHooks is set in the {disabled[0]} settings")
    if claude_flag(env.environ, "CLAUDE_CODE_SAFE_MODE"):
        reasons.append("CLAUDE_CODE_SAFE_MODE is set: only managed hooks run")
    return reasons


def trust_dialog_accepted(env: Env) -> bool:
    """Whether an interactive Claude Code session here already trusts the folder: its project's
    entry (the repository root, a worktree's main checkout) or the cwd's or a parent's accepts
    it, or ``CLAUDE_CODE_SANDBOXED`` says the session runs in a sandbox."""
    if claude_flag(env.environ, "CLAUDE_CODE_SANDBOXED"):
        return True
    state = read_json(claude_state_file(env))
    projects = state.get("projects")
    if not isinstance(projects, dict):
        return False
    folder = env.cwd
    for candidate in (claude_project_key(folder), *map(str, (folder, *folder.parents))):
        entry = projects.get(candidate)
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
    return False
