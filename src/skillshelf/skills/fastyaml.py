"""A fast path for the frontmatter most skills have: plain ``key: text`` lines.

Parsing YAML dominates a cold scan. Most frontmatters are a handful of ``key: value`` lines,
perhaps with one indented block (``metadata:``), whose values are plain text. For exactly that
shape, with every value one that YAML would read as a plain string (no ``:``, ``#``, tabs,
quotes or indicators, not a number, boolean, null or date), the result is the same as the YAML
parser's, so this module builds it directly. Anything else returns ``None`` and goes through the
real YAML parser (tests compare both paths on generated input).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from skillshelf.skills.parse_fields import KnownFields

__all__ = ["simple_frontmatter"]

_TOP = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")
_NESTED = re.compile(r"  ([A-Za-z_][A-Za-z0-9_-]*): (.*)")
_VALUE = re.compile(r"[A-Za-z0-9(/._][^:#\t]*")
_RESOLVER: Any = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"


def _plain_text(value: str) -> bool:
    return (
        _VALUE.fullmatch(value) is not None
        and value == value.rstrip()
        and value.isprintable()
        and _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR
    )


def _key(key: str) -> bool:
    return bool(_RESOLVER.resolve(yaml.ScalarNode, key, (True, False)) == _STR)


def simple_frontmatter(yaml_text: str) -> tuple[dict[str, object], KnownFields] | None:
    """The mapping and Codex's fields for a simple frontmatter, or ``None`` to use YAML."""
    mapping: dict[str, object] = {}
    block: dict[str, str] | None = None
    for line in yaml_text.split("\n"):
        if line.startswith(" "):
            nested = _NESTED.fullmatch(line)
            if block is None or nested is None or nested.group(1) in block or not _key(nested.group(1)):
                return None
            if not _plain_text(nested.group(2)):
                return None
            block[nested.group(1)] = nested.group(2)
            continue
        if block is not None and not block:
            return None  # `key:` with nothing under it is null: leave it to YAML
        top = _TOP.fullmatch(line)
        if top is None or top.group(1) in mapping or not _key(top.group(1)):
            return None
        value = top.group(2)
        if value is None:
            block = {}
            mapping[top.group(1)] = block
            continue
        if not _plain_text(value):
            return None
        block = None
        mapping[top.group(1)] = value
    if block is not None and not block:
        return None
    meta = mapping.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        return None
    name, description = mapping.get("name"), mapping.get("description")
    if (name is not None and not isinstance(name, str)) or (
        description is not None and not isinstance(description, str)
    ):
        return None
    short = meta.get("short-description") if isinstance(meta, dict) else None
    return mapping, KnownFields(name=name, description=description, short_description=short)
