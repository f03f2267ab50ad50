"""Whether Claude Code (2.1.197) loads a ``.claude/rules`` file at start, or only for matching
files: the globs of its front matter ``paths`` (pure; read from the pinned CLI and measured with
``claude-oracle``).

The front matter is found and read as for a skill (:func:`~skillshelf.skills.claude_reading.claude_split`,
YAML 1.2 with Claude Code's one repair); YAML that still fails, or a front matter that is not a
mapping, is no front matter. ``paths`` (the last one written) gives its globs:

- a text is split at each ``,`` outside ``{}``, each part trimmed (JavaScript's ``trim``) and
  blank parts dropped, then each part's first ``{a,b}`` group is expanded, again and again
  (``src/{a,b}/x`` is ``src/a/x`` and ``src/b/x``; ``{}`` is kept as written);
- a list gives the globs of each item, nested lists too; null, a boolean, a number or a
  mapping gives none (``paths: 1``, ``true``, ``[]``, ``{}``, ``null``, ``""``);
- each glob loses one trailing ``/**`` and is dropped when that leaves it empty.

A rule is conditional (left out at start) when some glob remains and not every one is ``**``:
``"**"``, ``"**/**"``, ``["**", ""]``, ``", "`` and ``"/**"`` load it; ``"*"``, ``"**/*"``,
``"**/"``, ``"./**"``, ``"**/**/**"``, ``"src/**"``, ``yes`` (text in YAML 1.2) and ``"0"`` do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import yaml

from skillshelf.skills.claude_reading import claude_repair, claude_split, claude_yaml
from skillshelf.skills.frontmatter import YamlDocument, YamlFailure, mapping_pairs
from skillshelf.skills.parse_identity import claude_reading, js_trim

__all__ = ["MAX_EXPANDED_GLOBS", "RulePaths", "rule_paths", "split_globs"]

#: How many globs a rule's ``paths`` may expand to before the rest are not looked at
#: (``{a,b}`` ten times over is 1,024): a rule past it is taken as conditional.
MAX_EXPANDED_GLOBS = 1000

# JavaScript's /^([^{]*)\{([^}]+)\}(.*)$/: its `.` stops at line terminators, `$` is the end
_BRACES = re.compile(r"([^{]*)\{([^}]+)\}([^\n\r\u2028\u2029]*)\Z")


@dataclass(frozen=True, slots=True, kw_only=True)
class RulePaths:
    """A rule's globs after Claude Code's clean-up (empty: always loaded), and why its front
    matter was not read (``yaml_problem``), when it was not."""

    globs: tuple[str, ...] = ()
    yaml_problem: str | None = None
    too_many: bool = False

    @property
    def conditional(self) -> bool:
        """Whether Claude Code loads the rule only for files its globs match (taken as so when
        its braces expand past :data:`MAX_EXPANDED_GLOBS`)."""
        return self.too_many or any(glob != "**" for glob in self.globs)


def rule_paths(text: str) -> RulePaths:
    """The ``paths`` of the rule file ``text`` as Claude Code reads them (see the module)."""
    split = claude_split(text)
    if split is None:
        return RulePaths()
    document = claude_yaml(split.yaml_text)
    if isinstance(document, YamlFailure) and "nest" in document.message:
        # deeper than our parser goes (Claude Code's reads it): unread, so loaded, as it does
        # with nested lists that hold no glob
        return RulePaths(yaml_problem=document.message)
    if not isinstance(document, YamlDocument):
        repaired, changed = claude_repair(split.raw_yaml)
        second = claude_yaml(repaired) if changed else document
        if not isinstance(second, YamlDocument):
            return RulePaths(yaml_problem=document.message)
        document = second
    values = [node for key, node in mapping_pairs(document.node) if key == "paths"]
    if not values:
        return RulePaths()
    globs: list[str] = []
    for count, glob in enumerate(_globs(values[-1])):
        if count >= MAX_EXPANDED_GLOBS:
            return RulePaths(globs=tuple(globs), too_many=True)
        if glob := glob.removesuffix("/**"):
            globs.append(glob)
    return RulePaths(globs=tuple(globs))


def _globs(root: yaml.Node) -> Iterator[str]:
    """The globs of a ``paths`` node, lists flattened in order (each node looked at once)."""
    stack: list[yaml.Node] = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.ScalarNode):
            kind, value = claude_reading(node)
            if kind == "text" and value is not None:
                yield from split_globs(value)


def split_globs(text: str) -> Iterator[str]:
    """The globs of one ``paths`` text: split at top-level commas, trimmed, braces expanded."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += 1 if char == "{" else -1 if char == "}" else 0
        current.append(char)
    parts.append("".join(current))
    for part in parts:
        trimmed = js_trim(part)
        if trimmed:
            yield from _expanded(trimmed)


def _expanded(glob: str) -> Iterator[str]:
    """``glob`` with its first ``{a,b}`` group expanded, then each result's, depth first."""
    stack = [glob]
    while stack:
        current = stack.pop()
        match = _BRACES.match(current)
        if match is None:
            yield current
            continue
        head, choices, tail = match.groups()
        stack.extend(reversed([head + js_trim(choice) + tail for choice in choices.split(",")]))
