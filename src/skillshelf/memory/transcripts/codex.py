"""Codex rollout files (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``).

Each line is ``{"timestamp", "type", "payload"}``. ``session_meta`` gives the id, cwd, git
branch and origin (``source``); ``response_item`` lines hold the conversation (messages,
function/custom/local-shell calls and their outputs, web searches). Everything else
(``event_msg``, ``turn_context``, token counts, reasoning) is left out, like Codex's own memory
input. Older rollouts without the ``payload`` wrapper are read too.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillshelf.memory.transcripts.jsonl import read_jsonl
from skillshelf.memory.transcripts.model import Item, Session, folder_field, parse_time, text_field

__all__ = ["looks_like_codex", "looks_like_headless_codex", "read_codex"]

_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call"}
_OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output", "tool_search_output"}


def looks_like_codex(first: dict[str, object]) -> bool:
    payload = first.get("payload")
    return first.get("type") == "session_meta" and isinstance(payload, dict)


def _text_parts(content: object) -> tuple[str, ...]:
    if isinstance(content, str):
        return (content,)
    parts: list[str] = []
    if isinstance(content, list):
        parts.extend(
            str(b["text"]) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return tuple(parts)


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        content = output.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(_text_parts(content)) or json.dumps(output, ensure_ascii=False)
    if isinstance(output, list):
        return "\n".join(_text_parts(output))
    return "" if output is None else json.dumps(output, ensure_ascii=False)


def _call_item(kind: str, payload: dict[str, object]) -> Item:
    name = str(payload.get("name") or kind.removesuffix("_call"))
    if kind == "function_call":
        args = payload.get("arguments")
    elif kind == "custom_tool_call":
        args = payload.get("input")
    else:
        args = payload.get("action") or payload.get("arguments")
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return Item(
        kind="tool_call",
        role="assistant",
        parts=(text,),
        name=name,
        call_id=str(payload.get("call_id") or payload.get("id") or "") or None,
    )


def _item(payload: dict[str, object]) -> Item | None:
    kind = str(payload.get("type") or "")
    if kind == "message":
        role = str(payload.get("role") or "user")
        return Item(kind="message", role=role, parts=_text_parts(payload.get("content")))
    if kind in _CALL_TYPES:
        return _call_item(kind, payload)
    if kind in _OUTPUT_TYPES:
        return Item(
            kind="tool_result",
            role="tool",
            parts=(_output_text(payload.get("output")),),
            call_id=str(payload.get("call_id") or "") or None,
        )
    return None


def _origin(source: object) -> tuple[str, bool]:
    if isinstance(source, str):
        return source, source.lower().startswith("subagent")
    if isinstance(source, dict):
        key = next(iter(source), "")
        return str(key), str(key).lower().startswith("subagent")
    return "", False


def read_codex(path: Path) -> Session:
    """Read one rollout file into a :class:`Session` (broken lines are counted and skipped)."""
    lines = read_jsonl(path)
    meta: dict[str, object] = {}
    items: list[Item] = []
    times = []
    for obj in lines:
        stamp = parse_time(obj.get("timestamp"))
        if stamp:
            times.append(stamp)
        payload = obj.get("payload") if isinstance(obj.get("payload"), dict) else None
        kind = obj.get("type")
        if kind == "session_meta" and isinstance(payload, dict):
            meta = meta or dict(payload)
        elif kind == "response_item" and isinstance(payload, dict):
            item = _item(payload)
            if item:
                items.append(item)
        elif payload is None and "type" not in obj and "id" in obj and not meta:
            meta = dict(obj)  # legacy first line {id, timestamp, instructions}
        elif payload is None and isinstance(kind, str):
            item = _item(obj)
            if item:
                items.append(item)
    origin, subagent = _origin(meta.get("source"))
    git = meta.get("git")
    branch = text_field(git.get("branch")) if isinstance(git, dict) else ""
    session_id = (
        text_field(meta.get("id")) or text_field(meta.get("session_id")) or path.stem.split("-", 6)[-1]
    )
    return Session(
        id=session_id,
        source="codex",
        path=path,
        cwd=folder_field(meta.get("cwd")),
        started_at=parse_time(meta.get("timestamp")) or (min(times) if times else None),
        ended_at=max(times) if times else None,
        items=tuple(items),
        git_branch=branch or None,
        origin=origin,
        subagent=subagent,
        skipped_lines=lines.skipped,
    )


def looks_like_headless_codex(first: dict[str, object]) -> bool:
    """A rollout without its ``session_meta`` line: a bare ``response_item`` or the legacy
    ``{id, timestamp, instructions}`` first line."""
    return first.get("type") == "response_item" or ("id" in first and "instructions" in first)
