"""The skill tools: the registry every surface reads (the MCP server, the OpenAI/Anthropic
dispatcher :class:`~skillshelf.serve.tools.SkillTools`, the reference agent).

Each tool is a :class:`~skillshelf.serve.schemas.Tool` whose handler runs it on a
:class:`SkillHost` (in practice a ``SkillTools``). To add a tool, write a module that defines one
``Tool`` (its handler may use anything :class:`SkillHost` offers) and add it to
:data:`SKILL_TOOLS`; nothing else changes: the MCP tools/list, the API tool definitions and the
dispatch all come from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from skillshelf.serve.schemas import Arguments, Tool, ToolResult, int_arg, str_arg
from skillshelf.skills.model import Skill

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.skills.bundled import SkillFile

__all__ = [
    "LIST_SKILLS",
    "LOAD_SKILL",
    "READ_SKILL_FILE",
    "SEARCH_SKILLS",
    "SKILL_TOOLS",
    "SkillHost",
    "SkillTool",
    "model_tools",
    "skill_tool",
]


class SkillHost(Protocol):
    """What a skill tool may use: the skills, lookups, confined reads and the search index."""

    @property
    def skills(self) -> tuple[Skill, ...]: ...

    @property
    def max_file_bytes(self) -> int: ...

    def get(self, name: str) -> Skill: ...

    def read_file(self, skill: Skill, path: str) -> SkillFile: ...

    def ensure_index(self) -> SkillIndex: ...

    def load_skill(self, name: str) -> ToolResult: ...

    def search_skills(self, query: str, top_k: int = 5) -> ToolResult: ...

    def read_skill_file(self, name: str, path: str) -> ToolResult: ...

    def list_skills(self, cursor: str | None = None, limit: int = 50) -> ToolResult: ...


SkillTool = Tool[SkillHost, ToolResult]


def _list_skills(host: SkillHost, args: Arguments) -> ToolResult:
    cursor = args.get("cursor")
    return host.list_skills(None if cursor is None else str(cursor), int_arg(args, "limit", 50))


SEARCH_SKILLS: SkillTool = Tool(
    handler=lambda host, args: host.search_skills(str_arg(args, "query"), int_arg(args, "top_k", 5)),
    structured=True,
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

LOAD_SKILL: SkillTool = Tool(
    handler=lambda host, args: host.load_skill(str_arg(args, "name")),
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

READ_SKILL_FILE: SkillTool = Tool(
    handler=lambda host, args: host.read_skill_file(str_arg(args, "name"), str_arg(args, "path")),
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

LIST_SKILLS: SkillTool = Tool(
    handler=_list_skills,
    mcp_only=True,
    structured=True,
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


SKILL_TOOLS: tuple[SkillTool, ...] = (LOAD_SKILL, SEARCH_SKILLS, READ_SKILL_FILE, LIST_SKILLS)
"""Every skill tool, in the order they are offered (the one registration of a new tool)."""


def model_tools(tools: Sequence[SkillTool] = SKILL_TOOLS) -> tuple[SkillTool, ...]:
    """The tools handed to a model through the OpenAI / Anthropic APIs (not the MCP-only ones)."""
    return tuple(tool for tool in tools if not tool.mcp_only)


def skill_tool(name: str) -> SkillTool | None:
    """The registered tool called ``name``, if any."""
    return next((tool for tool in SKILL_TOOLS if tool.name == name), None)
