"""skillshelf's own agent transcripts: the format the reference agent writes.

Files live in ``<user state folder> / "transcripts"`` (any ``*.jsonl`` below it; the agent
writes ``YYYY/MM/DD/<UTC time>-<session id>.jsonl``). Encoding UTF-8, one JSON object per line,
appended as things happen (a crash leaves at most one truncated last line, which readers skip).
Every object has ``type``, ``ts`` (ISO-8601 UTC, e.g. ``2026-05-01T12:00:00.000Z``) and
``cwd`` (absolute path); the rest depends on the type::

    {"type": "session_meta", "ts", "cwd", "id": "<uuid>", "agent": "skillshelf",
     "version": "0.1.0", "origin": "run" | "chat" | "subagent", "git_branch": "main" | null,
     "model": "openai:gpt-5.4"}                                   # first line, exactly once
    {"type": "message", "ts", "cwd", "role": "user" | "assistant" | "developer" | "system",
     "text": "..."}
    {"type": "tool_call", "ts", "cwd", "id": "<call id>", "name": "load_skill",
     "arguments": {...}}                                            # arguments: a JSON object
    {"type": "tool_result", "ts", "cwd", "id": "<call id>", "output": "...",
     "is_error": false}

``developer``/``system`` messages (injected instructions) are kept in the file but never sent
to the memory model. A session whose ``origin`` is ``subagent`` (for example the memory
consolidation agent itself) is never turned into memories. Unknown types and keys are ignored,
so the format can grow. :class:`TranscriptWriter` writes files in this format.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from skillshelf.dirs import open_private, private_dir
from skillshelf.memory.redact import redact
from skillshelf.memory.redact.echoes import NO_SECRETS, KnownSecrets
from skillshelf.memory.transcripts.jsonl import read_jsonl
from skillshelf.memory.transcripts.model import Item, Session, folder_field, parse_time, text_field

__all__ = [
    "TranscriptWriter",
    "looks_like_skillshelf",
    "new_transcript",
    "read_skillshelf",
    "transcript_path",
]


def looks_like_skillshelf(first: dict[str, object]) -> bool:
    return first.get("type") == "session_meta" and "payload" not in first and "ts" in first


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def transcript_path(state_dir: Path, session_id: str, *, started: datetime | None = None) -> Path:
    """Where a new transcript goes: ``<state>/transcripts/YYYY/MM/DD/<time>-<id>.jsonl``."""
    when = (started or datetime.now(UTC)).astimezone(UTC)
    return (
        state_dir
        / "transcripts"
        / when.strftime("%Y/%m/%d")
        / f"{when.strftime('%Y-%m-%dT%H-%M-%S')}-{session_id}.jsonl"
    )


class TranscriptWriter:
    """Append records in the skillshelf transcript format; flushed after every line.

    Every line is redacted before it is written (task text, tool arguments and output, the
    model's replies: each string on its own, see :mod:`skillshelf.memory.redact`); from the
    first secret on, every line is also scrubbed of the secrets redaction took out of the
    lines so far, so a reply that repeats one bare does not keep it
    (:mod:`skillshelf.memory.redact.echoes`). The file is private: 0600 in folders created
    0700."""

    def __init__(self, path: Path, *, session_id: str, cwd: Path, origin: str = "run", **meta: Any) -> None:
        private_dir(path.parent)
        self.path = path
        self._cwd = str(cwd)
        self._file: IO[str] = open_private(path)
        self._known = NO_SECRETS
        self._write(
            {"type": "session_meta", "id": session_id, "agent": "skillshelf", "origin": origin, **meta}
        )

    def _write(self, record: dict[str, Any]) -> None:
        line = {"type": record.pop("type"), "ts": _now(), "cwd": self._cwd, **record}
        # a lone surrogate (a model may send "\ud800" in a tool argument) stays a JSON escape
        text = json.dumps(line, ensure_ascii=False).encode("utf-8", "backslashreplace").decode("utf-8")
        redaction = redact(text, known=self._known)
        self._known |= KnownSecrets.of(redaction.removed)
        self._file.write(redaction.text + "\n")
        self._file.flush()

    def message(self, role: str, text: str) -> None:
        self._write({"type": "message", "role": role, "text": text})

    def tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        self._write({"type": "tool_call", "id": call_id, "name": name, "arguments": arguments})

    def tool_result(self, call_id: str, output: str, *, is_error: bool = False) -> None:
        self._write({"type": "tool_result", "id": call_id, "output": output, "is_error": is_error})

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def new_transcript(state_dir: Path, *, cwd: Path, origin: str, **meta: Any) -> TranscriptWriter:
    """A transcript for a new session (a fresh id) under the state folder ``state_dir``."""
    import uuid

    session_id = str(uuid.uuid4())
    path = transcript_path(state_dir, session_id)
    return TranscriptWriter(path, session_id=session_id, cwd=cwd, origin=origin, **meta)


def _item(obj: dict[str, object]) -> Item | None:
    kind = obj.get("type")
    if kind == "message" and isinstance(obj.get("text"), str):
        return Item(kind="message", role=text_field(obj.get("role")) or "user", parts=(str(obj["text"]),))
    if kind == "tool_call":
        args = obj.get("arguments")
        text = (
            args
            if isinstance(args, str)
            else json.dumps(args if args is not None else {}, ensure_ascii=False)
        )
        return Item(
            kind="tool_call",
            role="assistant",
            parts=(text,),
            name=text_field(obj.get("name")) or "tool",
            call_id=str(obj.get("id") or "") or None,
        )
    if kind == "tool_result":
        output = obj.get("output")
        return Item(
            kind="tool_result",
            role="tool",
            parts=(output if isinstance(output, str) else json.dumps(output),),
            call_id=str(obj.get("id") or "") or None,
            is_error=bool(obj.get("is_error")),
        )
    return None


def read_skillshelf(path: Path) -> Session:
    """Read one skillshelf transcript into a :class:`Session`."""
    lines = read_jsonl(path)
    meta: dict[str, object] = {}
    items: list[Item] = []
    times = []
    cwd: Path | None = None
    for obj in lines:
        stamp = parse_time(obj.get("ts"))
        if stamp:
            times.append(stamp)
        cwd = cwd or folder_field(obj.get("cwd"))
        if obj.get("type") == "session_meta":
            meta = meta or obj
            continue
        item = _item(obj)
        if item:
            items.append(item)
    origin = text_field(meta.get("origin"))
    branch = text_field(meta.get("git_branch"))
    return Session(
        id=text_field(meta.get("id")) or path.stem,
        source="skillshelf",
        path=path,
        cwd=cwd,
        started_at=min(times) if times else None,
        ended_at=max(times) if times else None,
        items=tuple(items),
        git_branch=branch or None,
        origin=origin,
        subagent=origin == "subagent",
        skipped_lines=lines.skipped,
    )
