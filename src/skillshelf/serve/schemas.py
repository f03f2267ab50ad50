"""The skill tools as data, and their shapes in the MCP, OpenAI and Anthropic tool formats.

One :class:`ToolSpec` per tool (name, description, JSON Schema of the arguments); the
``to_*`` functions only change the envelope, so every surface describes the tools with the
same words. The set is fixed and small whatever the number of skills.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "LIST_SKILLS",
    "LOAD_SKILL",
    "MODEL_TOOLS",
    "READ_SKILL_FILE",
    "SEARCH_SKILLS",
    "ToolSpec",
    "to_anthropic",
    "to_openai",
    "with_name_enum",
]

OpenAIFormat = Literal["responses", "chat"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """One tool: its name, what it is for, and the JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool = True

    def schema(self) -> dict[str, Any]:
        """A fresh, mutable copy of the argument schema."""
        return copy.deepcopy(dict(self.parameters))


SEARCH_SKILLS = ToolSpec(
    name="search_skills",
    description=(
        "Find the skills that fit a task when the catalog does not name an obvious one. "
        "Returns the best matches with a short description each; then call load_skill."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you need to do, in a few words."},
            "top_k": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "default": 5,
                "description": "How many matches to return.",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)

LOAD_SKILL = ToolSpec(
    name="load_skill",
    description=(
        "Load a skill's full instructions by name before doing a task it covers. "
        "Returns the SKILL.md text and the list of files bundled with the skill."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name, as listed in the catalog."}
        },
        "required": ["name"],
        "additionalProperties": False,
    },
)

READ_SKILL_FILE = ToolSpec(
    name="read_skill_file",
    description=(
        "Read one file bundled with a skill (a reference, script or template that load_skill listed). "
        "Text comes back as is, binary files as base64."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name."},
            "path": {"type": "string", "description": "The file's path relative to the skill folder."},
        },
        "required": ["name", "path"],
        "additionalProperties": False,
    },
)

LIST_SKILLS = ToolSpec(
    name="list_skills",
    description="List the available skills, one page at a time (pass back next_cursor for the next page).",
    parameters={
        "type": "object",
        "properties": {
            "cursor": {
                "type": "string",
                "description": "next_cursor from the previous page; omit for the first.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 200,
                "default": 50,
                "description": "Skills per page.",
            },
        },
        "additionalProperties": False,
    },
)

MODEL_TOOLS: tuple[ToolSpec, ...] = (LOAD_SKILL, SEARCH_SKILLS, READ_SKILL_FILE)
"""The tools handed to a model through the OpenAI / Anthropic APIs (listing is for MCP clients)."""


def with_name_enum(spec: ToolSpec, names: Sequence[str]) -> ToolSpec:
    """``spec`` with its ``name`` argument (if any) limited to ``names``."""
    schema = spec.schema()
    prop = schema.get("properties", {}).get("name")
    if prop is None or not names:
        return spec
    prop["enum"] = list(names)
    return dataclasses.replace(spec, parameters=schema)


def to_openai(
    specs: Sequence[ToolSpec], *, api: OpenAIFormat = "responses", strict: bool = False
) -> list[dict[str, Any]]:
    """Function tools for the OpenAI Responses API (flat) or Chat Completions (nested ``function``)."""
    tools: list[dict[str, Any]] = []
    for spec in specs:
        schema = spec.schema()
        if strict:
            schema = _strict_schema(schema)
        if api == "responses":
            tool: dict[str, Any] = {
                "type": "function",
                "name": spec.name,
                "description": spec.description,
                "parameters": schema,
            }
            if strict:
                tool["strict"] = True
        else:
            function: dict[str, Any] = {
                "name": spec.name,
                "description": spec.description,
                "parameters": schema,
            }
            if strict:
                function["strict"] = True
            tool = {"type": "function", "function": function}
        tools.append(tool)
    return tools


def to_anthropic(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Client tools for the Anthropic Messages API."""
    return [{"name": s.name, "description": s.description, "input_schema": s.schema()} for s in specs]


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI strict mode: every property required, optional ones nullable, no defaults/bounds."""
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    for name, prop in props.items():
        for key in ("default", "minimum", "maximum"):
            prop.pop(key, None)
        if name not in required:
            prop["type"] = [prop["type"], "null"]
    schema["required"] = list(props)
    schema["additionalProperties"] = False
    return schema
