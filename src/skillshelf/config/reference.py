"""The reference of skillshelf's config keys (docs/config.md, written by
``scripts/config_reference.py``): what each key does, its default and the commands that read it,
which :mod:`.schema` puts on each key's spec. The check of a layer does not read it.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["REFERENCE"]

_SKILLS = "list, catalog, context, load, search, eval, serve, ui, run, chat, hook"
_CATALOG = "catalog, context, serve, ui, run, chat, hook"
_SELECT = _CATALOG.replace("catalog", "search")
_BUDGET = _CATALOG.replace("serve", "serve (below 8,000 characters)")
_INSTR, _HOOKS, _UNREAD = "instructions, config show, " + _CATALOG, "hook, hook-server", "none (unused)"

#: Each key of :data:`~skillshelf.config.schema.SCHEMA` (free keys as ``*``): what it does, its default,
#: the commands that read it.
REFERENCE: Mapping[str, tuple[str, str, str]] = {
    "project_root_markers": ("names marking a project's root (system, user, -c only)", '[".git"]', "all"),
    "skills.builtin": ("include skillshelf's built-in skills", "true", _SKILLS),
    "skills.claude": ("include Claude Code's skill folders (.claude/skills, its plugins)", "true", _SKILLS),
    "skills.include_instructions": ("Codex's switch: put the skills list in the context", "true", _CATALOG),
    "skills.roots": ("more folders to find skills in", "[]", _SKILLS),
    "skills.config": ("per-skill entries: see [[skills.config]]", "[]", f"{_SKILLS}; enable, disable"),
    "skills.bundled.enabled": ("include Codex's bundled system skills", "true", _SKILLS),
    "skills.max_context_tokens": ("Codex's name for catalog.budget_tokens (which wins)", "none", _BUDGET),
    "catalog.format": ("the catalog format when a command names none", "codex", _CATALOG),
    "catalog.budget_tokens": ("the catalog's token budget (else 2% of the window)", "none", _BUDGET),
    "catalog.context_window": ("the model's window, which sizes the catalog", "Codex's model", _BUDGET),
    "instructions.profile": ("codex: AGENTS.md layers; claude: CLAUDE.md layers", "codex", _INSTR),
    "instructions.max_bytes": ("byte cap of AGENTS.md text (over project_doc_max_bytes)", "Codex's", _INSTR),
    "instructions.fallback_filenames": ("names read where no AGENTS.md is (over Codex's)", "Codex's", _INSTR),
    "select.min_confidence": ("percent below which no skill is suggested; 0: always", "calibrated", _SELECT),
    "select.max_suggestions": ("most skills suggested for a task", "5", _SELECT),
    "install.dir": ("reserved: `install` does not read it", "none", _UNREAD),
    "install.scope": (
        "where `install` puts a skill without --scope (`update`, `remove` look in both)",
        "user",
        "install",
    ),
    "install.agents": ("the agents `install` targets without --for", "agents found here", "install"),
    "hooks.suggestions": ("prompt hook: skills ranked for the prompt", "true", _HOOKS),
    "hooks.memory": ("prompt hook: memory lines that match the prompt", "true", _HOOKS),
    "hooks.session_memory": (
        "session start: memory summary (auto: not with Codex's memories)",
        "auto",
        _HOOKS,
    ),
    "hooks.memory_run": (
        "after a session, start `memory run --queued` when the extraction model can be called (its "
        "key or memory.base_url set): both phases, or Phase 1 alone while the consolidation model cannot",
        "auto",
        _HOOKS,
    ),
    "hooks.usage": ("record the skills the agent uses", "true", _HOOKS),
    "hooks.suggestion_tokens": ("token budget of the suggestions", "1500", _HOOKS),
    "hooks.memory_tokens": ("token budget of the memory lines", "400", _HOOKS),
    "hooks.server": ("keep a hook server warm (SKILLSHELF_HOOK_SERVER=0: off)", "true", _HOOKS),
    "hooks.server_idle_minutes": ("the hook server exits after this long idle", "30", _HOOKS),
    "projects.*.trust_level": (
        "whether the project's config applies (the key: an absolute path)",
        "untrusted",
        "all; trust, untrust",
    ),
    "requirements.required_skills": ("skills that must be present and load (union of layers)", "[]", _SKILLS),
    "requirements.disabled_skills": ("skills that are off whatever an entry says (union)", "[]", _SKILLS),
    "requirements.allow_builtin_skills": ("false: no built-in skills (never back on)", "true", _SKILLS),
    "requirements.allow_project_config": (
        "false: no project's .skillshelf/config.toml (system, user, -c only)",
        "true",
        "all",
    ),
    "requirements.max_catalog_tokens": ("cap on the catalog budget (only lowered)", "none", _CATALOG),
    "requirements.allowed_install_sources": (
        "install sources as globs (only narrowed)",
        "any",
        "install, update",
    ),
    "mcp_servers": (
        "not read by any agent: `deps --write` adds servers to Codex's $CODEX_HOME/config.toml; `deps` "
        "names a server listed only here",
        "{}",
        "deps",
    ),
    "memory": ("the memory pipeline: see [memory] below", "", "memory, hook"),
    "model": ("reserved", "", _UNREAD),
    "serve": ("reserved", "", _UNREAD),
    "agent": ("the `run` and `chat` agent", "", "run, chat"),
    "agent.shadow_metrics": ("record every selector's candidates per turn (stats)", "false", "run, chat"),
    "agent.context_window": (
        "the model's window in tokens: compaction keeps each call within it, less the output limit "
        "(--context-window wins)",
        "none: compaction past 120,000 tokens",
        "run, chat",
    ),
    "agent.max_output_tokens": (
        "most tokens one reply may take (anthropic: max_tokens, 4096 unless set; openai: sent only "
        "when set, as max_completion_tokens, or max_tokens with --base-url); --max-output-tokens wins",
        "4096",
        "run, chat",
    ),
}
