"""What a transport answers to a message the SDK's validation refuses, read before the SDK reads it.

The SDK refuses a message with a bare parser or validator text (``unexpected end of hex
escape``, a pydantic dump), or on stdio drops it without a word. :func:`refusal` reads the
text first and words the error a client gets instead:

- not JSON: ``-32700`` with ``id: null``;
- JSON holding a lone surrogate (``"\\ud800"``: JSON allows it, it is not Unicode, and the
  SDK's parser refuses it): ``SV400`` naming where, with the message's id (``-32602`` inside
  ``params``, else ``-32600``); a plain ``-32600`` when the id itself is what cannot be sent back;
- JSON that is no JSON-RPC message: ``-32600``, with its id when it has a usable one;
- a request whose id is neither a string nor an integer (``true``, ``1.5``, ``1.0``, ``[1]``,
  ``{}``, ``null``: MCP allows no null id): ``-32600`` with ``id: null``. The SDK reads such a
  message as a notification (it drops the id), so it would never answer it.

Each transport decides which refusals it sends: stdio answers only those a client waits on
(:attr:`Refusal.awaited`), HTTP answers every POST.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from pydantic import ValidationError

from skillshelf.errors import UsageError, reason
from skillshelf.skills.bundled import check_text

__all__ = ["Refusal", "checked", "refusal"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """The error for a message the SDK refuses; ``awaited`` is False for a notification or a
    response, which JSON-RPC never answers."""

    error: types.JSONRPCError
    awaited: bool


def _reply(request_id: Any, code: int, message: str, data: Any = None) -> types.JSONRPCError:
    error = types.ErrorData(code=code, message=message, **({} if data is None else {"data": data}))
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _usable_id(message: dict[str, Any]) -> str | int | None:
    """The request's id when it can be sent back: a string of Unicode text or an integer."""
    value = message.get("id")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    if isinstance(value, str):
        try:
            check_text(value, what="id")
        except UsageError:
            return None
    return value


def _lone_surrogate(value: object) -> tuple[str, UsageError] | None:
    """Where the first string (a key or a value) in ``value`` holding a lone surrogate is
    (``params.arguments.name``) and SV400 naming it, else None. Walked with a stack."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        texts: list[tuple[str, str]] = []
        children: list[tuple[str, object]] = []
        if isinstance(item, dict):
            texts = [(where, key) for key in item]
            children = [(f"{where}.{key}" if where else str(key), v) for key, v in item.items()]
        elif isinstance(item, list):
            children = [(f"{where}[{n}]", v) for n, v in enumerate(item)]
        elif isinstance(item, str):
            texts = [(where, item)]
        for place, text in texts:
            what = f"key at {place or 'the top'}" if text is not item else f"value at {place}"
            try:
                check_text(text, what=ascii(what)[1:-1])  # the path may hold the surrogate too
            except UsageError as exc:
                return place, exc
        stack.extend(reversed(children))
    return None


def _awaited(message: object) -> bool:
    """Whether a client waits for an answer to ``message``: not to a response or a notification."""
    if not isinstance(message, dict):
        return True
    if "method" not in message and ("result" in message or "error" in message):
        return False
    return not ("id" not in message and isinstance(message.get("method"), str))


def _error_for(message: object) -> types.JSONRPCError:
    """The error for parsed JSON that is no valid JSON-RPC message."""
    request_id = _usable_id(message) if isinstance(message, dict) else None
    surrogate = _lone_surrogate(message)
    id_sent_back = request_id is not None or (isinstance(message, dict) and "id" not in message)
    if surrogate is not None and id_sent_back:
        place, refused = surrogate
        code = types.INVALID_PARAMS if place.startswith("params") else types.INVALID_REQUEST
        return _reply(request_id, code, refused.one_line(), refused.to_dict())
    detail = "a lone surrogate is no Unicode text" if surrogate else "not a JSON-RPC 2.0 request"
    return _reply(request_id, types.INVALID_REQUEST, f"Invalid Request: {detail}")


def _has_id(text: str | bytes) -> bool:
    """Whether ``text`` (JSON the SDK reads as a notification) has an ``id`` member after all."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and "id" in message


def checked(text: str | bytes) -> types.JSONRPCMessage | Refusal:
    """``text`` (one message, as a line or a request body) as the SDK reads it, or the error a
    client gets for it when the SDK's validation refuses it or would take a request for a
    notification."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError:
        pass
    else:
        if not isinstance(message, types.JSONRPCNotification) or not _has_id(text):
            return message
        detail = "a request's id is a string or an integer"
        return Refusal(error=_reply(None, types.INVALID_REQUEST, f"Invalid Request: {detail}"), awaited=True)
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Refusal(error=_reply(None, types.PARSE_ERROR, f"Parse error: {reason(exc)}"), awaited=True)
    return Refusal(error=_error_for(parsed), awaited=_awaited(parsed))


def refusal(text: str | bytes) -> Refusal | None:
    """The error a client gets for ``text`` (see :func:`checked`); None when the SDK takes it as
    it is."""
    result = checked(text)
    return result if isinstance(result, Refusal) else None
