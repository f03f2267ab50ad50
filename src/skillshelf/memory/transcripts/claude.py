"""Claude Code session files (``~/.claude/projects/<escaped-cwd>/<session-id>.jsonl``).

Lines with ``type`` ``user`` or ``assistant`` carry ``message`` (Anthropic Messages format:
text, ``tool_use``, ``tool_result``, thinking), ``cwd``, ``gitBranch``, ``sessionId`` and a
timestamp. Attachments, queue operations, summaries, meta messages and side chains (sub-agents)
are left out; thinking and images are dropped.

A sub-agent's transcript (``<session-id>/subagents/agent-<id>.jsonl``) repeats its parent's
``sessionId``; it is keyed ``<session-id>/agent-<id>`` so that it never stands for its parent.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillshelf.memory.transcripts.jsonl import read_jsonl
from skillshelf.memory.transcripts.model import Item, Session, folder_field, parse_time, text_field

__all__ = ["looks_like_claude", "read_claude", "session_key"]


def looks_like_claude(first: dict[str, object]) -> bool:
    kind = first.get("type")
    return isinstance(first.get("sessionId"), str) or kind in (
        "queue-operation",
        "summary",
        "file-history-snapshot",
    )


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _blocks(role: str, content: object) -> list[Item]:
    if isinstance(content, str):
        return [Item(kind="message", role=role, parts=(content,))] if content else []
    items: list[Item] = []
    texts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(str(block["text"]))
        elif kind == "tool_use":
            items.append(
                Item(
                    kind="tool_call",
                    role="assistant",
                    name=str(block.get("name") or "tool"),
                    parts=(json.dumps(block.get("input", {}), ensure_ascii=False),),
                    call_id=str(block.get("id") or "") or None,
                )
            )
        elif kind == "tool_result":
            items.append(
                Item(
                    kind="tool_result",
                    role="tool",
                    parts=(_result_text(block.get("content")),),
                    call_id=str(block.get("tool_use_id") or "") or None,
                    is_error=bool(block.get("is_error")),
                )
            )
    if texts:
        items.insert(0, Item(kind="message", role=role, parts=tuple(texts)))
    return items


def session_key(session_id: str, path: Path, *, subagent: bool) -> str:
    """The key of the session in ``path``: its ``sessionId`` (else the file's name), and for a
    sub-agent's file, whose lines carry its parent's id, that id and the file's name."""
    if not subagent:
        return session_id or path.stem
    parent = session_id or (path.parent.parent.name if path.parent.name == "subagents" else "")
    return f"{parent}/{path.stem}" if parent and parent != path.stem else path.stem


def read_claude(path: Path) -> Session:
    """Read one Claude Code session file into a :class:`Session`."""
    lines = read_jsonl(path)
    items: list[Item] = []
    times = []
    session_id = branch = entry = ""
    cwd: Path | None = None
    sidechain_only = True
    saw_turns = False
    for obj in lines:
        stamp = parse_time(obj.get("timestamp"))
        if stamp:
            times.append(stamp)
        session_id = session_id or text_field(obj.get("sessionId"))
        kind = obj.get("type")
        if kind not in ("user", "assistant"):
            continue
        saw_turns = True
        cwd = cwd or folder_field(obj.get("cwd"))
        branch = branch or text_field(obj.get("gitBranch"))
        entry = entry or text_field(obj.get("entrypoint"))
        if obj.get("isSidechain"):
            continue
        sidechain_only = False
        message = obj.get("message")
        if obj.get("isMeta") or not isinstance(message, dict):
            continue
        items += _blocks(text_field(message.get("role")) or str(kind), message.get("content"))
    subagent = "subagents" in path.parts or (saw_turns and sidechain_only)
    return Session(
        id=session_key(session_id, path, subagent=subagent),
        source="claude",
        path=path,
        cwd=cwd,
        started_at=min(times) if times else None,
        ended_at=max(times) if times else None,
        items=tuple(items),
        git_branch=branch if branch and branch != "HEAD" else None,
        origin=entry,
        subagent=subagent,
        skipped_lines=lines.skipped,
    )
