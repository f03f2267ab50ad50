"""A skill's name and description from its frontmatter fields, by the reader's rules: Codex
falls back to the folder name, refuses names over :data:`MAX_NAME_CHARS` characters and
requires a description; Claude Code names a skill after its folder and shows what its own YAML
reading of ``description`` gives. Pure; every finding is a diagnostic.

Claude Code 2.1.197 (measured with ``claude-oracle``) reads YAML by the 1.2 core schema and
shows a value as JavaScript's ``String()`` would: ``description: 1.50`` is ``1.5``, ``1e3`` is
``1000``, ``0x1F`` and ``+0x1F`` are ``31`` (hexadecimal and ``0o`` octal up to 64 bits, else
text), ``TRUE`` is ``true``; ``yes``, ``1_000``, ``0b1`` and dates stay as written. A tag
(``!!str``, ``!``, ``!custom``, ``!!timestamp``) keeps a scalar's text, except ``!!int``,
``!!float``, ``!!bool`` and ``!!null``, which read it as if untagged. Null, empty or blank
text (blank as JavaScript's ``trim`` sees it: U+FEFF is blank, NEL is not), a sequence or a
mapping (tagged or not, however nested) gives way to the body's first line that is not blank,
trimmed, a heading's leading ``#``s and the space after them left off (``#tag`` stays; so does
the ``#`` of a heading whose text holds a carriage return), cut to 97 UTF-16 units and ``...``
past 100; an empty body gives ``Skill`` (a command ``Custom command``).
Of a field written twice the last counts; ``when_to_use`` is appended either way. Codex reads
none of these: it drops such a skill, or repairs what it cannot type (``parse_fields``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.skills.frontmatter import collapse_whitespace, mapping_pairs

__all__ = [
    "JS_SPACE",
    "MAX_NAME_CHARS",
    "claude_bom_note",
    "claude_description",
    "claude_field_notes",
    "claude_first_line",
    "claude_reading",
    "declared_values",
    "js_trim",
    "skill_description",
    "skill_name",
]

MAX_NAME_CHARS = 64
#: What Claude Code shows for a skill with neither a description nor a body.
CLAUDE_PLACEHOLDER = "Skill"
FIRST_LINE_CAP = 100

_YAML = "tag:yaml.org,2002:"
_UNTAGGED_READING = frozenset(f"{_YAML}{kind}" for kind in ("null", "bool", "int", "float"))
_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_BOOL = {"true": "true", "True": "true", "TRUE": "true", "false": "false", "False": "false", "FALSE": "false"}
_DECIMAL = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_RADIX = re.compile(r"([-+]?)0(?:x([0-9a-fA-F]+)|o([0-7]+))")
_INFINITY = re.compile(r"([-+]?)\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
# JavaScript's String.prototype.trim and \s
JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_TRIM = re.compile(f"^[{JS_SPACE}]+|[{JS_SPACE}]+$")
# a heading's text runs to the end of the line, with no line terminator in it (JavaScript's `.+$`)
_HEADING = re.compile(f"#+[{JS_SPACE}]+([^\\n\\r\u2028\u2029]+)")


def skill_name(
    declared: str | None, *, path: Path, claude: bool, out: list[Diagnostic], self_named: bool = False
) -> str | None:
    """The name the agent gives the skill at ``path`` (its ``SKILL.md``); None when it does not
    load (SK108: too long for Codex). ``self_named``: a skill Claude Code names by its ``name``
    (a plugin's skill folder that its manifest names), else by its folder. ``declared`` is
    ``""`` for a ``name`` line written empty or null, which the fix then says to fill in."""
    name = collapse_whitespace(declared or "")
    if claude and self_named:
        return name or path.parent.name
    if claude:
        if name and name != path.parent.name:
            out.append(
                diagnostic(
                    "SK124",
                    Severity.WARNING,
                    f"Claude Code names this skill {path.parent.name!r} after its folder, not {name!r}",
                    "rename the folder or the `name` so they match",
                    path,
                    field="name",
                )
            )
        return path.parent.name
    if not name:
        name = collapse_whitespace(path.parent.name) or "skill"
        empty = declared is not None
        out.append(
            diagnostic(
                "SK109",
                Severity.INFO,
                f"{'`name` is empty' if empty else 'no `name`'}; the folder name {name!r} is used",
                f"fill in the existing `name:` line: `name: {name}`"
                if empty
                else f"add `name: {name}` to the frontmatter",
                path,
                field="name",
            )
        )
    if len(name) > MAX_NAME_CHARS:
        out.append(
            diagnostic(
                "SK108",
                Severity.ERROR,
                f"invalid name: exceeds maximum length of {MAX_NAME_CHARS} characters ({len(name)})",
                f"shorten the name to at most {MAX_NAME_CHARS} characters",
                path,
                field="name",
            )
        )
        return None
    return name


def skill_description(declared: str | None, *, path: Path, out: list[Diagnostic]) -> str | None:
    """The description Codex shows; None when there is none (SK107)."""
    description = collapse_whitespace(declared or "")
    if description:
        return description
    out.append(
        diagnostic(
            "SK107",
            Severity.ERROR,
            "missing field `description`",
            "add `description:` saying what the skill does and when to use it",
            path,
            field="description",
        )
    )
    return None


def declared_values(node: yaml.Node | None, mapping: Mapping[Any, object], key: str) -> list[yaml.Node | str]:
    """Every value written for ``key``, in order: the document's nodes, else (a frontmatter the
    fast path read, whose values are untagged plain text) the mapping's value."""
    if node is not None:
        return [value for name, value in mapping_pairs(node) if name == key]
    value = mapping.get(key)
    return [value] if isinstance(value, str) else []


def claude_field_notes(found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Codex's typing findings (SK110) as Claude Code sees them: a field it cannot read stops
    Codex, never Claude Code, so they are warnings; ``description``'s are left to
    :func:`claude_description`, which says what Claude Code shows instead."""
    notes = []
    for diag in found:
        if diag.code != "SK110" or diag.severity is not Severity.ERROR:
            notes.append(diag)
        elif diag.field != "description":
            message = f"{diag.message}; Claude Code lists the skill anyway (Codex does not load it)"
            notes.append(
                diagnostic("SK110", Severity.WARNING, message, diag.fix, diag.path, diag.line, diag.field)
            )
    return notes


def claude_description(
    values: Sequence[yaml.Node | str], body: str, *, path: Path, out: list[Diagnostic], listed: bool = True
) -> str:
    """The description Claude Code shows: the last ``description`` value as its YAML reads it,
    else the body's first line (:func:`claude_first_line`), else ``Skill``. Not ``listed``: Claude
    Code does not list the skill without a description (a plugin's, without ``when_to_use``),
    and the warning says so."""
    value = values[-1] if values else None
    kind, text = claude_reading(value)
    trimmed = js_trim(text or "")  # blank as JavaScript's trim sees it: U+FEFF goes, NEL stays
    declared = (collapse_whitespace(text or "") or trimmed) if trimmed else ""
    first = claude_first_line(body)
    shown = declared or first or CLAUDE_PLACEHOLDER
    line = _line(value)
    if len(values) > 1:
        out.append(
            diagnostic(
                "SK110",
                Severity.WARNING,
                f"duplicate field `description`; Claude Code shows the last one ({shown!r}), Codex does "
                "not load the skill",
                "keep one `description:` line",
                path,
                line,
                "description",
            )
        )
    if declared:
        written = _as_written(value)
        if kind != "text" and written is not None and declared != collapse_whitespace(written):
            out.append(
                diagnostic(
                    "SK128",
                    Severity.INFO,
                    f"`description: {written}` is read as a {kind}: Claude Code shows {declared!r} "
                    f"(Codex shows {written!r})",
                    f'quote it to keep the text: description: "{written}"',
                    path,
                    line,
                    "description",
                )
            )
        return declared
    instead = (
        f"the first line of the body ({shown!r})"
        if first
        else f"the placeholder {shown!r} (the body is empty too)"
    )
    shows = (
        f"Claude Code shows {instead}"
        if listed
        else "Claude Code does not list this plugin's skill (it has no `when_to_use` either)"
    )
    if kind in ("sequence", "mapping"):
        out.append(
            diagnostic(
                "SK127",
                Severity.WARNING,
                f"`description` is a {kind}, not text: {shows}" + (" instead" if listed else ""),
                "write `description:` as one line of text saying what the skill does and when to use "
                "it (quote it if it starts with `[`, `{`, `!` or `-`)",
                path,
                line,
                "description",
            )
        )
    else:
        out.append(
            diagnostic(
                "SK125",
                Severity.WARNING,
                f"no `description`: {shows}, and Codex does not load the skill",
                "add a `description:` that says what the skill does and when to use it",
                path,
                line,
                "description",
            )
        )
    return shown


def js_trim(text: str) -> str:
    """``text`` trimmed as JavaScript's ``String.prototype.trim`` trims it."""
    return _JS_TRIM.sub("", text)


def claude_bom_note(text: str, path: Path) -> Diagnostic:
    """SK112 for a file Claude Code reads that starts with a byte-order mark (``text``: the rest):
    Claude Code finds no frontmatter, so it shows the first line as the description."""
    shown = claude_first_line(text) or CLAUDE_PLACEHOLDER
    return diagnostic(
        "SK112",
        Severity.WARNING,
        "the file starts with a UTF-8 byte-order mark, so Claude Code finds no frontmatter: it names "
        f"the skill after its folder and shows the first line ({shown!r}) as its description (Codex "
        "skips such files)",
        "save the file as UTF-8 without BOM",
        path,
        1,
    )


def claude_first_line(body: str) -> str | None:
    """The body's first line that is not blank, as Claude Code shows it for a skill without a
    description; None when every line is blank."""
    for line in body.split("\n"):
        text = js_trim(line)
        if text:
            heading = _HEADING.fullmatch(text)
            return _cut(heading.group(1) if heading else text)
    return None


def _cut(text: str) -> str:
    """``text`` cut as JavaScript's ``slice(0, 97) + "..."`` past 100 UTF-16 units (half of a
    surrogate pair left at the cut becomes U+FFFD, as it does on its way to the model)."""
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * FIRST_LINE_CAP:
        return text
    head = units[: 2 * (FIRST_LINE_CAP - 3)].decode("utf-16-le", "replace")
    return head + "..."


def _line(value: yaml.Node | str | None) -> int | None:
    mark = getattr(value, "start_mark", None)
    return None if mark is None else mark.line + 2


def _as_written(value: yaml.Node | str | None) -> str | None:
    if isinstance(value, yaml.ScalarNode):
        return str(value.value)
    return value if isinstance(value, str) else None


def claude_reading(value: yaml.Node | str | None) -> tuple[str, str | None]:
    """(kind, text) of a frontmatter value as Claude Code reads it: its kind (``text``,
    ``number``, ``boolean``, ``null``, ``sequence``, ``mapping``) and the text it shows for it
    (None for null and collections)."""
    if value is None:
        return "null", None
    if isinstance(value, str):
        return _core_scalar(value)
    if isinstance(value, yaml.SequenceNode):
        return "sequence", None
    if not isinstance(value, yaml.ScalarNode):
        return "mapping", None
    text = str(value.value)
    if value.style:  # quoted or a block scalar
        return "text", text
    # A tag (or an anchor, or a line break) widens a plain scalar's node past its text: PyYAML
    # resolves by YAML 1.1, so ``!!str 1e3`` and an untagged ``1e3`` are both tagged ``str``.
    marked = value.end_mark.index - value.start_mark.index != len(text)
    if marked and value.tag not in _UNTAGGED_READING:
        return "text", text
    return _core_scalar(text)


def _core_scalar(text: str) -> tuple[str, str | None]:
    """An untagged plain scalar by YAML 1.2's core schema, shown as JavaScript's ``String()``."""
    if text in _NULL:
        return "null", None
    if text in _BOOL:
        return "boolean", _BOOL[text]
    number = _core_number(text)
    return ("text", text) if number is None else ("number", _js_number(number))


def _core_number(text: str) -> float | None:
    if _DECIMAL.fullmatch(text):
        return float(text)
    if radix := _RADIX.fullmatch(text):
        sign, hexadecimal, octal = radix.groups()
        magnitude = int(hexadecimal, 16) if hexadecimal else int(octal, 8)
        return None if magnitude >= 1 << 64 else float(-magnitude if sign == "-" else magnitude)
    if infinity := _INFINITY.fullmatch(text):
        return -math.inf if infinity.group(1) == "-" else math.inf
    return math.nan if _NAN.fullmatch(text) else None


def _js_number(number: float) -> str:
    """ECMAScript's Number::toString: the shortest digits that read back as ``number``, in
    plain notation from 1e-6 up to 1e21, else with an exponent."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    _, written, exponent = Decimal(repr(abs(number))).as_tuple()
    assert isinstance(exponent, int)
    point = exponent + len(written)  # the decimal point's place after the leading digit's
    digits = "".join(map(str, written)).rstrip("0")
    k = len(digits)
    if k <= point <= 21:
        plain = digits + "0" * (point - k)
    elif 0 < point <= 21:
        plain = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        plain = "0." + "0" * -point + digits
    else:
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        plain = f"{mantissa}e{'+' if point > 0 else '-'}{abs(point - 1)}"
    return sign + plain
