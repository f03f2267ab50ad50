"""YAML's non-specific tag ``!``: a scalar written with it is text, whatever it looks like.

``description: ! ~`` is the string ``"~"`` in YAML, and in Codex 0.171.0 and Claude Code
2.1.197 alike (as ``! null``, ``! 123``, ``! true``, ``! '123'`` are ``"null"``, ``"123"``,
``"true"``, ``"123"``); a sequence or mapping written with ``!`` is the same collection as
without it. PyYAML's composers (the C one and the Python one) resolve a ``!`` scalar like an
untagged plain one instead, and the composed node no longer tells the two apart, so the
scalars tagged ``!`` are found in the document's events and their nodes are tagged ``!!str``
before the document is constructed. Only text that can hold such a tag (a ``!`` before
whitespace, a ``,``, the end, or a verbatim ``!<...>``) is parsed for its events.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

__all__ = ["mark_nonspecific_scalars", "scalar_nodes"]

_STR = "tag:yaml.org,2002:str"
_MAY_HOLD = re.compile(r"!(?:[\s,<]|\Z)")
_EventLoader: Any = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


def _span(mark: Any, end: Any) -> tuple[int, int] | None:
    return None if mark is None or end is None else (mark.index, end.index)


def _nonspecific_spans(text: str, events: type[Any]) -> frozenset[tuple[int, int]]:
    """Where the scalars tagged ``!`` start and end (their marks' indexes, as the composer sets
    them). The span is never empty (the tag is in it), so an empty scalar the parser places at
    the tag (``? a`` with no value, before ``! b: c``) is not taken for one."""
    spans: set[tuple[int, int]] = set()
    for event in yaml.parse(text, Loader=events):
        if isinstance(event, yaml.ScalarEvent) and event.tag == "!":
            span = _span(event.start_mark, event.end_mark)
            if span is not None:
                spans.add(span)
    return frozenset(spans)


def mark_nonspecific_scalars(text: str, root: yaml.Node, *, events: type[Any] | None = None) -> None:
    """Tag ``!!str`` every scalar node of ``root`` (composed from ``text``) written with ``!``;
    ``events``: the loader that composed it, when not PyYAML's own (its events are read)."""
    if _MAY_HOLD.search(text) is None:
        return
    spans = _nonspecific_spans(text, _EventLoader if events is None else events)
    if not spans:
        return
    for node in scalar_nodes(root):
        if _span(node.start_mark, node.end_mark) in spans:
            node.tag = _STR


def scalar_nodes(root: yaml.Node | None) -> Iterator[yaml.ScalarNode]:
    """Every scalar node under ``root`` once (an alias's node is shared, and may loop)."""
    seen: set[int] = set()
    stack: list[yaml.Node] = [] if root is None else [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            yield node
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(item for pair in node.value for item in pair)
