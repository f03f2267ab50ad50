"""Edit JSON text in place: add or take out array items and object members, every other byte
kept as it was.

:func:`parse` reads JSON into :class:`Node` values that remember where each value starts and
ends in the text. The edits splice the text at those offsets: an addition goes after the last
item or member (a comma, a line break and the container's indentation, then the new value
rendered in the file's own indent unit), and taking out an item removes exactly the span that
adding it wrote. So "add, then take out" gives back the original bytes, whatever the file's
formatting, key order or comments-free quirks (``\\u`` escapes, odd spacing, CRLF line ends).

A leading UTF-8 byte-order mark (an editor on Windows writes one; Claude Code reads such a file)
is read past and kept: offsets count it, so every edit leaves it in place.

The one case that cannot round-trip is an empty container written with white space inside
(``[ ]``): filling it replaces the inside, and emptying it again leaves ``[]``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "MAX_DEPTH",
    "JsonEditError",
    "Member",
    "Node",
    "add_member",
    "append_item",
    "parse",
    "remove_item",
    "remove_member",
    "render_new",
    "replace_item",
]

#: An agent's settings file nests a handful of levels; deeper text is refused, not recursed into.
MAX_DEPTH = 200
_WS = " \t\r\n"
_BOM = "\ufeff"
_DECODER = json.JSONDecoder()
_INDENT = re.compile(r"\n([ \t]+)\S")


class JsonEditError(ValueError):
    """The text is not one JSON value (``pos`` is where reading stopped)."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} at character {pos}")
        self.pos = pos


@dataclass(frozen=True, slots=True, kw_only=True)
class Member:
    """``"key": value`` of an object; ``start`` is where the key's opening quote is."""

    key: str
    start: int
    node: Node


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """One JSON value: its kind, its span ``[start, end)`` in the text and its nesting depth."""

    kind: Literal["object", "array", "scalar"]
    start: int
    end: int
    depth: int
    value: object = None
    members: tuple[Member, ...] = ()
    items: tuple[Node, ...] = ()

    def member(self, key: str) -> Member | None:
        """The last member named ``key`` (the one a JSON reader keeps), or None."""
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None

    def plain(self) -> object:
        """The value as Python data (objects as dicts, later duplicate keys winning)."""
        if self.kind == "object":
            return {m.key: m.node.plain() for m in self.members}
        if self.kind == "array":
            return [item.plain() for item in self.items]
        return self.value


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def parse(text: str) -> Node:
    """The JSON value ``text`` holds, with spans.

    Raises:
        JsonEditError: the text is not exactly one JSON value (white space around it, and a
            byte-order mark before it, are fine).
    """
    node, end = _value(text, _skip(text, 1 if text.startswith(_BOM) else 0), 0)
    if _skip(text, end) != len(text):
        raise JsonEditError("extra text after the JSON value", _skip(text, end))
    return node


def _value(text: str, i: int, depth: int) -> tuple[Node, int]:
    if depth > MAX_DEPTH:
        raise JsonEditError(f"nested deeper than {MAX_DEPTH} levels", i)
    if i >= len(text):
        raise JsonEditError("the text ends where a value should be", i)
    if text[i] == "{":
        return _object(text, i, depth)
    if text[i] == "[":
        return _array(text, i, depth)
    try:
        value, end = _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        raise JsonEditError(exc.msg, exc.pos) from exc
    return Node(kind="scalar", start=i, end=end, depth=depth, value=value), end


def _object(text: str, start: int, depth: int) -> tuple[Node, int]:
    members: list[Member] = []
    i = _skip(text, start + 1)
    if i < len(text) and text[i] == "}":
        return Node(kind="object", start=start, end=i + 1, depth=depth), i + 1
    while True:
        if i >= len(text) or text[i] != '"':
            raise JsonEditError("expected a quoted key", i)
        try:
            key, after = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        except json.JSONDecodeError as exc:
            raise JsonEditError(exc.msg, exc.pos) from exc
        colon = _skip(text, after)
        if colon >= len(text) or text[colon] != ":":
            raise JsonEditError("expected ':' after a key", colon)
        node, end = _value(text, _skip(text, colon + 1), depth + 1)
        members.append(Member(key=key, start=i, node=node))
        i = _skip(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "}":
            return Node(kind="object", start=start, end=i + 1, depth=depth, members=tuple(members)), i + 1
        raise JsonEditError("expected ',' or '}'", i)


def _array(text: str, start: int, depth: int) -> tuple[Node, int]:
    items: list[Node] = []
    i = _skip(text, start + 1)
    if i < len(text) and text[i] == "]":
        return Node(kind="array", start=start, end=i + 1, depth=depth), i + 1
    while True:
        node, end = _value(text, i, depth + 1)
        items.append(node)
        i = _skip(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            return Node(kind="array", start=start, end=i + 1, depth=depth, items=tuple(items)), i + 1
        raise JsonEditError("expected ',' or ']'", i)


# ---- layout ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Style:
    """The file's own layout, copied by what the edits write."""

    multiline: bool
    unit: str  # one level of indentation
    newline: str
    colon: str  # ": " or ":"
    comma: str  # ", " or "," (one-line layout)


def _style(text: str, container: Node) -> _Style:
    filled = bool(container.members or container.items)
    found = _INDENT.search(text)
    return _Style(
        multiline="\n" in (text[container.start : container.end] if filled else text),
        unit=found.group(1) if found else "  ",
        newline="\r\n" if "\r\n" in text else "\n",
        colon=": " if ": " in text or '":' not in text else ":",
        comma=", " if ", " in text or "," not in text else ",",
    )


def _render(value: object, style: _Style, depth: int) -> str:
    if not style.multiline:
        return json.dumps(value, ensure_ascii=False, separators=(style.comma, style.colon))
    text = json.dumps(value, ensure_ascii=False, indent=style.unit, separators=(",", style.colon))
    return text.replace("\n", style.newline + style.unit * depth)


def render_new(value: object) -> str:
    """The text of a new file holding ``value`` (two-space indent, final line break)."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def _insert(text: str, container: Node, piece: str, last_end: int | None) -> str:
    style = _style(text, container)
    inner = style.unit * (container.depth + 1)
    if last_end is not None:
        gap = f",{style.newline}{inner}" if style.multiline else style.comma
        return text[:last_end] + gap + piece + text[last_end:]
    if style.multiline:
        piece = f"{style.newline}{inner}{piece}{style.newline}{style.unit * container.depth}"
    return text[: container.start + 1] + piece + text[container.end - 1 :]


def append_item(text: str, array: Node, value: object) -> str:
    """``text`` with ``value`` added as the last item of ``array`` (a node of ``parse(text)``)."""
    style = _style(text, array)
    piece = _render(value, style, array.depth + 1)
    return _insert(text, array, piece, array.items[-1].end if array.items else None)


def replace_item(text: str, array: Node, index: int, value: object) -> str:
    """``text`` with item ``index`` of ``array`` replaced by ``value``, written as
    :func:`append_item` writes an item (so :func:`remove_item` takes it out exactly)."""
    style = _style(text, array)
    item = array.items[index]
    return text[: item.start] + _render(value, style, array.depth + 1) + text[item.end :]


def add_member(text: str, obj: Node, key: str, value: object) -> str:
    """``text`` with ``"key": value`` added as the last member of ``obj``."""
    style = _style(text, obj)
    piece = json.dumps(key, ensure_ascii=False) + style.colon + _render(value, style, obj.depth + 1)
    return _insert(text, obj, piece, obj.members[-1].node.end if obj.members else None)


def _cut(text: str, container: Node, spans: list[tuple[int, int]], index: int) -> str:
    if index > 0:
        return text[: spans[index - 1][1]] + text[spans[index][1] :]
    if len(spans) > 1:
        return text[: spans[0][0]] + text[spans[1][0] :]
    return text[: container.start + 1] + text[container.end - 1 :]


def remove_item(text: str, array: Node, index: int) -> str:
    """``text`` without item ``index`` of ``array``: exactly what :func:`append_item` wrote."""
    return _cut(text, array, [(n.start, n.end) for n in array.items], index)


def remove_member(text: str, obj: Node, index: int) -> str:
    """``text`` without member ``index`` of ``obj``: exactly what :func:`add_member` wrote."""
    return _cut(text, obj, [(m.start, m.node.end) for m in obj.members], index)
