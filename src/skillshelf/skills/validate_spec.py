"""The Agent Skills specification's rules for one ``SKILL.md`` text (the ``spec`` profile). Pure.

The rules are the specification's (see ``peers.md`` §4): frontmatter between ``---`` lines that
is a YAML mapping, parsed strictly (no repair); only the fields ``name``, ``description``,
``license``, ``compatibility``, ``metadata`` and ``allowed-tools``; a 1-64 character lowercase
``name`` of letters, digits and single hyphens that equals its folder's name (both NFKC
normalised); a non-empty ``description`` of at most 1,024 characters; ``compatibility`` of
1-500 characters; ``metadata`` a map of strings. Every problem is reported, not just the first.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import yaml

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.frontmatter import (
    FrontmatterSplit,
    YamlDocument,
    load_yaml,
    mapping_pairs,
    raw_scalar,
    repair_frontmatter,
    split_frontmatter,
)
from skillshelf.tokens import approx_tokens

__all__ = ["ALLOWED_FIELDS", "OPENAI_YAML_KEYS", "spec_diagnostics"]

ALLOWED_FIELDS = ("allowed-tools", "compatibility", "description", "license", "metadata", "name")
#: top-level keys of agents/openai.yaml, which a SKILL.md frontmatter sometimes holds instead
OPENAI_YAML_KEYS = ("dependencies", "interface", "policy")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
BODY_LINES = 500
BODY_TOKENS = 5000

_Pairs = list[tuple[str, yaml.Node]]


class _Out:
    """Collects the findings for one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: list[Diagnostic] = []

    def add(
        self,
        code: str,
        message: str,
        fix: str,
        *,
        severity: Severity = Severity.ERROR,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.items.append(
            Diagnostic(
                code=code, severity=severity, message=message, fix=fix, path=self.path, line=line, field=field
            )
        )


def _line(node: yaml.Node, split: FrontmatterSplit) -> int:
    return int(node.start_mark.line) + split.first_line


def spec_diagnostics(text: str, *, path: Path) -> tuple[Diagnostic, ...]:
    """Every way ``text`` (the ``SKILL.md`` at ``path``) breaks the specification's rules."""
    out = _Out(path)
    split = split_frontmatter(text)
    if isinstance(split, str):
        _split_failure(out, split, text)
        return tuple(out.items)
    loaded = load_yaml(split.yaml_text, first_line=split.first_line)
    if not isinstance(loaded, YamlDocument):
        line = split.first_line + loaded.line if loaded.line is not None else None
        repaired = repair_frontmatter(split.yaml_text)
        note = (
            " (Codex repairs this by quoting the value; strict parsers and skills-ref reject it)"
            if repaired
            else ""
        )
        out.add(
            "SK322",
            f"invalid YAML in the frontmatter: {loaded.message}{note}",
            "quote values that contain `: ` or start with `[`, `{`, `@` or a backtick",
            line=line,
        )
        return tuple(out.items)
    if not isinstance(loaded.node, yaml.MappingNode):
        out.add(
            "SK323",
            "the frontmatter must be a YAML mapping of `key: value` lines",
            "write `name:` and `description:` lines between the two `---` lines",
            line=split.first_line,
        )
        return tuple(out.items)
    pairs = mapping_pairs(loaded.node)
    _fields(out, pairs, split)
    _name(out, pairs, split, path.parent.name)
    _description(out, pairs, split)
    _optional(out, pairs, split)
    _body(out, split.body)
    return tuple(out.items)


def _split_failure(out: _Out, reason: str, text: str) -> None:
    if reason == "missing":
        hint = " (the file starts with a byte-order mark)" if text.startswith("\ufeff") else ""
        out.add(
            "SK320",
            f"SKILL.md must start with YAML frontmatter: a first line `---`{hint}",
            "begin the file with `---`, `name: ...`, `description: ...`, `---`",
            line=1,
        )
    elif reason == "unclosed":
        out.add(
            "SK321",
            "the frontmatter is not closed by a `---` line",
            "add a line with only `---` after the last frontmatter field",
            line=1,
        )
    else:
        out.add(
            "SK323",
            "the frontmatter is empty; it must be a mapping with `name` and `description`",
            "add `name:` and `description:` lines between the two `---` lines",
            line=2,
        )


def _fields(out: _Out, pairs: _Pairs, split: FrontmatterSplit) -> None:
    seen: set[str] = set()
    for key, node in pairs:
        if key in seen:
            out.add(
                "SK325",
                f"the field `{key}` appears more than once",
                f"keep a single `{key}:` line",
                field=key,
                line=_line(node, split),
            )
        seen.add(key)
        if key not in ALLOWED_FIELDS:
            out.add(
                "SK324",
                f"unexpected field `{key}`: the specification allows only {', '.join(ALLOWED_FIELDS)}",
                f"move `{key}` to agents/openai.yaml, where Codex reads it"
                if key in OPENAI_YAML_KEYS
                else f"move `{key}` under `metadata:` (as a string) or remove it",
                field=key,
                line=_line(node, split),
            )
        elif isinstance(node, yaml.CollectionNode) and node.flow_style:
            out.add(
                "SK339",
                f"`{key}` uses YAML flow style (`[...]` or `{{...}}`), which "
                "skills-ref's strict YAML rejects",
                f"write `{key}` in block style, one entry per indented line",
                severity=Severity.WARNING,
                field=key,
                line=_line(node, split),
            )


def _get(pairs: _Pairs, key: str) -> yaml.Node | None:
    return next((node for k, node in pairs if k == key), None)


def _text(node: yaml.Node | None) -> str | None | type:
    """A scalar's text as written; ``None`` for a null; ``dict``/``list`` for collections."""
    if node is None:
        return None
    return raw_scalar(node)


def _name(out: _Out, pairs: _Pairs, split: FrontmatterSplit, folder: str) -> None:
    node = _get(pairs, "name")
    value = _text(node)
    line = _line(node, split) if node is not None else split.first_line
    if not isinstance(value, str) or not value.strip():
        out.add(
            "SK326",
            "`name` is required and must be a non-empty string",
            f"add `name: {_suggest(folder)}` (the folder's name)",
            field="name",
            line=line,
        )
        return
    name = unicodedata.normalize("NFKC", value.strip())
    if len(name) > MAX_NAME:
        out.add(
            "SK327",
            f"`name` is {len(name)} characters long; the limit is {MAX_NAME}",
            f"shorten the name to at most {MAX_NAME} characters (and rename the folder to match)",
            field="name",
            line=line,
        )
    if name != name.lower():
        out.add(
            "SK328",
            f"`name` {name!r} must be lowercase",
            f"use `{_suggest(name)}` (and rename the folder to match)",
            field="name",
            line=line,
        )
    _name_characters(out, name, line)
    if name != unicodedata.normalize("NFKC", folder):
        out.add(
            "SK332",
            f"`name` {name!r} must equal the folder's name {folder!r}",
            _same_name_fix(name, folder),
            field="name",
            line=line,
        )


def _same_name_fix(name: str, folder: str) -> str:
    """How to make ``name`` and ``folder`` equal, suggesting only names that pass every name rule."""
    fixes = [f"rename the folder to `{name}`"] if _valid(name) else []
    fixes += [f"set `name: {folder}`"] if _valid(folder) else []
    if fixes:
        return " or ".join(fixes)
    return f"rename the folder and set `name:` to the same valid name, e.g. `{_suggest(name)}`"


def _name_characters(out: _Out, name: str, line: int) -> None:
    bad = sorted({c for c in name if not (c.isalnum() or c == "-")})
    if bad:
        shown = " ".join(repr(c) for c in bad[:8])
        out.add(
            "SK329",
            f"`name` {name!r} contains characters other than letters, digits and hyphens: {shown}",
            f"use only a-z, 0-9 and `-`, e.g. `{_suggest(name)}`",
            field="name",
            line=line,
        )
    elif not name.isascii():
        out.add(
            "SK329",
            f"`name` {name!r} uses letters outside a-z; the specification lists a-z and 0-9 "
            "(skills-ref accepts them, other clients may not)",
            "use only a-z, 0-9 and `-`",
            severity=Severity.WARNING,
            field="name",
            line=line,
        )
    if name.startswith("-") or name.endswith("-"):
        out.add(
            "SK330",
            f"`name` {name!r} must not start or end with a hyphen",
            f"use `{_suggest(name)}`",
            field="name",
            line=line,
        )
    if "--" in name:
        out.add(
            "SK331",
            f"`name` {name!r} must not contain two hyphens in a row",
            f"use `{_suggest(name)}`",
            field="name",
            line=line,
        )


def _suggest(text: str) -> str:
    """A name like ``text`` that passes every name rule: a-z, 0-9 and single inner hyphens, at
    most :data:`MAX_NAME` characters."""
    chars = [c.lower() if c.isalnum() and c.isascii() else "-" for c in text]
    slug = "-".join(part for part in "".join(chars).split("-") if part)
    return slug[:MAX_NAME].rstrip("-") or "my-skill"


def _valid(name: str) -> bool:
    """Whether ``name`` passes every name rule (without the non-ASCII letters they warn about)."""
    return _suggest(name) == name


def _description(out: _Out, pairs: _Pairs, split: FrontmatterSplit) -> None:
    node = _get(pairs, "description")
    value = _text(node)
    line = _line(node, split) if node is not None else split.first_line
    if not isinstance(value, str) or not value.strip():
        out.add(
            "SK333",
            "`description` is required and must be a non-empty string",
            "add `description:` saying what the skill does and when to use it",
            field="description",
            line=line,
        )
        return
    if len(value) > MAX_DESCRIPTION:
        out.add(
            "SK334",
            f"`description` is {len(value):,} characters long; the limit is {MAX_DESCRIPTION:,}",
            f"cut the description to at most {MAX_DESCRIPTION:,} characters; move detail into the body",
            field="description",
            line=line,
        )


def _optional(out: _Out, pairs: _Pairs, split: FrontmatterSplit) -> None:
    for key, node in pairs:
        value = _text(node)
        line = _line(node, split)
        if key == "compatibility":
            if not isinstance(value, str):
                out.add(
                    "SK335",
                    "`compatibility` must be a string",
                    "write one line naming what the skill needs",
                    field=key,
                    line=line,
                )
            elif len(value) > MAX_COMPATIBILITY:
                out.add(
                    "SK335",
                    f"`compatibility` is {len(value):,} characters long; the limit is {MAX_COMPATIBILITY}",
                    f"shorten it to at most {MAX_COMPATIBILITY} characters",
                    field=key,
                    line=line,
                )
            elif not value.strip():
                out.add(
                    "SK335",
                    "`compatibility` is empty; the specification wants 1-500 characters",
                    "remove the empty field or say what the skill needs",
                    severity=Severity.WARNING,
                    field=key,
                    line=line,
                )
        elif key == "metadata":
            _metadata(out, node, line)
        elif key == "allowed-tools" and not isinstance(value, str):
            severity = Severity.WARNING if value is list else Severity.ERROR
            out.add(
                "SK337",
                "`allowed-tools` should be one space-separated string (e.g. `Bash(git:*) Read`)",
                "write the tools on one line separated by spaces",
                severity=severity,
                field=key,
                line=line,
            )
        elif key == "license" and not isinstance(value, str):
            out.add(
                "SK338",
                "`license` should be a short string (a license name or a bundled file)",
                "write e.g. `license: MIT` or `license: LICENSE.txt`",
                severity=Severity.WARNING,
                field=key,
                line=line,
            )


def _metadata(out: _Out, node: yaml.Node, line: int) -> None:
    if not isinstance(node, yaml.MappingNode):
        if raw_scalar(node) is not None:
            out.add(
                "SK336",
                "`metadata` must be a map of string keys to string values",
                "write `metadata:` followed by indented `key: value` lines",
                field="metadata",
                line=line,
            )
        return
    nested = [k for k, v in mapping_pairs(node) if not isinstance(v, yaml.ScalarNode)]
    if nested:
        out.add(
            "SK336",
            f"`metadata` values must be strings; {', '.join(f'`{k}`' for k in nested[:5])} "
            "hold lists or maps (skills-ref turns them into text)",
            "flatten them into `key: value` strings",
            severity=Severity.WARNING,
            field="metadata",
            line=line,
        )


def _body(out: _Out, body: str) -> None:
    lines = len(body.splitlines())
    tokens = approx_tokens(body)
    if lines > BODY_LINES or tokens > BODY_TOKENS:
        out.add(
            "SK340",
            f"the body is {lines:,} lines / about {tokens:,} tokens; the specification recommends "
            f"under {BODY_LINES} lines and {BODY_TOKENS:,} tokens",
            "move detail into references/ files the body points to",
            severity=Severity.INFO,
        )
