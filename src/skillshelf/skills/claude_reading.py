"""Claude Code's own reading of a frontmatter where it differs from Codex's (pure).

Claude Code 2.1.197 (read from the pinned CLI and measured with ``claude-oracle``):

- When its YAML fails, it repairs the text once (:func:`claude_repair`): a line
  ``key: value`` (the key of ASCII letters, ``_`` and ``-`` only, at the start of the line, and
  no carriage return in the line) whose value is not quoted at both ends, nor a ``[...]`` that
  reads as a list, and holds one of ``{}[]*&#!|>%@``` or ``": "``, has its value put in double
  quotes (``\\`` and ``"`` escaped); then tabs at the start of a line become two spaces each.
  A frontmatter that still fails, or is not a mapping, is ignored whole: the skill is listed,
  named after its folder, with the body's first line (no field is salvaged, ``when_to_use`` and
  ``disable-model-invocation`` included).
- ``when_to_use`` (not ``when-to-use``) is shown as JavaScript's ``String()`` shows the value
  (:func:`claude_when_to_use`): ``[a, b]`` is ``a,b``, a mapping ``[object Object]``, ``1.50``
  ``1.5``, a null in a list the empty text; null is no ``when_to_use``. Whitespace is kept.
- The frontmatter is what its regex ``^---\\s*\\n([\\s\\S]*?)---\\s*\\n?`` finds
  (:func:`claude_split`): it opens with ``---`` at the very start of the file and ends at the
  next ``---`` anywhere, inside a line or a quoted value too (``description: a---b`` reads
  ``a``); the rest of that line, after the whitespace that follows the ``---`` (blank lines
  included), starts the body. Without a match the whole file is the body.
- Its YAML (:func:`claude_yaml`) reads the text up to its first NUL (what follows is not read;
  the repair, though, sees the whole text). A C0 or C1 control character, DEL, U+FFFE or U+FFFF
  is a character like any other (PyYAML refuses them), and NEL, LS and PS break no line (PyYAML
  breaks lines at them): ``description: a\x80b`` is ``a\x80b``, and so in quotes, in a block
  scalar, a key or a comment. A ``,`` outside a flow collection may start a plain scalar
  (``description: , it might`` is ``, it might``, ``,x # c`` is ``,x``); ``[``, ``]``, ``{``,
  ``}``, ``%``, ``@`` and a backtick do not start one, so their lines are repaired (quoted,
  comment and all: ``]x # c`` is ``]x # c``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from skillshelf.diagnostics import Diagnostic, Severity, diagnostic
from skillshelf.skills.frontmatter import (
    FrontmatterSplit,
    PythonLoader,
    YamlDocument,
    YamlFailure,
    load_yaml,
    rust_trim,
)
from skillshelf.skills.parse_fields import KnownFields, known_fields
from skillshelf.skills.parse_identity import JS_SPACE, claude_reading
from skillshelf.skills.yaml_tags import scalar_nodes

__all__ = [
    "ClaudeSplit",
    "Ignored",
    "claude_frontmatter",
    "claude_hides",
    "claude_repair",
    "claude_split",
    "claude_when_to_use",
    "claude_yaml",
    "ignored_frontmatter",
    "js_string",
    "load_claude",
    "repaired_note",
    "split_note",
]

# `key:`, JavaScript's \s+, and its `.+` (which stops at line terminators)
_LINE = re.compile(f"([a-zA-Z_-]+):[{JS_SPACE}]+([^\n\r\u2028\u2029]+)")
_NEEDS_QUOTES = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_INDICATORS = frozenset("{}[]*&#!|>%@`")  # a value that starts with one is not plain text in YAML
_LEADING_TABS = re.compile(r"^\t+")
_OBJECT = "[object Object]"
_SPACES = re.compile(f"[{JS_SPACE}]*")
# What Claude Code's YAML reads as ordinary characters where PyYAML refuses them or breaks a line:
# parsed as stand-ins from plane 15 (private use), then given back
_ODD = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff]")
_STAND_IN = 0xF0000
_STAND_INS = re.compile("[\U000f0001-\U000f009f\U000f2028\U000f2029\U000ffffe\U000fffff]")
_ODD_CODES = (
    *range(0x01, 0x09),
    0x0B,
    0x0C,
    *range(0x0E, 0x20),
    *range(0x7F, 0xA0),
    0x2028,
    0x2029,
    0xFFFE,
    0xFFFF,
)
_GIVEN_BACK = {_STAND_IN + code: code for code in _ODD_CODES}


class _ClaudeLoader(PythonLoader):
    """PyYAML's reading, but a ``,`` outside a flow collection starts a plain scalar."""

    def fetch_flow_entry(self) -> None:
        if self.flow_level:
            super().fetch_flow_entry()
        else:
            self.fetch_plain()


def claude_yaml(text: str, first_line: int = 1) -> YamlDocument | YamlFailure:
    """``text`` read as Claude Code's YAML reads it (see the module's docstring). A text already
    holding one of the stand-ins is read as PyYAML reads it. ``first_line``: as ``load_yaml``'s."""
    text = text.partition("\0")[0]
    odd = _ODD.search(text) is not None and _STAND_INS.search(text) is None
    if odd:
        text = _ODD.sub(lambda m: chr(_STAND_IN + ord(m.group())), text)
    loaded = load_yaml(text, first_line=first_line)
    if isinstance(loaded, YamlFailure) and "," in text:
        lenient = load_yaml(text, loader_class=_ClaudeLoader, first_line=first_line)
        loaded = lenient if isinstance(lenient, YamlDocument) else loaded
    if not odd or not isinstance(loaded, YamlDocument):
        return loaded
    _nodes_given_back(loaded.node)
    return YamlDocument(value=_given_back(loaded.value, set()), node=loaded.node)


def _nodes_given_back(root: yaml.Node | None) -> None:
    for node in scalar_nodes(root):
        node.value = node.value.translate(_GIVEN_BACK)


def _given_back(value: object, seen: set[int]) -> object:
    """``value`` with the stand-ins in its text given back (its lists and dicts changed in place)."""
    if isinstance(value, str):
        return value.translate(_GIVEN_BACK)
    if not isinstance(value, list | dict) or id(value) in seen:
        return value
    seen.add(id(value))
    if isinstance(value, list):
        value[:] = [_given_back(item, seen) for item in value]
    else:
        items = [(_given_back(key, seen), _given_back(item, seen)) for key, item in value.items()]
        value.clear()
        value.update(items)
    return value


def _repair_line(line: str) -> str:
    match = _LINE.fullmatch(line)
    if match is None:
        return line
    key, value = match.groups()
    if value[0] == value[-1] and value[0] in "\"'":
        return line
    if value.startswith("[") and value.endswith("]"):
        loaded = claude_yaml(value)
        if isinstance(loaded, YamlDocument) and isinstance(loaded.value, list):
            return line
    if not _NEEDS_QUOTES.search(value):
        return line
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'{key}: "{escaped}"'


@dataclass(frozen=True, slots=True, kw_only=True)
class Ignored:
    """Why Claude Code ignores a frontmatter: a ``code`` (SK104, SK106), the ``problem``, its line."""

    code: str
    problem: str
    line: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeSplit:
    """Where Claude Code's frontmatter regex puts the frontmatter and the body.

    ``raw_yaml`` is the frontmatter as in the file, ``yaml_text`` the same without each line's
    carriage return (a :class:`FrontmatterSplit`'s, when the two splits agree); ``first_line``
    is its first line in the file, ``closing_line`` the line of the ``---`` that ends it, and
    ``own_line`` whether that line trims to ``---`` (where Codex's split ends it too)."""

    yaml_text: str
    raw_yaml: str
    body: str
    first_line: int
    closing_line: int
    own_line: bool


def claude_split(text: str) -> ClaudeSplit | None:
    """The frontmatter and body of ``text`` as Claude Code splits them; None when its regex finds
    no frontmatter (the whole text is the body)."""
    # The regex without its backtracking (quadratic on a long run of blank lines): the
    # frontmatter starts after the last line break of the whitespace after the opening `---`
    # (no `---` can start inside that run) and ends at the next `---`.
    if not text.startswith("---"):
        return None
    start = text.rfind("\n", 3, _past_spaces(text, 3)) + 1
    end = text.find("---", start) if start else -1
    if end < 0:
        return None
    line_start = text.rfind("\n", 0, end) + 1
    line_end = text.find("\n", end)
    closing = text[line_start : len(text) if line_end < 0 else line_end]
    own_line = rust_trim(closing.removesuffix("\r")) == "---"
    lines = text[start:end].split("\n")
    raw = lines[:-1] if own_line else lines  # the closing line's part before a lone `---`
    return ClaudeSplit(
        yaml_text="\n".join(line.removesuffix("\r") for line in raw),
        raw_yaml="\n".join(raw),
        body=text[_past_spaces(text, end + 3) :],
        first_line=text.count("\n", 0, start) + 1,
        closing_line=text.count("\n", 0, end) + 1,
        own_line=own_line,
    )


def _past_spaces(text: str, index: int) -> int:
    """Where the run of JavaScript's whitespace from ``index`` ends."""
    run = _SPACES.match(text, index)
    return index if run is None else run.end()


def claude_frontmatter(
    text: str, codex: FrontmatterSplit | str, path: Path, out: list[Diagnostic]
) -> ClaudeSplit | None:
    """:func:`claude_split` of ``text``, with :func:`split_note` in ``out`` when it is not
    ``codex``'s split."""
    split = claude_split(text)
    note = split_note(codex, split, path)
    if note is not None:
        out.append(note)
    return split


def split_note(codex: FrontmatterSplit | str, claude: ClaudeSplit | None, path: Path) -> Diagnostic | None:
    """SK129 when Claude Code's frontmatter is not Codex's: it ends at a ``---`` inside a line,
    or Claude Code finds none where Codex finds one."""
    if claude is None and isinstance(codex, FrontmatterSplit):
        return diagnostic(
            "SK129",
            Severity.WARNING,
            "Claude Code finds no frontmatter: the file does not start with `---` at the start of its "
            "first line, so it reads the whole file as the body (Codex reads the frontmatter)",
            "start the file with a line that is `---` alone, with nothing before it",
            path,
            1,
        )
    if claude is None or claude.own_line:
        return None
    codex_end = (
        f"Codex reads on to line {codex.closing_line}"
        if isinstance(codex, FrontmatterSplit)
        else "Codex finds no `---` line to end it"
    )
    return diagnostic(
        "SK129",
        Severity.WARNING,
        f"Claude Code ends the frontmatter at the `---` inside line {claude.closing_line} ({codex_end}): "
        "it reads the fields only up to that `---`, and the rest of the line and what follows as the body",
        "do not write `---` inside a frontmatter value (quoting it or a block scalar does not help: "
        "Claude Code ends the frontmatter at the first `---` anywhere); write `--` or `—` instead",
        path,
        claude.closing_line,
    )


def claude_repair(raw_yaml: str) -> tuple[str, tuple[int, ...]]:
    """Claude Code's repair of frontmatter text that failed to parse (``raw_yaml``: its lines as
    in the file, carriage returns kept): the text to parse again and the 0-based indexes of the
    lines it changed."""
    lines = raw_yaml.split("\n")
    repaired = [_LEADING_TABS.sub(lambda m: "  " * len(m.group()), _repair_line(line)) for line in lines]
    changed = tuple(i for i, (old, new) in enumerate(zip(lines, repaired, strict=True)) if old != new)
    return "\n".join(repaired), changed


def js_string(value: yaml.Node | str | None) -> str | None:
    """A frontmatter value as JavaScript's ``String()`` shows Claude Code's YAML reading of it;
    None for null."""
    if isinstance(value, yaml.SequenceNode):
        return ",".join(js_string(item) or "" for item in value.value)
    if isinstance(value, yaml.MappingNode):
        return _OBJECT
    return claude_reading(value)[1]


def claude_when_to_use(
    values: Sequence[yaml.Node | str], *, path: Path
) -> tuple[str | None, list[Diagnostic]]:
    """The ``when_to_use`` Claude Code shows (the last one written), as :func:`js_string`, and a
    warning (SK120) when it is a list or a mapping."""
    value = values[-1] if values else None
    shown = js_string(value)
    if not isinstance(value, yaml.CollectionNode):
        return shown, []
    kind = "list" if isinstance(value, yaml.SequenceNode) else "mapping"
    note = diagnostic(
        "SK120",
        Severity.WARNING,
        f"`when_to_use` is a {kind}, not text: Claude Code shows it as {shown!r}",
        "write `when_to_use:` as one line of text saying when to use the skill",
        path,
        value.start_mark.line + 2,
        "when_to_use",
    )
    return shown, [note]


def claude_hides(values: Sequence[yaml.Node | str], *, path: Path) -> tuple[bool, list[Diagnostic]]:
    """Whether ``disable-model-invocation`` (the last one written) keeps the skill from the model
    in Claude Code, which hides it only for a YAML 1.2 ``true`` or the text ``"true"``
    (``=== true || === "true"``); a warning (SK120) when YAML 1.1 reads the value as true
    (``yes``, ``on``), as Codex and skillshelf's other views do, but Claude Code does not."""
    value = values[-1] if values else None
    kind, text = claude_reading(value)
    hides = kind in ("boolean", "text") and text == "true"
    written = value.value if isinstance(value, yaml.ScalarNode) else value
    if hides or not isinstance(written, str) or written.strip().lower() not in ("yes", "on", "y"):
        return hides, []
    note = diagnostic(
        "SK120",
        Severity.WARNING,
        f"`disable-model-invocation: {written}` does not hide the skill in Claude Code (only `true` does)",
        "write `disable-model-invocation: true`",
        path,
        value.start_mark.line + 2 if isinstance(value, yaml.Node) else None,
        "disable-model-invocation",
    )
    return hides, [note]


def repaired_note(path: Path, first_line: int, changed: Sequence[int], agent: str, text: str) -> Diagnostic:
    """SK105: ``agent`` repaired the YAML ``text`` (from file line ``first_line`` on) by quoting the
    values on its ``changed`` lines (0-based); the fix follows what those values hold."""
    written = text.split("\n")
    lines = [first_line + i for i in changed]
    return diagnostic(
        "SK105",
        Severity.WARNING,
        f"invalid YAML repaired by quoting the value on line(s) {', '.join(map(str, lines))} "
        f"({agent} repairs it the same way)",
        _repair_fix([written[i] for i in changed]),
        path,
        lines[0],
    )


def _repair_fix(texts: Sequence[str]) -> str:
    """What to quote: values that start with a YAML indicator, values holding ``: ``, or both."""
    pairs = [(key.strip(), value.strip()) for key, _, value in (text.partition(":") for text in texts)]
    starts = [(key, value) for key, value in pairs if value[:1] in _INDICATORS]
    colon = 'values that contain `: ` (e.g. `description: "Deploy: fast"`)'
    if not starts:
        return f"quote {colon} so strict parsers accept them"
    signs = ", ".join(sorted({f"`{value[0]}`" if value[0] != "`" else "a backtick" for _, value in starts}))
    key, value = starts[0]
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    example = f'{key}: "{escaped}"' if "`" in value else f'`{key}: "{escaped}"`'
    also = f", and {colon}" if len(starts) < len(pairs) else ""
    return (
        f"quote values that start with a YAML indicator ({signs}), e.g. {example}{also}, "
        "so strict parsers accept them"
    )


def load_claude(
    split: ClaudeSplit, path: Path, out: list[Diagnostic]
) -> tuple[YamlDocument, KnownFields] | Ignored:
    """The document and Codex's fields, read as Claude Code reads them (its own repair when the
    YAML fails); else why it ignores the frontmatter, and the line."""
    first = claude_yaml(split.yaml_text, split.first_line)
    if isinstance(first, YamlDocument):
        return first, known_fields(first.node, path=path)
    repaired, changed = claude_repair(split.raw_yaml)  # carriage returns kept
    second = claude_yaml(repaired) if changed else first
    if isinstance(second, YamlDocument):
        out.append(repaired_note(path, split.first_line, changed, "Claude Code", split.raw_yaml))
        return second, known_fields(second.node, path=path)
    line = split.first_line + first.line if first.line is not None else None
    return Ignored(code="SK104", problem=f"invalid YAML: {first.message}", line=line)


def ignored_frontmatter(why: Ignored, *, name: str, shown: str, plugin: bool, path: Path) -> Diagnostic:
    """The warning for a frontmatter Claude Code ignores whole: the skill ``name`` is listed as
    ``shown``; a ``plugin``'s skill, with no description, is not."""
    listed = (
        f"does not list this plugin's skill {name!r} (it has no description then)"
        if plugin
        else f"lists the skill as {name!r} (its folder) with {shown!r}"
    )
    return diagnostic(
        why.code,
        Severity.WARNING,
        f"{why.problem}; Claude Code ignores the whole frontmatter (when_to_use and disable-model-invocation "
        f"included) and {listed}; Codex does not load it",
        "fix the YAML between the `---` lines so it is a mapping of `key: value` lines; quote values that "
        'contain `: ` or start with `[`, `{`, `*`, `&`, `!`, `|`, `>`, `%`, `@` or `"`, and indent with '
        "spaces, not tabs",
        path,
        why.line,
    )
