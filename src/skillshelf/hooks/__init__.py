"""skillshelf inside Codex and Claude Code, through their hooks.

- ``setup`` writes (and takes out) skillshelf's hook entries, the trust Codex asks for and,
  on request, the MCP server entry, in the agents' own configuration files
  (:mod:`.setup`, byte-preserving edits in :mod:`.jsonfile` and :mod:`.tomlblock`), and
  reports what is installed where and whether the agent will run it (:mod:`.status`);
- ``skillshelf hook EVENT`` answers one hook call (:mod:`.runner`): the per-prompt skill
  suggestions and relevant memories (``UserPromptSubmit``), the memory summary and, after a
  compaction, the skills the session had loaded (``SessionStart``, :mod:`.reattach`), the
  transcript queued for the memory pipeline (``Stop``, ``SessionEnd``) and implicit skill use
  recorded (``PostToolUse``), in the agent's own answer format (:mod:`.answer`). A hook never
  breaks the agent: whatever goes wrong, it answers nothing, exits 0 and writes the problem to
  skillshelf's hook log;
- the hook server (:mod:`.server`, its address in :mod:`.address`) answers hooks from one warm
  process, as each hook would have answered by itself.

Nothing heavy is imported here: a hook process loads only what its event needs.
"""

__all__ = [
    "address",
    "agents",
    "answer",
    "claude",
    "codex",
    "deadlines",
    "events",
    "jsonedit",
    "jsonfile",
    "payload",
    "reattach",
    "runner",
    "server",
    "settings",
    "setup",
    "status",
    "tomlblock",
    "turn",
]
