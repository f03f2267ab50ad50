"""The fields Codex reads from a frontmatter node, with Codex's typing (pure helpers of parse.py).

Codex deserialises ``name``, ``description`` and ``metadata.short-description`` as optional
strings: a scalar is taken as written (``name: 1.50`` is ``"1.50"``), a null is absent, a list
or mapping is an error, and the same known field written twice is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.frontmatter import mapping_pairs, null_mismatch, raw_scalar

__all__ = ["KnownFields", "known_fields", "to_plain"]

_PLAIN_BUDGET = 20_000
#: Deepest nesting kept in a skill's frontmatter data. Real frontmatter nests two or three
#: levels; a bound far below Python's recursion limit keeps every later consumer (the cache's
#: JSON, ``--json`` output, the MCP server) safe from a value nested hundreds of levels deep.
_PLAIN_MAX_DEPTH = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class KnownFields:
    name: str | None = None
    description: str | None = None
    short_description: str | None = None
    fatal: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()


def _bad(message: str, fix: str, path: Path, field: str, line: int | None = None) -> Diagnostic:
    return Diagnostic(
        code="SK110", severity=Severity.ERROR, message=message, fix=fix, path=path, field=field, line=line
    )


def _line(node: yaml.Node) -> int | None:
    mark = getattr(node, "start_mark", None)
    return mark.line + 2 if mark is not None else None


def _pick(
    pairs: list[tuple[str, yaml.Node]], key: str, where: str, path: Path, out: list[Diagnostic]
) -> yaml.Node | None:
    found = [node for k, node in pairs if k == key]
    if len(found) > 1:
        out.append(
            _bad(f"duplicate field `{where}`", f"keep one `{key}:` line", path, where, _line(found[1]))
        )
        return None
    return found[0] if found else None


def _string(
    node: yaml.Node | None, where: str, path: Path, out: list[Diagnostic], *, mapping_ok: bool = False
) -> str | None:
    if node is None:
        return None
    if null_mismatch(node):
        out.append(
            _bad(
                f"invalid value: `{where}` is tagged `!!null` but holds text",
                f"remove the `!!null` tag from `{where}`",
                path,
                where,
                _line(node),
            )
        )
        return None
    value = raw_scalar(node)
    if value is None or isinstance(value, str):
        return value
    if value is dict and mapping_ok:
        return None
    kind = "mapping" if value is dict else "sequence"
    out.append(
        _bad(
            f"invalid type: `{where}` is a {kind}, expected a string",
            f"write `{where}` as one line of text (quote it if needed)",
            path,
            where,
            _line(node),
        )
    )
    return None


def _complex_keys(node: yaml.Node, where: str, path: Path, out: list[Diagnostic]) -> None:
    """Codex reads these mappings into a struct: a list or mapping as a key is an error there."""
    if not isinstance(node, yaml.MappingNode):
        return
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode):
            out.append(
                _bad(
                    f"a {key.id} is used as a key in {where}", "use plain text keys", path, where, _line(key)
                )
            )
            return


def known_fields(node: yaml.Node | None, *, path: Path) -> KnownFields:
    """Extract Codex's fields from the document node (``None`` = empty frontmatter)."""
    out: list[Diagnostic] = []
    pairs = mapping_pairs(node)
    if node is not None:
        _complex_keys(node, "the frontmatter", path, out)
    name = _string(_pick(pairs, "name", "name", path, out), "name", path, out)
    description = _string(_pick(pairs, "description", "description", path, out), "description", path, out)
    short: str | None = None
    meta = _pick(pairs, "metadata", "metadata", path, out)
    if meta is not None:
        if isinstance(meta, yaml.MappingNode):
            _complex_keys(meta, "metadata", path, out)
            inner = mapping_pairs(meta)
            # Codex 0.171.0 ignores a mapping here but rejects a list (checked with the oracle).
            node = _pick(inner, "short-description", "metadata.short-description", path, out)
            short = _string(node, "metadata.short-description", path, out, mapping_ok=True)
        elif not (isinstance(meta, yaml.ScalarNode) and not meta.style and meta.value == ""):
            # Codex reads an empty `metadata:` as an empty mapping but rejects `~`, text, lists.
            out.append(
                _bad(
                    "invalid type: `metadata` must be a mapping",
                    "write `metadata:` followed by indented `key: value` lines, or remove it",
                    path,
                    "metadata",
                    _line(meta),
                )
            )
    return KnownFields(
        name=name, description=description, short_description=short, fatal=bool(out), diagnostics=tuple(out)
    )


class _TooBig(Exception):
    pass


def _plain(value: object, budget: list[int], depth: int = 0) -> object:
    budget[0] -= 1
    if budget[0] < 0 or depth > _PLAIN_MAX_DEPTH:
        raise _TooBig
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v, budget, depth + 1) for v in value]
    return str(value)


_SCALARS = (str, bool, int, float, type(None))


def to_plain(mapping: dict[object, object], *, path: Path, out: list[Diagnostic]) -> dict[str, object]:
    """The frontmatter as JSON-friendly data (string keys; lists, dicts and scalars only)."""
    if all(type(k) is str and type(v) in _SCALARS for k, v in mapping.items()):
        return dict(mapping)  # type: ignore[arg-type]  # the common flat case, checked above
    try:
        result = _plain(mapping, [_PLAIN_BUDGET])
    except _TooBig:
        out.append(
            Diagnostic(
                code="SK126",
                severity=Severity.WARNING,
                message="the frontmatter is too large, too deeply nested or too deeply aliased to keep; "
                "only name and description are used",
                fix="keep the frontmatter short; put long material in the body or references/",
                path=path,
            )
        )
        return {
            k: v
            for k, v in ((str(k), v) for k, v in mapping.items())
            if k in ("name", "description") and isinstance(v, str)
        }
    assert isinstance(result, dict)
    return result
