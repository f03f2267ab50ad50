"""skillshelf's tables in a Codex ``config.toml``, kept in one marked block at the end.

``setup codex`` writes the hook trust Codex asks for (``[hooks.state."KEY"] trusted_hash``)
and, on request, ``[mcp_servers.skillshelf]``. They go between two comment lines::

    # >>> skillshelf setup (managed; `skillshelf setup codex --remove` takes it out) >>>
    [hooks.state."/repo/.codex/hooks.json:user_prompt_submit:0:0"]
    trusted_hash = "sha256:..."
    # <<< skillshelf setup <<<

The block goes at the end of the file after one line break and is taken out with exactly that
line break, so the rest of the file keeps every byte (tomlkit alone moves blank lines when a
table is added and removed). The result is checked with :mod:`tomllib`: a table the user
already wrote outside the block (a hook they trusted in Codex's TUI, their own
``[mcp_servers.skillshelf]``) is not written twice; a stale trust hash there is updated in
place (:func:`with_tables`).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from skillshelf.errors import ConfigError, reason
from skillshelf.fileio import BYTE_ORDER_MARK

__all__ = ["BEGIN", "END", "TablePath", "block_tables", "lookup", "with_tables", "without_block"]

BEGIN = "# >>> skillshelf setup (managed; `skillshelf setup codex --remove` takes it out) >>>"
END = "# <<< skillshelf setup <<<"
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")

TablePath = tuple[str, ...]  # a table's key path, e.g. ("mcp_servers", "skillshelf")
Tables = Mapping[TablePath, Mapping[str, object]]


def _span(text: str) -> tuple[int, int] | None:
    """``[start, end)`` of the block with the line break before it, or None."""
    begin = text.find("\n" + BEGIN + "\n")
    start = begin + 1 if begin >= 0 else (0 if text.startswith(BEGIN + "\n") else -1)
    if start < 0:
        return None
    end = text.find("\n" + END, start)
    if end < 0:
        return None
    stop = end + 1 + len(END)
    stop += 1 if text[stop : stop + 1] == "\n" else 0
    return (start - 1 if start > 0 else 0), stop


def without_block(text: str) -> str:
    """``text`` with the block (and the line break setup put before it) taken out."""
    span = _span(text)
    return text if span is None else text[: span[0]] + text[span[1] :]


def block_tables(text: str) -> dict[TablePath, dict[str, object]]:
    """The tables inside the block (an unreadable block counts as empty)."""
    span = _span(text)
    if span is None:
        return {}
    inside = text[span[0] : span[1]].split("\n", 2)[-1] if span[0] > 0 else text[: span[1]]
    try:
        data = tomllib.loads(inside)
    except (tomllib.TOMLDecodeError, RecursionError):
        return {}
    return _flatten(data)


def _flatten(data: Mapping[str, Any], prefix: TablePath = ()) -> dict[TablePath, dict[str, object]]:
    """Leaf tables (tables holding at least one non-table value) by path."""
    out: dict[TablePath, dict[str, object]] = {}
    plain = {k: v for k, v in data.items() if not isinstance(v, dict)}
    if plain and prefix:
        out[prefix] = plain
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flatten(value, (*prefix, key)))
    return out


def lookup(data: Mapping[str, Any], path: TablePath) -> object:
    """``data[path[0]][path[1]]...``, or None when a step is missing."""
    node: object = data
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _key(part: str) -> str:
    return part if _BARE.match(part) else json.dumps(part, ensure_ascii=False)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML here")


def _render(tables: Tables) -> str:
    chunks = []
    for path, table in tables.items():
        lines = ["[" + ".".join(_key(p) for p in path) + "]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
        chunks.append("\n".join(lines))
    return BEGIN + "\n" + "\n\n".join(chunks) + "\n" + END + "\n"


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(
            f"{where} is not valid TOML ({reason(exc)})",
            hint="fix the TOML by hand (Codex cannot read it either), then run setup again",
            code="HK111",
        ) from exc


def with_tables(text: str, tables: Tables, where: str = "config.toml") -> str:
    """``text`` whose block, at the end, holds exactly ``tables`` (no block when there are none).

    A table already written outside the block is left there: kept as it is when it holds the
    same values, else (a stale trust hash) updated in place with tomlkit.

    Raises:
        ConfigError: the file is not valid TOML, or a table cannot be added (the user wrote
            that part of the file as an inline table).
    """
    bom = BYTE_ORDER_MARK if text.startswith(BYTE_ORDER_MARK) else ""  # Codex reads it; kept
    outside = without_block(text.removeprefix(bom))
    existing = _parse(outside, where)
    own: dict[TablePath, Mapping[str, object]] = {}
    for path, table in tables.items():
        there = lookup(existing, path)
        if there is None:
            own[path] = table
        elif there != dict(table):
            outside = _update_in_place(outside, path, table)
    result = outside + ("\n" if outside else "") + _render(own) if own else outside
    try:
        tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"cannot add skillshelf's tables to {where}: {exc}",
            hint="the file writes `hooks` or `mcp_servers` as an inline table; "
            "write them as [tables], then run setup again",
            code="HK112",
        ) from exc
    return bom + result


def _update_in_place(text: str, path: TablePath, table: Mapping[str, object]) -> str:
    import tomlkit

    doc = tomlkit.parse(text)
    node: Any = doc
    for key in path:
        node = node[key]
    for key, value in table.items():
        node[key] = value
    return tomlkit.dumps(doc)
