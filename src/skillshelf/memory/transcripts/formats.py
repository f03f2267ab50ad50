"""The transcript formats skillshelf reads, in the order they are tried.

Adding a format is one module beside ``codex.py`` (a sniff and a reader) and one entry here.
The order is the order of the sniffing (the first format whose ``sniff`` matches wins, then
the first whose ``fallback`` does) and of the default folders.
"""

from __future__ import annotations

from skillshelf.memory.transcripts import claude, codex, skillshelf
from skillshelf.memory.transcripts.model import TranscriptFormat

__all__ = ["TRANSCRIPT_FORMATS"]

TRANSCRIPT_FORMATS: tuple[TranscriptFormat, ...] = (
    TranscriptFormat(
        name="codex",
        sniff=codex.looks_like_codex,
        fallback=codex.looks_like_headless_codex,
        read=codex.read_codex,
        roots=lambda env, state_dir: (env.codex_home / "sessions",),
    ),
    TranscriptFormat(
        name="skillshelf",
        sniff=skillshelf.looks_like_skillshelf,
        read=skillshelf.read_skillshelf,
        roots=lambda env, state_dir: (state_dir / "transcripts",),
    ),
    TranscriptFormat(
        name="claude",
        sniff=claude.looks_like_claude,
        read=claude.read_claude,
        roots=lambda env, state_dir: (env.home / ".claude" / "projects",),
    ),
)
