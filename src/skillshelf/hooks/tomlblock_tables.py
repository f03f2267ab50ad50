"""The marked block of :mod:`.tomlblock` in a Codex ``config.toml`` as text: where it is
(:func:`span`), its ``[header]`` lines (:func:`headers`), and the user's tables Codex wrote into
it moved out after it (:func:`ejected`)."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from skillshelf.fileio import BYTE_ORDER_MARK

__all__ = ["BEGIN", "END", "ejected", "headers", "in_block_arrays", "loads", "span"]

BEGIN = "# >>> skillshelf setup (managed; `skillshelf setup codex --remove` takes it out) >>>"
END = "# <<< skillshelf setup <<<"
_HEADER = re.compile(r"^[ \t]*\[.*$", re.MULTILINE)
_COMMENT = re.compile(r"^[ \t]*#.*\r?\n\Z")

TablePath = tuple[str, ...]


def span(text: str) -> tuple[int, int] | None:
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


def loads(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def headers(text: str) -> list[tuple[int, int, TablePath | None]]:
    """Each ``[table]`` / ``[[array]]`` header line: its span and (for a table) its key path."""
    found: list[tuple[int, int, TablePath | None]] = []
    for match in _HEADER.finditer(text):
        line = match.group(0).rstrip("\r")
        path = None if _array(line) else _header_path(line)
        found.append((match.start(), match.start() + len(line), path))
    return found


def _array(line: str) -> bool:
    return line.lstrip().startswith("[[")


def _header_path(line: str) -> TablePath | None:
    try:
        node: object = tomllib.loads(line)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None  # a line of a multi-line value, say
    path: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        key, node = next(iter(node.items()))
        path.append(key)
    return tuple(path) if node == {} and path else None


def _body(text: str) -> tuple[int, int, tuple[int, int]] | None:
    """Where the block's lines between its marker lines start and end, and its span."""
    where = span(text)
    if where is None:
        return None
    return text.index(BEGIN, where[0]) + len(BEGIN) + 1, text.rindex(END, 0, where[1]), where


def in_block_arrays(text: str) -> bool:
    """Whether the block holds an array of tables (``[[hooks.Stop]]``, or an inline
    ``Stop = [{...}]``): the user's, as setup writes none."""
    text = text.removeprefix(BYTE_ORDER_MARK)
    found = _body(text)
    if found is None:
        return False
    return _has_tables(loads(text[found[0] : found[1]]))


def _has_tables(data: object) -> bool:
    if isinstance(data, dict):
        return any(_has_tables(v) for v in data.values())
    return isinstance(data, list) and any(isinstance(v, dict) or _has_tables(v) for v in data)


def _users(line: str, path: TablePath | None) -> bool:
    """A table of the user's (a ``[projects."…"]``, an ``[[array]]`` of tables such as a
    ``[[hooks.Stop]]`` hook written in config.toml), not one setup's block holds (hook trust,
    skillshelf's MCP server)."""
    if _array(line):
        return True
    return path is not None and path[:2] not in (("hooks", "state"), ("mcp_servers", "skillshelf"))


def _lead(text: str, start: int, floor: int) -> int:
    """``start`` moved back over the comment lines just above it (they belong to its table)."""
    while start > floor:
        line_start = max(text.rfind("\n", floor, start - 1) + 1, floor)
        if not _COMMENT.match(text[line_start:start]):
            break
        start = line_start
    return start


def ejected(marked: str) -> str:
    """``marked`` with the user's tables in the block (Codex's TOML editor appends a table ahead
    of the file's last comment line, the end marker) moved, each as written with the comment
    lines just above it, after the end line and a blank one; ``marked`` itself when there are
    none, or when the file would read differently."""
    bom = BYTE_ORDER_MARK if marked.startswith(BYTE_ORDER_MARK) else ""
    text = marked.removeprefix(bom)
    found = _body(text)
    if found is None:
        return marked
    body, end, where = found
    heads = [(body + a, text[body + a : body + b], path) for a, b, path in headers(text[body:end])]
    cuts = [body, *(_lead(text, start, body) for start, _line, _path in heads), end]
    kinds = [False, *(_users(line, path) for _start, line, path in heads)]
    chunks = list(zip(kinds, cuts, cuts[1:], strict=False))
    taken = "".join(text[a:b] for users, a, b in chunks if users)
    if not taken:
        return marked
    kept = "".join(text[a:b] for users, a, b in chunks if not users)
    tail = text[end : where[1]] + ("\n" if text.endswith("\n", 0, where[1]) else "\n\n")  # a blank line
    out = text[:body] + kept + tail + taken + text[where[1] :]
    return bom + out if loads(out) == loads(text) else marked
