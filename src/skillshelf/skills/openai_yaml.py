"""``agents/openai.yaml``: Codex's optional per-skill metadata, read fail-open (pure).

The rules follow Codex: a file that cannot be used at all (invalid YAML, wrong shapes, an
unknown product) is ignored as a whole and the skill still loads; single interface fields that
are empty, too long or invalid are dropped one by one. Each case yields a diagnostic.

``policy.allow_implicit_invocation`` is a boolean only when written as a plain scalar
(``false``, ``False``, ``FALSE``, any tag): quoted (``'false'``) or as a block scalar it is text,
and Codex 0.171.0 then ignores the whole file, its ``products`` and interface included
(checked with the oracle).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from skillshelf.diagnostics import Diagnostic, Severity
from skillshelf.skills.frontmatter import YamlFailure, collapse_whitespace, load_yaml, raw_scalar
from skillshelf.skills.model import SkillInterface, SkillPolicy, ToolDependency

__all__ = ["OpenAIMetadata", "parse_openai_yaml"]

PRODUCTS = frozenset({"chatgpt", "codex", "atlas"})
_NODE_BUDGET = 5000
#: Codex's openai.yaml nests four levels (dependencies.tools[i].field); far deeper is refused
#: before the recursive read below could reach Python's recursion limit.
_MAX_DEPTH = 32
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAIMetadata:
    """What ``agents/openai.yaml`` contributes to a skill."""

    interface: SkillInterface | None = None
    policy: SkillPolicy = SkillPolicy()
    dependencies: tuple[ToolDependency, ...] = ()


class _Unusable(Exception):
    """The file as a whole cannot be used (Codex ignores it)."""


class _Written(str):
    """A scalar written quoted or as a block: text, never a boolean."""

    __slots__ = ()


Raw = str | None | dict[str, "Raw"] | list["Raw"]


def _raw(node: yaml.Node, budget: list[int], depth: int = 0) -> Raw:
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unusable("the file is too large or too deeply aliased")
    if depth > _MAX_DEPTH:
        raise _Unusable(f"values are nested more than {_MAX_DEPTH} levels deep")
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Raw] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise _Unusable("a mapping key is not text")
            out[str(key.value)] = _raw(value, budget, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_raw(item, budget, depth + 1) for item in node.value]
    scalar = raw_scalar(node)
    if isinstance(scalar, str) and isinstance(node, yaml.ScalarNode) and node.style:
        return _Written(scalar)
    return scalar if isinstance(scalar, str) or scalar is None else None


def _mapping(value: Raw, where: str) -> dict[str, Raw]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Unusable(f"`{where}` must be a mapping")
    return value


def _text(value: Raw, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Unusable(f"`{where}` must be text")
    return value


class _Reader:
    def __init__(self, path: Path | None, skill_dir: Path | None) -> None:
        self.path = path
        self.skill_dir = skill_dir
        self.notes: list[Diagnostic] = []

    def drop(self, field: str, why: str) -> None:
        self.notes.append(
            Diagnostic(
                code="SK118",
                severity=Severity.INFO,
                message=f"`{field}` in agents/openai.yaml is ignored: {why}",
                fix=f"fix or remove `{field}`; the rest of the file is used",
                path=self.path,
                field=field,
            )
        )

    def bounded(self, value: Raw, field: str, limit: int) -> str | None:
        text = _text(value, field)
        if text is None:
            return None
        text = collapse_whitespace(text)
        if not text:
            self.drop(field, "it is empty")
            return None
        if len(text) > limit:
            self.drop(field, f"it is longer than {limit} characters")
            return None
        return text

    def icon(self, value: Raw, field: str) -> Path | None:
        text = self.bounded(value, field, 1024)
        if text is None:
            return None
        parts = [p for p in PurePosixPath(text.replace("\\", "/")).parts if p != "."]
        if text.startswith("/") or not parts or parts[0] != "assets" or ".." in parts or len(parts) < 2:
            self.drop(field, "icons must be relative paths under the skill's assets/ folder")
            return None
        return (self.skill_dir / Path(*parts)) if self.skill_dir is not None else Path(*parts)

    def interface(self, raw: Raw) -> SkillInterface | None:
        data = _mapping(raw, "interface")
        color = self.bounded(data.get("brand_color"), "interface.brand_color", 7)
        if color is not None and not (
            color.startswith("#")
            and all(c in "0123456789abcdefABCDEF" for c in color[1:])
            and len(color) == 7
        ):
            self.drop("interface.brand_color", "it must look like #RRGGBB")
            color = None
        iface = SkillInterface(
            display_name=self.bounded(data.get("display_name"), "interface.display_name", 64),
            short_description=self.bounded(
                data.get("short_description"), "interface.short_description", 1024
            ),
            icon_small=self.icon(data.get("icon_small"), "interface.icon_small"),
            icon_large=self.icon(data.get("icon_large"), "interface.icon_large"),
            brand_color=color,
            default_prompt=self.bounded(data.get("default_prompt"), "interface.default_prompt", 1024),
        )
        return None if iface == SkillInterface() else iface

    def policy(self, raw: Raw) -> SkillPolicy:
        data = _mapping(raw, "policy")
        allow_raw = _text(data.get("allow_implicit_invocation"), "policy.allow_implicit_invocation")
        if allow_raw is not None and (isinstance(allow_raw, _Written) or allow_raw not in _TRUE | _FALSE):
            raise _Unusable("`policy.allow_implicit_invocation` must be true or false, unquoted")
        products_raw = data.get("products")
        if products_raw is not None and not isinstance(products_raw, list):
            raise _Unusable("`policy.products` must be a list")
        products: list[str] = []
        for item in products_raw or []:
            name = (_text(item, "policy.products") or "").lower()
            if name not in PRODUCTS:
                raise _Unusable(
                    f"unknown product {item!r} in `policy.products` (known: chatgpt, codex, atlas)"
                )
            products.append(name)
        return SkillPolicy(allow_implicit_invocation=allow_raw not in _FALSE, products=tuple(products))

    def tools(self, raw: Raw) -> tuple[ToolDependency, ...]:
        tools_raw = _mapping(raw, "dependencies").get("tools")
        if tools_raw is None:
            return ()
        if not isinstance(tools_raw, list):
            raise _Unusable("`dependencies.tools` must be a list")
        out: list[ToolDependency] = []
        for index, item in enumerate(tools_raw):
            tool = _mapping(item, f"dependencies.tools[{index}]")
            where = f"dependencies.tools[{index}]"
            kind = self.bounded(tool.get("type"), f"{where}.type", 64)
            value = self.bounded(tool.get("value"), f"{where}.value", 1024)
            if kind is None or value is None:
                self.drop(where, "a tool needs both `type` and `value`")
                continue
            out.append(
                ToolDependency(
                    type=kind,
                    value=value,
                    description=self.bounded(tool.get("description"), f"{where}.description", 1024),
                    transport=self.bounded(tool.get("transport"), f"{where}.transport", 64),
                    command=self.bounded(tool.get("command"), f"{where}.command", 1024),
                    url=self.bounded(tool.get("url"), f"{where}.url", 1024),
                )
            )
        return tuple(out)


def parse_openai_yaml(
    text: str, *, path: Path | None = None, skill_dir: Path | None = None
) -> tuple[OpenAIMetadata, tuple[Diagnostic, ...]]:
    """Read ``agents/openai.yaml`` text; unusable files give empty metadata and a warning."""
    reader = _Reader(path, skill_dir)
    try:
        doc = load_yaml(text)
        if isinstance(doc, YamlFailure):
            raise _Unusable(f"invalid YAML: {doc.message}")
        raw = _raw(doc.node, [_NODE_BUDGET]) if doc.node is not None else None
        top = _mapping(raw, "the file")
        meta = OpenAIMetadata(
            interface=reader.interface(top.get("interface")),
            policy=reader.policy(top.get("policy")),
            dependencies=reader.tools(top.get("dependencies")),
        )
    except _Unusable as exc:
        warning = Diagnostic(
            code="SK117",
            severity=Severity.WARNING,
            message=f"agents/openai.yaml is ignored: {exc}",
            fix="fix the file (Codex ignores it too); the skill itself still loads",
            path=path,
        )
        return OpenAIMetadata(), (warning,)
    return meta, tuple(reader.notes)
