"""The read path: what the next session gets from memory.

Agents read only the scope ``memory.scope`` writes now (:func:`memory_folders_for`): the
project's memory folder under ``project`` (the default), the global one under ``global``. After
a switch the other kind's folders stay on disk, unread, until the setting is switched back or
``memory prune --other-scopes`` deletes them. Codex reads its one global memory folder alone,
whatever the cwd. The setting comes in as a value (``setting``: the ``memory.scope`` text), read
from the config by the caller (:func:`scope_setting` for a loaded config).

- :func:`memory_summary_for` gives ``memory_summary.md`` of that folder, trimmed and cut in the
  middle to a token cap (``memory.summary_token_cap``, :func:`summary_token_cap`; 2,500 tokens by
  default, as Codex's read path); ``skillshelf context`` and the ``SessionStart`` hook put it in
  the model's context.
- :func:`search_memory` is the "quick memory pass": keyword search over ``MEMORY.md`` and the
  rollout summaries; the sessions whose memories it returns get a use counted, which ranks
  them higher (and keeps them from expiring) in the next consolidation.
- :func:`record_citations` counts a use for each session an agent's reply cites
  (``<oai-mem-citation>`` blocks, as Codex's read path asks agents to write), when its memory
  is of a scope the setting writes.
- :func:`memory_skill_roots` lists the ``skills/`` folders consolidation wrote (skill roots).

The summary and the lines come out redacted (:mod:`.read_redacted`: a file edited by hand, or
written by an older redactor, may hold a secret), whoever asks: the hooks and ``context`` for a
model, ``memory show`` and ``memory search`` for the user, who see what the model gets (the
files themselves are there to read as they are).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.env import Env
from skillshelf.errors import UsageError
from skillshelf.fileio import read_regular_text
from skillshelf.memory.layout import GLOBAL_SCOPE, is_other_scope, memory_project, project_scope, scope_dir
from skillshelf.memory.read_redacted import MAX_MEMORY_FILE_BYTES, redacted_file
from skillshelf.memory.settings import DEFAULT_SUMMARY_TOKEN_CAP, MemorySettings
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.config import Config

__all__ = [
    "MemoryHit",
    "MemorySummary",
    "memory_folders_for",
    "memory_skill_roots",
    "memory_summary_for",
    "parse_citations",
    "record_citations",
    "record_memory_use",
    "scope_setting",
    "search_memory",
    "summary_token_cap",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class MemorySummary:
    """The summary text as the model gets it, where it came from and whether it was cut."""

    text: str
    path: Path
    folder: Path
    scope: str
    tokens: int
    truncated: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "path": str(self.path),
            "folder": str(self.folder),
            "scope": self.scope,
            "tokens": self.tokens,
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryHit:
    """One matching line of a memory file, with a little context."""

    path: Path
    line: int
    text: str
    score: int
    session_id: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "line": self.line,
            "text": self.text,
            "score": self.score,
            "session_id": self.session_id,
        }


def scope_setting(config: Config) -> str:
    """``memory.scope`` of a loaded config (the table ``load_memory_settings`` reads), as
    written; the default when it is unset, ``""`` when it is not text."""
    value = config.get("memory.scope", MemorySettings().scope)
    return value if isinstance(value, str) else ""


def summary_token_cap(config: Config, *, on_bad: Callable[[UsageError], object] | None = None) -> int:
    """``memory.summary_token_cap`` of a loaded config, checked as the memory commands check it
    (100 to 100,000 tokens); :data:`DEFAULT_SUMMARY_TOKEN_CAP` when it is unset. With
    ``on_bad`` (a hook, which never fails), a value that cannot be used is handed to it and the
    default applies.

    Raises:
        UsageError: without ``on_bad``, a value that is not a number (``ME022``), not a whole
            one (``ME029``) or out of range (``ME027``).
    """
    value = config.get("memory.summary_token_cap")
    try:
        return MemorySettings().with_overrides(summary_token_cap=value).summary_token_cap  # None: default
    except UsageError as exc:
        if on_bad is None:
            raise
        on_bad(exc)
        return DEFAULT_SUMMARY_TOKEN_CAP


def memory_folders_for(env: Env, *, setting: str) -> list[tuple[str, Path]]:
    """(scope, folder) that agents read for ``env`` under ``memory.scope = setting``: the scope
    that setting writes (``env``'s project's, or the global one); none for a setting ``memory
    run`` refuses, since nothing is written under it."""
    if setting == "global":
        scope = GLOBAL_SCOPE
    elif setting == "project":
        scope = project_scope(memory_project(env.project_root))
    else:
        return []
    return [(scope, scope_dir(env.dirs.data, scope))]


def memory_summary_for(
    env: Env, *, setting: str, token_cap: int = DEFAULT_SUMMARY_TOKEN_CAP
) -> MemorySummary | None:
    """The memory summary agents in ``env`` read under ``memory.scope = setting``, redacted and
    cut in the middle to ``token_cap`` tokens; None when there is none."""
    for scope, folder in memory_folders_for(env, setting=setting):
        path = folder / "memory_summary.md"
        try:
            if folder.is_symlink() or not path.is_file():
                continue
        except OSError:
            continue
        raw = (redacted_file(path, cache=env.dirs.cache) or "").strip()
        if not raw:
            continue
        from skillshelf.memory.phase1 import truncate_middle  # only with a summary to cut

        text = truncate_middle(raw, token_cap)
        return MemorySummary(
            text=text,
            path=path,
            folder=folder,
            scope=scope,
            tokens=approx_tokens(text),
            truncated=text != raw,
        )
    return None


def memory_skill_roots(env: Env, *, setting: str) -> tuple[Path, ...]:
    """``skills/`` folders consolidation wrote that agents in ``env`` read under ``memory.scope =
    setting``."""
    folders = memory_folders_for(env, setting=setting)
    return tuple(folder / "skills" for _, folder in folders if (folder / "skills").is_dir())


_THREAD = re.compile(r"thread_id[=:]\s*`?([A-Za-z0-9_.:-]+)")
_WORD = re.compile(r"[\w.-]{2,}", re.UNICODE)


def _file_session(path: Path, lines: list[str]) -> str | None:
    if path.parent.name == "rollout_summaries" and lines:
        match = _THREAD.search(lines[0])
        return match.group(1) if match else None
    return None


def _nearest_thread(lines: list[str], index: int) -> str | None:
    for offset in range(0, 40):
        for j in (index + offset, index - offset):
            if 0 <= j < len(lines):
                match = _THREAD.search(lines[j])
                if match:
                    return match.group(1)
    return None


def _scores(lines: list[str], words: set[str]) -> list[int]:
    return [sum(line.lower().count(w) for w in words) for line in lines]


def _file_hits(path: Path, words: set[str], cache: Path) -> list[MemoryHit]:
    """The lines of ``path`` holding any of ``words``, scored on the redacted text (read
    redacted only when the file as it is holds one)."""
    try:
        lines = read_regular_text(path, limit=MAX_MEMORY_FILE_BYTES, errors="replace").splitlines()
    except OSError:
        return []
    if not any(_scores(lines, words)) or (text := redacted_file(path, cache=cache)) is None:
        return []
    shown = text.splitlines()
    if len(shown) != len(lines):  # changed between the two reads: its session ids are the new text's
        lines = shown
    owner = _file_session(path, lines)
    hits = []
    for n, score in enumerate(_scores(shown, words)):
        if score:
            session = owner or (_nearest_thread(lines, n) if path.name == "MEMORY.md" else None)
            hit = MemoryHit(
                path=path, line=n + 1, text=shown[n].strip()[:300], score=score, session_id=session
            )
            hits.append(hit)
    return hits


def search_memory(
    env: Env,
    query: str,
    *,
    setting: str,
    limit: int = 20,
    record_usage: bool = True,
    db: str | None = None,
) -> list[MemoryHit]:
    """Lines of ``MEMORY.md`` and rollout summaries matching the query's words, best first, in
    the folders agents in ``env`` read under ``memory.scope = setting``, redacted."""
    words = {w.lower() for w in _WORD.findall(query)}
    if not words:
        return []
    hits: list[MemoryHit] = []
    for _, folder in memory_folders_for(env, setting=setting):
        files = [folder / "MEMORY.md", *sorted((folder / "rollout_summaries").glob("*.md"))]
        for path in files:
            hits += _file_hits(path, words, env.dirs.cache)
    hits.sort(key=lambda h: (-h.score, str(h.path), h.line))
    hits = hits[:limit]
    used = list(dict.fromkeys(h.session_id for h in hits if h.session_id))
    if record_usage and used:
        _record_usage(used, db, env.dirs.data)
    return hits


def record_memory_use(session_ids: list[str], *, data_dir: Path, db: str | None = None) -> None:
    """Count a use for each of ``session_ids`` (their memories went into a model's context)."""
    if session_ids:
        _record_usage(list(dict.fromkeys(session_ids)), db, data_dir)


def _record_usage(
    session_ids: list[str], db: str | None, data_dir: Path, *, setting: str | None = None
) -> None:
    """Count the uses; with ``setting``, only of sessions whose memory is of a scope
    ``memory.scope = setting`` writes (agents read no other)."""
    from skillshelf.errors import SkillshelfError
    from skillshelf.memory.store import open_store

    try:
        with open_store(
            db, data_dir=data_dir, create=False, read_only=True
        ) as store:  # none: nothing to count
            if setting is not None:
                session_ids = [
                    s
                    for s in session_ids
                    if any(not is_other_scope(row.scope, setting) for row in store.outputs(session_id=s))
                ]
            store.record_usage(session_ids, now_ms=int(time.time() * 1000))
    except SkillshelfError:
        return  # usage counts are a ranking hint; a missing database must not break search


_CITATION_BLOCK = re.compile(
    r"<(?:oai-mem-citation|memory_citation)>(.*?)</(?:oai-mem-citation|memory_citation)>", re.DOTALL
)


_LINE_NUMBER = re.compile(r"[0-9]{1,9}")  # ASCII only: "²" passes str.isdigit, then fails int()


def _section(text: str, tag: str) -> list[str]:
    match = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.DOTALL)
    return [line.strip() for line in match.group(1).splitlines() if line.strip()] if match else []


def parse_citations(text: str) -> tuple[list[tuple[str, int, int, str]], list[str]]:
    """Memory citations in an agent's reply: ``(path, start, end, note)`` entries and the cited
    session ids (``<rollout_ids>`` or the older ``<thread_ids>``), de-duplicated in order."""
    block = _CITATION_BLOCK.search(text)
    body = block.group(1) if block else text
    entries: list[tuple[str, int, int, str]] = []
    for line in _section(body, "citation_entries"):
        location, _, note = line.rpartition("|note=[")
        path, _, lines = location.rpartition(":")
        start, _, end = lines.partition("-")
        if path and _LINE_NUMBER.fullmatch(start) and _LINE_NUMBER.fullmatch(end):
            entries.append((path, int(start), int(end), note.removesuffix("]")))
    ids = _section(body, "rollout_ids") or _section(body, "thread_ids")
    return entries, list(dict.fromkeys(ids))


def record_citations(text: str, *, data_dir: Path, setting: str, db: str | None = None) -> list[str]:
    """Count a use for every session a reply cites (feeds Phase 2's ranking) whose memory is of
    a scope ``memory.scope = setting`` writes, in the database ``db`` (default: the one in the
    user data folder ``data_dir``); returns the cited ids."""
    _, ids = parse_citations(text)
    if ids:
        _record_usage(ids, db, data_dir, setting=setting)
    return ids
