"""The skill tools: the registry every surface reads (the MCP server, the OpenAI/Anthropic
dispatcher :class:`~skillshelf.serve.tools.SkillTools`, the reference agent).

Each tool is a :class:`~skillshelf.serve.schemas.Tool` whose handler runs it on a
:class:`SkillHost` (in practice a ``SkillTools``). To add a tool, write a module that defines one
``Tool`` (its handler may use anything :class:`SkillHost` offers) and add it to
:data:`SKILL_TOOLS`; nothing else changes: the MCP tools/list, the API tool definitions and the
dispatch all come from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from skillshelf.serve.pieces import MAX_OFFSET, load_cut_note, skill_size
from skillshelf.serve.schemas import Arguments, Tool, ToolResult, clipped, int_arg, str_arg
from skillshelf.serve.shown import shown_text
from skillshelf.skills.load import UNTRUSTED_NOTE, UNTRUSTED_TAG
from skillshelf.skills.model import Skill

if TYPE_CHECKING:
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.ranking import Ranking, RankingSettings
    from skillshelf.skills.bundled import SkillFile
    from skillshelf.skills.load import LoadedSkill

__all__ = [
    "LIST_SKILLS",
    "LOAD_SKILL",
    "MAX_QUERY_CHARS",
    "READ_SKILL_FILE",
    "SEARCH_SKILLS",
    "SKILL_TOOLS",
    "SkillHost",
    "SkillTool",
    "load_answer",
    "model_tools",
    "row_line",
    "search_answer",
    "skill_summary",
    "skill_tool",
]

QUERY_ECHO_CHARS = 120  # a query quoted back in a "no match" answer, at most


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

    def read_skill_file(self, name: str, path: str, offset: int = 0) -> ToolResult: ...

    def list_skills(self, cursor: str | None = None, limit: int = 50) -> ToolResult: ...


SkillTool = Tool[SkillHost, ToolResult]


def _list_skills(host: SkillHost, args: Arguments) -> ToolResult:
    cursor = args.get("cursor")
    return host.list_skills(None if cursor is None else str(cursor), int_arg(args, "limit", 50))


MAX_QUERY_CHARS = 8_000
"""The longest ``search_skills`` query served (the schema's ``maxLength``, so every surface
refuses a longer one: MCP with ``SV413``, the tool APIs' dispatch by the schema check). The
longest request of the selection benchmarks (SkillsBench routing, a whole task statement) is
5,110 characters; a search took 1.2 s for 10,000 CJK characters and 4.8 s for 100,000 on a
loaded two-core machine, so a call within the cap stays about a second."""

SEARCH_SKILLS: SkillTool = Tool(
    handler=lambda host, args: host.search_skills(str_arg(args, "query"), int_arg(args, "top_k", 5)),
    structured=True,
    name="search_skills",
    description=(
        "Find the skills that fit a task when the catalog does not name an obvious one. "
        "Returns the best matches with a short description each, the suggested ones (those that "
        "fit well enough) marked; then call load_skill."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "maxLength": MAX_QUERY_CHARS,
                "description": "What you need to do, in a few words.",
            },
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
            "name": {
                "type": "string",
                "description": "The skill's name, as listed in the catalog (or a `load` of search_skills).",
            }
        },
        "required": ["name"],
        "additionalProperties": False,
    },
)

READ_SKILL_FILE: SkillTool = Tool(
    handler=lambda host, args: host.read_skill_file(
        str_arg(args, "name"), str_arg(args, "path"), int_arg(args, "offset", 0)
    ),
    name="read_skill_file",
    description=(
        "Read one file bundled with a skill (a reference, script or template that load_skill listed). "
        "Text comes back as is, binary files as base64. A long text comes in pieces: the answer "
        "then ends with the offset to read on from (SKILL.md too, when load_skill cut it)."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name."},
            "path": {"type": "string", "description": "The file's path relative to the skill folder."},
            "offset": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_OFFSET - 1,  # a piece ends at MAX_OFFSET at the latest
                "default": 0,
                "description": "The byte to read from, as a cut answer's note gives it; omit for the start.",
            },
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


def skill_summary(skill: Skill, *, max_description: int | None = None) -> dict[str, Any]:
    """The few fields a model or client needs to pick a skill (description as :mod:`.shown` shows
    it, cut at ``max_description``)."""
    description = shown_text(skill.short_description or skill.description)
    if max_description is not None and len(description) > max_description:
        description = description[: max_description - 1].rstrip() + "…"
    out: dict[str, Any] = {"name": skill.name, "description": description, "scope": skill.scope.value}
    if not skill.trusted:
        out["trusted"] = False
    return out


def row_line(prefix: str, row: Mapping[str, Any]) -> str:
    """A :func:`skill_summary` as one line of search's or list_skills' text, untrusted ones tagged."""
    line = f"{prefix}{row['name']}" + (f": {row['description']}" if row["description"] else "")
    line += f" {UNTRUSTED_TAG}" if "trusted" in row else ""
    if row.get("load", row["name"]) != row["name"]:
        line += f" (another skill has this name: load this one with load_skill name={row['load']!r})"
    return line


def search_answer(
    ranking: Ranking, settings: RankingSettings, *, top_k: int, loads: Callable[[Skill], Skill | None]
) -> ToolResult:
    """``search_skills``' answer: the best ``top_k`` of ``ranking`` (none below the threshold),
    one row per skill (copies, the same name and description, once: the best ranked), each with
    its own description, scope, score and ``path``, ``load`` (what load_skill takes for exactly
    it: its name, or its path when the name ``loads`` another skill) and ``suggested`` (what
    ``context`` would show, ``skillshelf search``'s ``*``)."""
    from skillshelf.select.docs import copy_key

    shown = {r.doc.key for r in ranking.suggested}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for item in ranking.ranked if ranking.confident else ():
        skill = item.doc.skill
        if skill is None or len(rows) == top_k or copy_key(skill.name, skill.description) in rows:
            continue
        row = skill_summary(skill) | {"score": round(float(item.score), 4), "path": str(skill.path)}
        row["load"] = skill.name if loads(skill) is skill else str(skill.path)
        rows[copy_key(skill.name, skill.description)] = row | {"suggested": item.doc.key in shown}
    results = list(rows.values())
    if ranking.no_task:
        text = (
            f"No skill suggested: {clipped(ranking.query, QUERY_ECHO_CHARS)!r} holds no task (only "
            "greetings, thanks or acknowledgements). Describe the task in a few words."
        )
    elif not results:
        shown_query = clipped(ranking.query, QUERY_ECHO_CHARS)
        text = f"No skill matches {shown_query!r} well enough. Try other words, or work without a skill."
    else:
        lines = [row_line(f"{i}. {'* ' if r['suggested'] else ''}", r) for i, r in enumerate(results, 1)]
        text = (
            "Skills matching the query, best first; * marks the suggested ones, which fit well enough "
            "to be shown unasked (call load_skill with a name to use one):\n" + "\n".join(lines)
        )
    data = {
        "confidence": settings.shown(
            ranking.confidence, 4
        ),  # rounded down: under the threshold reads under it
        "min_confidence": settings.min_confidence,
        "no_task": ranking.no_task,
        "suggested": sum(r["suggested"] for r in results),
        "results": results,
    }
    return ToolResult(text=text, data=data)


def load_answer(loaded: LoadedSkill, key: str) -> ToolResult:
    """``load_skill``'s answer for ``loaded``: its fragment, a note where it was cut (read on
    with ``key``, what load_skill takes for exactly this skill), its bundled files, the skills
    of the same name it shadows, the untrusted note first for a project's skill."""
    skill = loaded.skill
    parts = [loaded.fragment]
    shown, size = len(loaded.contents.encode("utf-8")), skill_size(skill)
    if loaded.truncated:
        parts.append(load_cut_note(skill.name, key, shown=shown, size=max(size, shown)))
    if loaded.files:
        listing = "\n".join(f"- {f}" for f in loaded.files)
        more = f"\n- ... and {loaded.more_files_text} more file(s)" if loaded.more_files else ""
        parts.append(
            f"Files bundled with {skill.name} (read one with read_skill_file when the "
            f"instructions call for it):\n{listing}{more}"
        )
    if loaded.shadowed:
        parts.append(f"(Also named {skill.name}, not loaded: {', '.join(map(str, loaded.shadowed))}.)")
    if not skill.trusted:
        parts.insert(0, UNTRUSTED_NOTE)
    data = {
        "name": skill.name,
        "path": str(skill.path),
        "folder": str(skill.folder),
        "files": list(loaded.files),
        "more_files": loaded.more_files,
        "more_files_at_least": loaded.more_files_at_least,
        "trusted": skill.trusted,
        "fragment": loaded.fragment,
        "truncated": loaded.truncated,
        "next_offset": shown if loaded.truncated else None,
    }
    return ToolResult(text="\n\n".join(parts), data=data)
