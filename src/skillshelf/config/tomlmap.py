"""Where keys are in a TOML file: ``key path -> line number``, for diagnostics.

``tomllib`` gives values without positions, so this scans the text once: table headers
(``[a.b]``, ``[[a.b]]`` with per-array indexes), ``key = value`` lines (dotted and quoted keys
included) and multi-line strings (skipped). Paths are tuples of keys and array indexes, e.g.
``("skills", "config", 1, "mode")``. The file must already parse; this never raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["KeyPath", "dotted_key", "find_line", "key_lines", "parse_dotted_key"]

KeyPath = tuple[str | int, ...]

_HEADER = re.compile(r"^\s*(\[\[?)\s*(.+?)\s*(\]\]?)\s*(#.*)?$")
_KEY = re.compile(
    r"""^\s*((?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'))*)\s*="""
)


_BARE_DOTTED = re.compile(r"\s*[A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*\s*")


_BARE = re.compile(r"[A-Za-z0-9_-]+")


def dotted_key(path: KeyPath) -> str:
    """``("a", "b.c", "d")`` -> ``a."b.c".d``: each part bare when TOML allows it, else quoted
    as a basic string (the inverse of :func:`parse_dotted_key`)."""
    return ".".join(_quoted(str(part)) for part in path)


def _quoted(key: str) -> str:
    if _BARE.fullmatch(key):
        return key
    import json  # JSON's string escapes are TOML's basic-string escapes, DEL aside

    return json.dumps(key, ensure_ascii=False).replace("\x7f", "\\u007f")


def parse_dotted_key(text: str) -> tuple[str, ...] | None:
    """``a."b.c".d`` -> ``("a", "b.c", "d")``; ``None`` when it is not a TOML key."""
    if _BARE_DOTTED.fullmatch(text):  # no quotes: the parts as written (most keys, read quickly)
        return tuple(part.strip() for part in text.split("."))
    import tomllib  # only when there is config text to map

    try:
        data = tomllib.loads(f"{text} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    node: object = data
    while isinstance(node, dict) and len(node) == 1:
        ((key, node),) = node.items()
        parts.append(key)
    return tuple(parts) if node == 0 and parts else None


def key_lines(text: str) -> dict[KeyPath, int]:
    """Every table header and key in ``text`` with its 1-based line number."""
    lines: dict[KeyPath, int] = {}
    counters: dict[tuple[str, ...], int] = {}
    table: KeyPath = ()
    open_string: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if open_string is not None:
            if open_string in line:
                open_string = None
            continue
        header = _HEADER.match(line)
        if header and not _KEY.match(line):
            keys = parse_dotted_key(header.group(2))
            if keys is None:
                continue
            if header.group(1) == "[[":
                index = counters.get(keys, -1) + 1
                counters[keys] = index
                table = (*_with_indexes(keys, counters), index)
            else:
                table = _with_indexes(keys, counters)
            lines.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key is None:
            continue
        parts = parse_dotted_key(key.group(1))
        if parts is None:
            continue
        lines.setdefault((*table, *parts), number)
        rest = line[key.end() :]
        for quote in ('"""', "'''"):
            if rest.count(quote) == 1:
                open_string = quote
    return lines


def _with_indexes(keys: tuple[str, ...], counters: Mapping[tuple[str, ...], int]) -> KeyPath:
    """``[a.b.c]`` inside ``[[a.b]]`` means the latest ``a.b`` entry: insert its index."""
    path: list[str | int] = []
    for depth in range(1, len(keys) + 1):
        path.append(keys[depth - 1])
        prefix = keys[:depth]
        if prefix in counters and depth < len(keys):
            path.append(counters[prefix])
    return tuple(path)


def find_line(lines: Mapping[KeyPath, int], path: KeyPath) -> int | None:
    """The line of ``path``, or of its nearest ancestor present (inline tables, arrays)."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None
