"""Tools as data, and their shapes in the MCP, OpenAI and Anthropic tool formats.

A :class:`ToolSpec` is what a model sees of a tool (name, description, JSON Schema of the
arguments); a :class:`Tool` is a spec that carries its handler, so a registry of tools (the
skill tools: :data:`skillshelf.serve.skill_tools.SKILL_TOOLS`) is both what is offered and what
runs. The ``to_*`` functions only change the envelope, so every surface describes the tools with
the same words. ``str_arg``/``int_arg`` read a call's arguments (which the dispatch has checked
against the tool's schema: :mod:`skillshelf.serve.arguments`), raising ``UsageError`` (SV400).

The tool definitions are typed as the SDKs' own parameter types (:data:`ResponsesTool`,
:data:`ChatTool`, :data:`AnthropicTool`), imported for type checkers only: a host's
``tools=`` argument or ``list[FunctionToolParam]`` type-checks as is, and nothing imports an SDK
at run time (where an SDK is not installed, a type checker reads the type as ``Any``). A
Responses tool always carries ``strict``: the API reads a missing one as "strict where the
schema allows", so ``strict=False`` sends ``"strict": false``; Chat Completions reads a missing
one as false, and its tools carry the key only when it is true (as some compatible servers
expect).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, TypeVar, overload

from skillshelf.errors import SkillshelfError, UsageError, reason
from skillshelf.serve.arguments import is_integer, rule_text

if TYPE_CHECKING:
    from anthropic.types import ToolParam as AnthropicTool
    from openai.types.chat import ChatCompletionToolParam as ChatTool
    from openai.types.responses import FunctionToolParam as ResponsesTool
else:  # the names exist at run time too (get_type_hints, help())
    AnthropicTool: TypeAlias = dict[str, Any]
    ChatTool: TypeAlias = dict[str, Any]
    ResponsesTool: TypeAlias = dict[str, Any]

__all__ = [
    "AnthropicTool",
    "Arguments",
    "ChatTool",
    "OpenAIFormat",
    "ResponsesTool",
    "Tool",
    "ToolResult",
    "ToolSpec",
    "clipped",
    "error_result",
    "int_arg",
    "parse_arguments",
    "parse_cursor",
    "str_arg",
    "to_anthropic",
    "to_openai",
    "whole_number",
    "with_name_enum",
]

OpenAIFormat = Literal["responses", "chat"]
Arguments = Mapping[str, Any]
ERROR_MESSAGE_CHARS = 600  # an error's message (or fix) for the model, at most
HostT = TypeVar("HostT")
ResultT = TypeVar("ResultT")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """One tool: its name, what it is for, and the JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(hash=False)
    read_only: bool = True

    def schema(self) -> dict[str, Any]:
        """A fresh, mutable copy of the argument schema."""
        return copy.deepcopy(dict(self.parameters))


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool(ToolSpec, Generic[HostT, ResultT]):
    """A :class:`ToolSpec` with the function that runs it: ``handler(host, arguments)``, where
    ``host`` is the object the tool works on (e.g. :class:`~skillshelf.serve.tools.SkillTools`).

    ``mcp_only`` tools are served to MCP clients but not handed to a model through the APIs;
    ``structured`` tools also send their result's data as MCP ``structuredContent``.
    """

    handler: Callable[[HostT, Arguments], ResultT]
    mcp_only: bool = False
    structured: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """What a tool call gives back: the text for the model, and the same as structured data."""

    text: str
    is_error: bool = False
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "is_error": self.is_error, "data": dict(self.data)}


def with_name_enum(spec: ToolSpec, names: Sequence[str]) -> ToolSpec:
    """``spec`` with its ``name`` argument (if any) limited to ``names``."""
    schema = spec.schema()
    prop = schema.get("properties", {}).get("name")
    if prop is None or not names:
        return spec
    prop["enum"] = list(names)
    return dataclasses.replace(spec, parameters=schema)


@overload
def to_openai(
    specs: Sequence[ToolSpec], *, api: Literal["responses"] = ..., strict: bool = ...
) -> list[ResponsesTool]: ...
@overload
def to_openai(specs: Sequence[ToolSpec], *, api: Literal["chat"], strict: bool = ...) -> list[ChatTool]: ...
@overload
def to_openai(
    specs: Sequence[ToolSpec], *, api: OpenAIFormat, strict: bool = ...
) -> list[ResponsesTool] | list[ChatTool]: ...
def to_openai(
    specs: Sequence[ToolSpec], *, api: OpenAIFormat = "responses", strict: bool = False
) -> list[ResponsesTool] | list[ChatTool]:
    """Function tools for the OpenAI Responses API (flat) or Chat Completions (nested ``function``)."""
    if api not in ("responses", "chat"):
        raise UsageError(f"unknown OpenAI API format {api!r}", hint="give api='responses' or api='chat'")
    schemas = [(spec, _strict_schema(spec.schema()) if strict else spec.schema()) for spec in specs]
    if api == "responses":
        return [_responses_tool(spec, schema, strict=strict) for spec, schema in schemas]
    return [_chat_tool(spec, schema, strict=strict) for spec, schema in schemas]


def _responses_tool(spec: ToolSpec, schema: dict[str, Any], *, strict: bool) -> ResponsesTool:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": schema,
        "strict": strict,
    }


def _chat_tool(spec: ToolSpec, schema: dict[str, Any], *, strict: bool) -> ChatTool:
    tool: ChatTool = {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": schema},
    }
    if strict:
        tool["function"]["strict"] = True
    return tool


def to_anthropic(specs: Sequence[ToolSpec]) -> list[AnthropicTool]:
    """Client tools for the Anthropic Messages API."""
    return [{"name": s.name, "description": s.description, "input_schema": s.schema()} for s in specs]


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI strict mode: every property required, optional ones nullable, no defaults/bounds
    (which the property's description then states, since the dispatch still enforces them)."""
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    for name, prop in props.items():
        words = _strict_words(prop, optional=name not in required)
        for key in ("default", "minimum", "maximum"):
            prop.pop(key, None)
        if words:
            prop["description"] = f"{prop.get('description', '')} {words}".strip()
        if name not in required:
            prop["type"] = [prop["type"], "null"]
    schema["required"] = list(props)
    schema["additionalProperties"] = False
    return schema


def _strict_words(prop: Mapping[str, Any], *, optional: bool) -> str:
    """The bounds and default of a property, in words, for a schema that cannot carry them."""
    words = f"Takes {rule_text(prop)}." if "minimum" in prop or "maximum" in prop else ""
    if optional and "default" in prop:
        words += f" Pass null for the default ({prop['default']!r})."
    return words.strip()


def parse_arguments(arguments: Mapping[str, Any] | str | None) -> Arguments:
    """A call's arguments as a mapping (a JSON object string is parsed; none is ``{}``)."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError) as exc:
            raise UsageError(
                f"the tool arguments are not valid JSON: {reason(exc)}",
                hint="send a JSON object",
                code="SV400",
            ) from None
        arguments = parsed
    if not isinstance(arguments, Mapping):
        raise UsageError("the tool arguments must be a JSON object", hint="send a JSON object", code="SV400")
    return arguments


def str_arg(args: Arguments, key: str) -> str:
    """A required, non-empty string argument."""
    value = args.get(key)
    if value is None:
        raise UsageError(f"argument {key!r} is missing", hint=f"pass {key} as a string", code="SV400")
    if not isinstance(value, str):
        raise UsageError(f"argument {key!r} must be a string", hint=f"pass {key} as a string", code="SV400")
    if not value:
        raise UsageError(f"argument {key!r} is empty", hint=f"pass {key} as a non-empty string", code="SV400")
    return value


def whole_number(text: str | None) -> int | None:
    """``text`` as a whole number when it is written in ASCII digits (at most 18 of them), else
    None: what a cursor, a page's query parameter or a Content-Length may be. ``str.isdigit``
    alone lets through "²" (which ``int`` refuses) and 5,000-digit strings (which it refuses too)."""
    if text is None or not (0 < len(text) <= 18 and text.isascii() and text.isdigit()):
        return None
    return int(text)


def int_arg(args: Arguments, key: str, default: int) -> int:
    """An optional integer argument: an int or a whole, finite float, as JSON Schema's
    ``integer`` (:func:`skillshelf.serve.arguments.is_integer`); null or left out: ``default``."""
    value = args.get(key)
    if value is None:
        return default
    if not is_integer(value):
        raise UsageError(
            f"argument {key!r} must be an integer", hint=f"pass {key} as a whole number", code="SV400"
        )
    return int(value)


def error_result(exc: SkillshelfError) -> ToolResult:
    """The error as the model gets it; a message that quotes a huge argument back is cut."""
    message, fix = clipped(exc.message, ERROR_MESSAGE_CHARS), clipped(exc.hint, ERROR_MESSAGE_CHARS)
    text = f"error {exc.code}: {message}"
    if fix:
        text += f"\nfix: {fix}"
    return ToolResult(text=text, is_error=True, data={**exc.to_dict(), "message": message, "fix": fix})


def clipped(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters with ``...`` when it is longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_cursor(cursor: str | None, total: int) -> int:
    """The page start a ``next_cursor`` names (none: 0); UsageError (SV400) for any other text."""
    if cursor in (None, ""):
        return 0
    number = whole_number(cursor)
    if number is None or number > total:
        raise UsageError(
            f"invalid cursor {cursor!r}",
            hint="pass the next_cursor of the previous page, or none",
            code="SV400",
        )
    return number
