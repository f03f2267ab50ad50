"""skillshelf's tables in a Codex ``config.toml``, kept in one marked block at the end.

``setup codex`` writes the hook trust Codex asks for (``[hooks.state."KEY"] trusted_hash``)
and, on request, ``[mcp_servers.skillshelf]``. They go between two comment lines::

    # >>> skillshelf setup (managed; `skillshelf setup codex --remove` takes it out) >>>
    [hooks.state."/repo/.codex/hooks.json:user_prompt_submit:0:0"]
    trusted_hash = "sha256:..."
    # <<< skillshelf setup <<<

The block goes at the end of the file after one line break and is taken out with exactly that
line break, so the rest of the file keeps every byte (tomlkit alone moves blank lines when a
table is added and removed). A block already in the file stays where it is (the user's tables
appended after it stay after it) as long as the file reads the same there as with the block at
the end: a re-run that changes nothing leaves every byte. The result is checked with
:mod:`tomllib`: a table the user already wrote outside the block (a hook they trusted in
Codex's TUI, their own ``[mcp_servers.skillshelf]``) is not written twice; a stale trust hash
there is updated in place (:func:`with_tables`).

Outside the block, setup can also take tables out and move them to another key (the trust of a
hook whose position in its hooks file changed): each by its ``[header]`` line, so every other
byte stays, and the result is checked against the same edit made on the parsed data. A table
of the user's that setup updated in place gets its values back as the TOML text they were
written in (:func:`raw_values`, ``restore``).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Collection, Mapping
from typing import Any

from skillshelf.errors import ConfigError, reason
from skillshelf.fileio import BYTE_ORDER_MARK
from skillshelf.hooks.tomlblock_tables import BEGIN, END, ejected, in_block_arrays
from skillshelf.hooks.tomlblock_tables import headers as _headers
from skillshelf.hooks.tomlblock_tables import loads as _loads
from skillshelf.hooks.tomlblock_tables import span as _span

__all__ = [
    "BEGIN",
    "END",
    "TablePath",
    "block_tables",
    "ejected",
    "lookup",
    "raw_values",
    "with_tables",
    "without_block",
]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")

TablePath = tuple[str, ...]  # a table's key path, e.g. ("mcp_servers", "skillshelf")
Tables = Mapping[TablePath, Mapping[str, object]]


def without_block(text: str) -> str:
    """``text`` with the block (and the line break setup put before it) taken out."""
    span = _span(text)
    return text if span is None else text[: span[0]] + text[span[1] :]


def block_tables(text: str) -> dict[TablePath, dict[str, object]]:
    """The tables inside the block, in text order (an unreadable block counts as empty)."""
    span = _span(text)
    if span is None:
        return {}
    inside = text[span[0] : span[1]].split("\n", 2)[-1] if span[0] > 0 else text[: span[1]]
    try:
        tables = _flatten(tomllib.loads(inside))
    except (tomllib.TOMLDecodeError, RecursionError):
        return {}
    order = [path for _start, _end, path in _headers(inside) if path in tables]
    return {path: tables[path] for path in [*order, *tables]}  # in text order


def _flatten(data: Mapping[str, Any], prefix: TablePath = ()) -> dict[TablePath, dict[str, object]]:
    """Leaf tables (tables holding at least one non-table value) by path; an array of tables
    (the user's, which :func:`ejected` moves out of the block) is not one."""
    out: dict[TablePath, dict[str, object]] = {}
    plain = {k: v for k, v in data.items() if not isinstance(v, dict) and not _tables(v)}
    if plain and prefix:
        out[prefix] = plain
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flatten(value, (*prefix, key)))
    return out


def _tables(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


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


def _render(tables: Tables, *, marked: bool = True) -> str:
    chunks = []
    for path, table in tables.items():
        lines = ["[" + ".".join(_key(p) for p in path) + "]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
        chunks.append("\n".join(lines))
    body = "\n\n".join(chunks) + "\n"
    return BEGIN + "\n" + body + END + "\n" if marked else body


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(
            f"{where} is not valid TOML ({reason(exc)})",
            hint="fix the TOML by hand (Codex cannot read it either), then run setup again",
            code="HK111",
        ) from exc


def with_tables(
    text: str,
    tables: Tables,
    where: str = "config.toml",
    *,
    drop: Collection[TablePath] = (),
    renames: Mapping[TablePath, TablePath] | None = None,
    foreign: Collection[TablePath] = (),
    restore: Mapping[TablePath, Mapping[str, str | None]] | None = None,
) -> str:
    """``text`` whose block, at the end, holds exactly ``tables`` (no block when there are none;
    when all it would hold are ``foreign`` tables, the ones Codex wrote into the block, they
    are written at the end without the marker lines).

    Outside the block, first the tables in ``drop`` are taken out and those in ``renames`` moved
    to their new key (a table already at a new key, and not moved itself, is replaced). Then a
    table of ``tables`` already written outside the block is left there: kept as it is when it
    holds the same values, else (a stale trust hash) updated in place with tomlkit. A table of
    ``restore`` outside the block gets the values of :func:`raw_values` back (a None one taken
    out); one no longer there is not written again.

    Raises:
        ConfigError: the file is not valid TOML, a table cannot be added (the user wrote that
            part of the file as an inline table), or one to take out or move is not written as
            a ``[table]`` of its own.
    """
    if in_block_arrays(text):  # the user's: the block's tables are rewritten without them
        text = _arrays_out(text, where)
    bom = BYTE_ORDER_MARK if text.startswith(BYTE_ORDER_MARK) else ""  # Codex reads it; kept
    outside, spot = _marked_spot(text.removeprefix(bom))
    existing = _parse(outside, where)
    if _present(existing, drop) or _present(existing, renames or {}):
        outside = _retitled(outside, existing, set(drop), dict(renames or {}), where)
        existing = _parse(outside, where)
    for path, values in (restore or {}).items():
        if isinstance(lookup(existing, path), dict):
            outside = _update_in_place(outside, path, values, raw=True)
    existing = _parse(outside, where) if restore else existing
    own: dict[TablePath, Mapping[str, object]] = {}
    for path, table in tables.items():
        there = lookup(existing, path)
        if there is None:
            own[path] = table
        elif there != dict(table):
            outside = _update_in_place(outside, path, table)
    body = _render(own, marked=not set(own) <= set(foreign)) if own else ""
    outside, result = _placed(outside, spot, body)
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


def _arrays_out(text: str, where: str) -> str:
    """``text`` with the ``[[arrays]]`` of tables in the block (the user's, such as a
    ``[[hooks.Stop]]`` hook written in config.toml) moved out after it by :func:`ejected`.

    Raises:
        ConfigError: they cannot be moved without the file reading differently (``HK114``).
    """
    moved = ejected(text)
    if in_block_arrays(moved):
        raise ConfigError(
            f"{where} has an array of tables ([[...]]) inside skillshelf's block that setup cannot "
            "move out of it",
            hint=f"move the [[...]] tables after the line `{END}`, then run setup again",
            code="HK114",
        )
    return moved


def _marked_spot(text: str) -> tuple[str, str]:
    """``text`` with its block (if any) replaced by a comment line only this call writes (with
    the line break before the block), and that line ("" when there is no block): the edits
    outside the block keep a comment, so the block can go back where it was (:func:`_placed`)."""
    span = _span(text)
    if span is None:
        return text, ""
    spot = "# skillshelf setup block"
    while spot in text:
        spot += "+"
    spot = ("" if text.startswith(BEGIN) else "\n") + spot + "\n"
    return text[: span[0]] + spot + text[span[1] :], spot


def _placed(marked: str, spot: str, body: str) -> tuple[str, str]:
    """The text outside the block, and the whole text with ``body`` where the block was when
    the file reads the same there as with it at the end (else at the end)."""
    cut = marked.find(spot) if spot else -1
    before, after = (marked, "") if cut < 0 else (marked[:cut], marked[cut + len(spot) :])
    outside = before + after
    at_end = outside + ("\n" if outside else "") + body if body else outside
    if cut < 0 or not body:
        return outside, at_end
    in_place = before + ("\n" if spot.startswith("\n") else "") + body + after
    same = _loads(in_place)
    return outside, in_place if same is not None and same == _loads(at_end) else at_end


def _update_in_place(text: str, path: TablePath, table: Mapping[str, object], *, raw: bool = False) -> str:
    """``text`` with the values of ``table`` set in the table at ``path`` (with ``raw``: as TOML
    text, a None one taken out)."""
    import tomlkit

    doc = tomlkit.parse(text)
    node: Any = doc
    for key in path:
        node = node[key]
    for key, value in table.items():
        if not raw:
            node[key] = value
        elif value is None:
            node.pop(key, None)
        elif isinstance(value, str):
            node[key] = tomlkit.value(value)
    return tomlkit.dumps(doc)


def raw_values(text: str, path: TablePath) -> dict[str, str] | None:
    """The TOML text of each value of the table at ``path`` outside the block (None: there is
    no such table there), for ``restore``."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        node: Any = tomlkit.parse(without_block(text.removeprefix(BYTE_ORDER_MARK)))
    except (TOMLKitError, RecursionError):
        return None
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    if not isinstance(node, dict):
        return None
    return {str(k): v.as_string() for k, v in node.items() if not isinstance(v, dict)}


# ---- taking out and moving tables outside the block ------------------------------------------


def _present(data: Mapping[str, Any], paths: Collection[TablePath]) -> bool:
    return any(lookup(data, p) is not None for p in paths)


def _retitled(
    text: str, data: Mapping[str, Any], drop: set[TablePath], renames: dict[TablePath, TablePath], where: str
) -> str:
    """``text`` with the ``[header]`` of each table to move rewritten and each table to take
    out (header to the next header) cut; checked against the same edit of ``data``."""
    cuts = drop | {new for new in renames.values() if new not in renames}  # as in _moved
    edits: list[tuple[int, int, str]] = []
    headers = _headers(text)
    for i, (start, end, path) in enumerate(headers):
        if path in renames:
            edits.append((start, end, "[" + ".".join(_key(p) for p in renames[path]) + "]"))
        elif path in cuts:
            stop = headers[i + 1][0] if i + 1 < len(headers) else len(text)
            if stop == len(text):
                while text.endswith("\n\n", 0, start):
                    start -= 1
            edits.append((start, stop, ""))
    for start, end, piece in sorted(edits, reverse=True):
        text = text[:start] + piece + text[end:]
    edited = _loads(text)
    if edited is None or _pruned(edited) != _pruned(_moved(data, drop, renames)):
        raise ConfigError(
            f"cannot move or take out hook trust entries in {where}: they are not written as "
            '[hooks.state."KEY"] tables of their own',
            hint='write each hooks.state entry as a [hooks.state."KEY"] table, then run setup again',
            code="HK113",
        )
    return text


def _moved(
    data: Mapping[str, Any], drop: set[TablePath], renames: dict[TablePath, TablePath]
) -> dict[str, Any]:
    """``data`` with the tables of ``drop`` and those at a new key of ``renames`` taken out,
    then those of ``renames`` moved."""
    moved: dict[str, Any] = copy.deepcopy(dict(data))
    values = {old: _pop(moved, old) for old in renames}
    for path in drop | {new for new in renames.values() if new not in renames}:
        _pop(moved, path)
    for old, new in renames.items():
        parent = moved
        for key in new[:-1]:
            parent = parent.setdefault(key, {})
        if values[old] is not None:
            parent[new[-1]] = values[old]
    return moved


def _pop(data: dict[str, Any], path: TablePath) -> object:
    parent = lookup(data, path[:-1])
    return parent.pop(path[-1], None) if isinstance(parent, dict) else None


def _pruned(data: object) -> object:
    """``data`` without empty tables (taking out a table's last one leaves none in the text)."""
    if not isinstance(data, dict):
        return data
    kept = {k: _pruned(v) for k, v in data.items()}
    return {k: v for k, v in kept.items() if v != {}}
