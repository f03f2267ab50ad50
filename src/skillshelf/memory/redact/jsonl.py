"""Redacting a JSON line string by string.

Transcripts are JSON lines, and the text in them is JSON-escaped: a rule run on the raw line
sees ``KEY=value\\nnext line`` as one value and swallows the following lines, and misses
secrets the escaping breaks up (``abc\\"def``). So each string of a JSON line is decoded,
redacted as text (strings that hold JSON are redacted the same way, a few levels deep) and,
when something changed, encoded again in place; everything else in the line stays byte for
byte. A string that is the value of a key naming a secret (``"password"``, ``"apiKey"``,
``"DB_TOKEN"``, ``"authorization"``) is a secret as a whole, and so is the ``value`` of a
name/value pair whose ``name`` names one (``{"name": "DB_PASSWORD", "value": "<secret>"}``).
An array of strings is also read as one command line, so that a secret split from its option
is found (``["docker", "login", "-p", "<secret>"]``, ``["--token", "<secret>"]``).
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from skillshelf.memory.redact.rules import KEY_WORDS
from skillshelf.memory.redact.values import REDACTED, is_code_like, is_placeholder

__all__ = ["FieldChange", "is_json_line", "is_secret_key", "redact_json_line"]

#: A JSON string literal (in a valid JSON text, every ``"`` outside strings starts one).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_KEY_AFTER = re.compile(r"[ \t]*:")
_VALUE_BETWEEN = re.compile(r"[ \t]*:[ \t]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECRET_KEY = re.compile(r"(?:" + KEY_WORDS + r"|authorization|cookie|^pass|^_?auth)$", re.IGNORECASE)
_ODD_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # not one of surrogateescape's raw bytes
_NAME_KEYS = frozenset({"name", "Name", "key", "Key"})
_VALUE_KEYS = frozenset({"value", "Value"})
_MIN_FIELD = 6  # shortest value of a secret-named key that counts (``api_key: "short"`` stays)
_MIN_TEXT = 8  # shorter strings hold no secret any text rule finds
_ARRAY_GAP = re.compile(r"[ \t]*,[ \t]*")
_MAX_ARGUMENT = 256  # longer strings of an array are scripts and texts: redacted on their own

#: Redact a text: (new text with as many lines, [(start, end, kind, category) in the text]).
TextRedactor = Callable[[str], tuple[str, list[tuple[int, int, str, str]]]]


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldChange:
    """A secret found in one string of the line: where the string is in the line, and the kind."""

    start: int
    end: int
    kind: str
    category: str


def is_json_line(line: str) -> bool:
    """A JSON object or array on one line (what transcripts are made of)."""
    head = line.lstrip()[:1]
    if head not in ("{", "[") or line.rstrip()[-1:] not in ("}", "]"):
        return False
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def is_secret_key(key: str) -> bool:
    """Whether a JSON key names a secret: ``password``, ``api_key``, ``clientSecret``, ``X-Api-Key``."""
    snake = _CAMEL.sub("_", key).replace("-", "_")
    return bool(_SECRET_KEY.search(snake))


def _field_secret(value: str) -> bool:
    return (
        len(value) >= _MIN_FIELD
        and bool(value.strip())
        and not is_placeholder(value)
        and not is_code_like(value, paths=True)
    )


def _names_secret(line: str, named: tuple[str, int], value_start: int) -> bool:
    """Whether the ``value`` of a name/value pair is named for a secret in the same object:
    ``{"name": "DB_PASSWORD", "value": X}`` (an ECS environment), ``{"Name":
    "/prod/db/password", "Type": "SecureString", "Value": X}`` (an SSM parameter)."""
    name, name_end = named
    between = line[name_end:value_start] if name_end >= 0 else "{"
    return "{" not in between and "}" not in between and is_secret_key(name)


def _encode(value: str, like: str) -> str:
    text = json.dumps(value, ensure_ascii=like.isascii())
    return _ODD_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(slots=True)
class _Field:
    start: int  # the string literal's span in the line
    end: int
    literal: str
    value: str
    secret: bool  # the value of a key that names a secret: a secret as a whole
    is_key: bool = False
    original: str = ""  # the value before the command-line pass (:func:`_redact_arguments`)
    found: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (kind, category) of that pass


def _fields(line: str, redact_text: TextRedactor) -> list[_Field]:
    """Every string of the line (long enough to hold a secret), decoded."""
    strings: list[_Field] = []
    key: str | None = None
    key_end = -1
    named = ("", -1)  # the last ``name`` of a name/value pair, and where it ends
    for match in _STRING.finditer(line):
        literal = match.group()
        content = literal[1:-1]
        value: str = json.loads(literal) if "\\" in content else content
        is_key = _KEY_AFTER.match(line, match.end()) is not None
        is_value = key is not None and not is_key and _VALUE_BETWEEN.fullmatch(line, key_end, match.start())
        secret = (  # the cheap tests first: most strings are no value of a secret's key
            bool(is_value)
            and (
                is_secret_key(str(key)) or (key in _VALUE_KEYS and _names_secret(line, named, match.start()))
            )
            and _field_secret(value)
        )
        if is_value and key in _NAME_KEYS:
            named = (value, match.end())
        strings.append(_Field(match.start(), match.end(), literal, value, secret, is_key, value))
        key, key_end = (value, match.end()) if is_key else (None, -1)
    _redact_arguments(_arrays(line, strings), redact_text)
    return [f for f in strings if f.secret or len(f.value) >= _MIN_TEXT or f.found]


def _arrays(line: str, strings: list[_Field]) -> list[list[_Field]]:
    """Runs of two or more strings that make up the start of an array (``["git", "push"``)."""
    runs: list[list[_Field]] = []
    for string in strings:
        if string.is_key:
            continue
        if runs and _ARRAY_GAP.fullmatch(line, runs[-1][-1].end, string.start) is not None:
            runs[-1].append(string)
        elif _opens_array(line, string.start):
            runs.append([string])
    return [run for run in runs if len(run) >= 2]


def _opens_array(line: str, start: int) -> bool:
    """Whether the string at ``start`` is the first item of an array."""
    at = start - 1
    while at >= 0 and line[at] in " \t":
        at -= 1
    return at >= 0 and line[at] == "["


def _redact_arguments(arrays: list[list[_Field]], redact_text: TextRedactor) -> None:
    """Read each array as one command line (all of them in one text, a line each) and redact in
    each argument the part of a secret it holds (long and multi-line strings take no part)."""
    items = [f for argv in arrays for f in argv if not f.secret]
    if not items:
        return
    words = [f.value if len(f.value) <= _MAX_ARGUMENT and "\n" not in f.value else "" for f in items]
    ends = {id(argv[-1]) for argv in arrays}
    starts: list[int] = []
    parts: list[str] = []
    at = 0
    for item, word in zip(items, words, strict=True):
        starts.append(at)
        parts += [word, "\n" if id(item) in ends else " "]
        at += len(word) + 1
    spans: dict[int, list[tuple[int, int]]] = {}
    for start, end, kind, category in redact_text("".join(parts))[1]:
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, max(start, end - 1)) - 1
        for i in range(first, last + 1):
            local = (max(start - starts[i], 0), min(end - starts[i], len(words[i])))
            if words[i] and local[1] > local[0]:
                spans.setdefault(i, []).append(local)
                items[i].found.append((kind, category))
    for i, found in spans.items():
        items[i].value = _cut(items[i].value, found)


def _cut(value: str, spans: list[tuple[int, int]]) -> str:
    """``value`` with each of ``spans`` (merged where they overlap) replaced by the marker."""
    out: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if end <= cursor:
            continue
        out += [value[cursor : max(start, cursor)], REDACTED]
        cursor = end
    return "".join([*out, value[cursor:]])


def redact_json_line(
    line: str, redact_text: TextRedactor, whole: Callable[[str], str]
) -> tuple[str, list[FieldChange]]:
    """``line`` (a valid JSON line) with every string redacted; ``whole(value)`` is what a secret
    field's value becomes (its line breaks kept).

    The strings are redacted together, one per line of one text (a rule that spans lines may
    join two strings: both lose their part), and the result is cut back at the same lines."""
    fields = _fields(line, redact_text)
    plain = [f for f in fields if not f.secret]
    found: list[tuple[int, int, str, str]] = []
    new_values: list[str] = []
    if plain:
        redacted, found = redact_text("\n".join(f.value for f in plain))
        lines = redacted.split("\n")
        at = 0
        for field in plain:
            count = field.value.count("\n") + 1
            new_values.append("\n".join(lines[at : at + count]))
            at += count
    kinds = _kinds_by_field(plain, found)
    new_by_field = dict(zip((id(f) for f in plain), new_values, strict=True))
    parts: list[str] = []
    changes: list[FieldChange] = []
    cursor = 0
    for field in fields:
        new = whole(field.value) if field.secret else new_by_field[id(field)]
        if new == field.original:
            continue
        named = [("secret-field", "assignment")] if field.secret else field.found + kinds.get(id(field), [])
        parts += [line[cursor : field.start], _encode(new, field.literal)]
        cursor = field.end
        changes += [FieldChange(start=field.start, end=field.end, kind=k, category=c) for k, c in named]
    if not changes:
        return line, []
    parts.append(line[cursor:])
    return "".join(parts), changes


def _kinds_by_field(
    fields: list[_Field], found: list[tuple[int, int, str, str]]
) -> dict[int, list[tuple[str, str]]]:
    """The (kind, category) of every finding in each field of the joined text."""
    starts: list[int] = []
    at = 0
    for field in fields:
        starts.append(at)
        at += len(field.value) + 1
    kinds: dict[int, list[tuple[str, str]]] = {}
    for start, _end, kind, category in found:
        index = bisect.bisect_right(starts, start) - 1
        kinds.setdefault(id(fields[index]), []).append((kind, category))
    return kinds
