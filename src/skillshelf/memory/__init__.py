"""skillshelf.memory: distil agent sessions into durable memories.

Transcripts in (``transcripts/``: Codex rollouts, Claude Code sessions, skillshelf's own),
a state store with leased jobs (``store/``: SQLite or PostgreSQL), Phase 1 (``phase1``: one
session -> raw memory + summary, after secret redaction by ``redact``), Phase 2 (``phase2``:
a project's memories -> ``memory_summary.md``, ``MEMORY.md``, ``skills/``), the run
orchestration (``service.run_memory``) and the read path (``read.memory_summary_for``).
Nothing heavy is imported here: the model SDKs and psycopg load only when used.
"""

__all__ = ["read", "redact", "service", "store", "transcripts"]
