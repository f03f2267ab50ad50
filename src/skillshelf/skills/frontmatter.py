"""Frontmatter of a ``SKILL.md``: delimiter lines, YAML, and Codex's line-oriented repair.

Everything here is pure (text in, values out). The rules follow Codex 0.171.0:

* the file is split into lines on ``\\n`` (a trailing ``\\r`` is dropped, so CRLF works);
* the first line, trimmed, must be exactly ``---``; the frontmatter ends at the next line
  that trims to ``---`` (so an indented ``---`` inside a block scalar closes it early);
* the YAML is parsed; when that fails, :func:`repair_frontmatter` quotes plain scalars that
  contain ``": "`` (or start with a flow/reserved indicator and do not parse) and the
  repaired text is parsed once more. If that fails too, the *original* error is reported.

YAML is read with libyaml through PyYAML's C parser when it is available (Codex's YAML
library is a port of libyaml, so both accept and reject the same documents).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from skillshelf.skills.yaml_tags import mark_nonspecific_scalars

__all__ = [
    "FrontmatterSplit",
    "PythonLoader",
    "YamlDocument",
    "YamlFailure",
    "collapse_whitespace",
    "load_yaml",
    "mapping_pairs",
    "null_mismatch",
    "raw_scalar",
    "repair_frontmatter",
    "rust_trim",
    "split_frontmatter",
]

# Unicode White_Space, which is what Rust's `char::is_whitespace` (and so Codex) uses.
_WS_CHARS = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_WS_SPLIT = re.compile(f"[{re.escape(_WS_CHARS)}]+")
_NULL_PLAIN = frozenset({"", "~", "null", "Null", "NULL"})
_NULL_TAG = "tag:yaml.org,2002:null"


def rust_trim(text: str) -> str:
    """Trim like Rust's ``str::trim`` (Unicode White_Space only: a BOM is not trimmed)."""
    return text.strip(_WS_CHARS)


def collapse_whitespace(text: str) -> str:
    """Codex's ``sanitize_single_line``: split on any whitespace, join with one space."""
    return " ".join(_WS_SPLIT.split(text.strip(_WS_CHARS)))


@dataclass(frozen=True, slots=True, kw_only=True)
class FrontmatterSplit:
    """Where the frontmatter and the body are in a file.

    ``yaml_text`` is the lines between the delimiters joined with ``\\n``; ``first_line`` is the
    1-based file line of its first line; ``body`` is the text after the closing delimiter line.
    ``closing_indented`` is true when the closing line starts with whitespace (a ``---`` inside
    an indented value, which closes the frontmatter early); trailing whitespace after a
    closing ``---`` is only untidy.
    """

    yaml_text: str
    body: str
    first_line: int
    closing_line: int
    closing_indented: bool


def split_frontmatter(text: str) -> FrontmatterSplit | str:
    """Split ``text`` into frontmatter and body, or return why it has none.

    The failure reasons are ``"missing"`` (first line is not ``---``), ``"unclosed"`` and
    ``"empty"`` (a closing delimiter right after the opening one).
    """
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if rust_trim(first.removesuffix("\r")) != "---":
        return "missing"
    if first_end < 0:
        return "unclosed"
    lines: list[str] = []
    pos = first_end + 1
    line_no = 1
    while pos <= len(text):
        end = text.find("\n", pos)
        raw = text[pos:] if end < 0 else text[pos:end]
        line_no += 1
        line = raw.removesuffix("\r")
        if rust_trim(line) == "---":
            if not lines:
                return "empty"
            body = "" if end < 0 else text[end + 1 :]
            return FrontmatterSplit(
                yaml_text="\n".join(lines),
                body=body,
                first_line=2,
                closing_line=line_no,
                closing_indented=not line.startswith("-"),
            )
        lines.append(line)
        if end < 0:
            break
        pos = end + 1
    return "unclosed"


# ---------------------------------------------------------------------------------------
# The repair (codex-skills.md §2.4, checked against the oracle)


def _is_ws(char: str) -> bool:
    return char in _WS_CHARS


def _split_comment(stripped: str) -> tuple[str, str]:
    """(scalar, comment) where the comment starts at the first ``#`` at 0 or after whitespace."""
    for index, char in enumerate(stripped):
        if char == "#" and (index == 0 or _is_ws(stripped[index - 1])):
            scalar = stripped[:index].rstrip(_WS_CHARS)
            return scalar, stripped[len(scalar) :]
    return stripped.rstrip(_WS_CHARS), ""


def _has_colon_space(scalar: str) -> bool:
    return any(scalar[i] == ":" and _is_ws(scalar[i + 1]) for i in range(len(scalar) - 1))


def _parses_alone(scalar: str) -> bool:
    try:
        yaml.load(scalar, Loader=_BaseLoader)
    except Exception:  # libyaml / constructor errors of every kind
        return False
    return True


def _repair_line(line: str) -> tuple[str, int | None]:
    """The line, possibly rewritten, and the indent of a block scalar it opens (if any)."""
    indent = len(line) - len(line.lstrip(" "))
    key, colon, value = line.partition(":")
    if not colon or not rust_trim(key) or (value and not _is_ws(value[0])):
        return line, None
    stripped = value.lstrip(_WS_CHARS)
    leading_ws = value[: len(value) - len(stripped)]
    scalar, comment = _split_comment(stripped)
    if not scalar:
        return line, None
    if scalar[0] in "|>":
        return line, indent
    if scalar[0] in "'\"":
        return line, None
    needs = _has_colon_space(scalar) or (scalar[0] in "[{@`" and not _parses_alone(scalar))
    if not needs:
        return line, None
    quoted = "'" + scalar.replace("'", "''") + "'"
    return f"{key}:{leading_ws}{quoted}{comment}", None


def repair_frontmatter(yaml_text: str) -> tuple[str, tuple[int, ...]] | None:
    """Codex's line-oriented repair: the repaired text and the 0-based indexes of changed lines.

    ``None`` when no line needed a change (then the original YAML error stands).
    """
    out: list[str] = []
    changed: list[int] = []
    block_indent: int | None = None
    for index, line in enumerate(yaml_text.split("\n")):
        if block_indent is not None:
            indent = len(line) - len(line.lstrip(" "))
            if not rust_trim(line) or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        new, opens = _repair_line(line)
        if opens is not None:
            block_indent = opens
        if new != line:
            changed.append(index)
        out.append(new)
    if not changed:
        return None
    return "\n".join(out), tuple(changed)


# ---------------------------------------------------------------------------------------
# YAML loading

_CParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)  # None without libyaml
_BaseLoader: Any = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


_SCALAR_TAGS = ("null", "bool", "int", "float", "str", "timestamp", "binary", "merge")
_COLLECTION_TAGS = ("map", "seq", "set", "omap", "pairs")
_Construct = Callable[[Any, yaml.Node], Any]


class _Constructor(yaml.constructor.SafeConstructor):
    """Safe constructor whose dates, times and binaries stay the text they were written as.

    Codex reads every scalar as text; keeping them as strings also keeps the parsed
    frontmatter JSON-friendly for the cache. Codex's YAML library ignores tags it does not
    need, so a tag never fails a document here either: an unknown tag (``!custom``,
    ``!!python/object:...``, ``!<tag:...>``) or one that does not fit its value (``!!int abc``,
    ``!!set [a]``) gives the value by its node's kind (text, mapping or list); no other type
    and no Python object is ever built.
    """

    def construct_raw(self, node: yaml.Node) -> Any:
        return self.construct_scalar(node)  # type: ignore[arg-type]

    def construct_by_kind(self, node: yaml.Node) -> Any:
        """Text for a scalar, a dict for a mapping, a list for a sequence, whatever the tag."""
        if isinstance(node, yaml.MappingNode):
            return self.construct_yaml_map(node)
        if isinstance(node, yaml.SequenceNode):
            return self.construct_yaml_seq(node)
        return self.construct_scalar(node)  # type: ignore[arg-type]

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """No YAML 1.1 merge keys: Codex's YAML library reads ``<<`` as an ordinary key."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """Like PyYAML's, but a complex key (``[a]: b``, valid YAML) becomes text, not an error."""
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark
            )
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = self.construct_object(key_node, deep=deep)
            else:
                key = f"<{key_node.id} key at line {key_node.start_mark.line + 1}>"
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


def _scalar_or_by_kind(construct: _Construct) -> _Construct:
    """``construct`` for a scalar it can read; else the value by its node's kind."""

    def constructor(self: _Constructor, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return self.construct_by_kind(node)
        try:
            return construct(self, node)
        except (ValueError, KeyError, yaml.constructor.ConstructorError):  # `!!int abc`, `!!bool maybe`
            return self.construct_scalar(node)

    return constructor


_SAFE: dict[Any, _Construct] = yaml.constructor.SafeConstructor.yaml_constructors
_RAW = frozenset({"timestamp", "binary", "merge"})
_Constructor.yaml_constructors = {
    **{
        f"tag:yaml.org,2002:{kind}": _scalar_or_by_kind(
            _Constructor.construct_raw if kind in _RAW else _SAFE[f"tag:yaml.org,2002:{kind}"]
        )
        for kind in _SCALAR_TAGS
    },
    **{f"tag:yaml.org,2002:{kind}": _Constructor.construct_by_kind for kind in _COLLECTION_TAGS},
    None: _Constructor.construct_by_kind,
}


class PythonLoader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    yaml.composer.Composer,
    _Constructor,
    yaml.resolver.Resolver,
):
    """The loader of :func:`load_yaml` in pure Python (for a reading that changes its scanner)."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _Constructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


if _CParser is not None:

    class _Loader(_CParser, _Constructor, yaml.resolver.Resolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            _Constructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

else:  # pragma: no cover - PyYAML without libyaml
    _Loader = PythonLoader  # type: ignore[misc,assignment]


@dataclass(frozen=True, slots=True, kw_only=True)
class YamlDocument:
    """A parsed YAML document: the constructed value and its node tree (for raw scalars)."""

    value: object
    node: yaml.Node | None


@dataclass(frozen=True, slots=True, kw_only=True)
class YamlFailure:
    """Why YAML did not parse; ``line`` is 0-based within the YAML text when known."""

    message: str
    line: int | None


def load_yaml(
    text: str, *, loader_class: type[Any] = _Loader, first_line: int = 1
) -> YamlDocument | YamlFailure:
    """Parse one YAML document (with ``loader_class``, a :class:`PythonLoader` or libyaml's
    equivalent); never raises. A scalar tagged ``!`` is its text (``yaml_tags``). A failure's
    message counts lines from ``first_line`` (the file line the text starts on)."""
    try:
        loader = loader_class(text)
    except yaml.YAMLError as exc:
        return YamlFailure(message=str(exc).splitlines()[0], line=None)
    except UnicodeEncodeError as exc:  # libyaml reads UTF-8: a lone surrogate cannot be encoded
        line = text.count("\n", 0, exc.start)
        return YamlFailure(message=f"a lone surrogate code point at line {line + first_line}", line=line)
    try:
        node = loader.get_single_node()
        if node is not None:
            mark_nonspecific_scalars(text, node, events=None if loader_class is _Loader else loader_class)
        value = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        where = f" at line {mark.line + first_line} column {mark.column + 1}" if mark is not None else ""
        return YamlFailure(message=f"{problem}{where}", line=mark.line if mark is not None else None)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (control characters)
        line = text.count("\n", 0, exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        message = f"character U+{code:04X} at line {line + first_line}: {exc.reason}"
        return YamlFailure(message=message, line=line)
    except RecursionError:
        return YamlFailure(message="the YAML is nested too deeply", line=None)
    except Exception as exc:  # constructor errors (unhashable keys, bad numbers...)
        return YamlFailure(message=" ".join(str(exc).split()) or type(exc).__name__, line=None)
    finally:
        loader.dispose()
    return YamlDocument(value=value, node=node)


def _is_plain(node: yaml.ScalarNode) -> bool:
    return not node.style  # the C parser gives "" for plain scalars, the Python one None


def null_mismatch(node: yaml.Node) -> bool:
    """Whether ``node`` is a plain scalar tagged ``!!null`` whose text is not a null
    (``!!null abc``): Codex's serde refuses it where it reads an ``Option<String>``."""
    return (
        isinstance(node, yaml.ScalarNode)
        and _is_plain(node)
        and node.tag == _NULL_TAG
        and node.value not in _NULL_PLAIN
    )


def mapping_pairs(node: yaml.Node | None) -> list[tuple[str, yaml.Node]]:
    """The (key, value node) pairs of a mapping node with scalar keys, in order."""
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(k.value, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]


def raw_scalar(node: yaml.Node) -> str | None | type[Mapping[str, Any]] | type[list[Any]]:
    """A value node as Codex's serde reads an ``Option<String>``.

    A scalar gives its text as written (``1.50`` stays ``"1.50"``); a plain null (``~``,
    ``null``, empty, untagged or tagged ``!!null``) gives ``None``, while any other tag keeps
    it text (``!custom ~`` is ``"~"``, as in Codex); a mapping or sequence gives the type
    ``dict``/``list`` so the caller can report a type error.
    """
    if isinstance(node, yaml.ScalarNode):
        if _is_plain(node) and node.value in _NULL_PLAIN and node.tag == _NULL_TAG:
            return None
        return str(node.value)
    if isinstance(node, yaml.MappingNode):
        return dict
    return list
