"""The MCP server: a fixed, small tool set over any number of skills, on the official SDK.

- tools: ``search_skills``, ``load_skill``, ``read_skill_file``, ``list_skills`` (always four,
  whatever the number of skills, so ``tools/list`` stays a few kilobytes);
- instructions: the budgeted catalog, so clients that hand them to the model give it the
  first layer without a call (none with ``skills.include_instructions = false``: :mod:`.unlisted`;
  shaped for Claude Code's cap: :mod:`.instructions`);
- resources: every file of every skill the catalog lists as ``skill://NAME/PATH`` (paged list;
  a ``manual`` skill's files are read by URI, not listed) + a template;
- prompts: one per user-invocable skill, so ``/name`` works in clients with prompt support;
- ``list_changed`` notifications when skills change on disk (watchfiles, background task).

Reads go through :mod:`skillshelf.skills.bundled`, confined to each skill's folder. Skills from
untrusted projects carry a note in what the model reads and ``trusted: false`` in ``_meta``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import quote, unquote

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError

from skillshelf.env import Env
from skillshelf.errors import NotFoundError, SkillshelfError
from skillshelf.serve.instructions import Client, server_instructions
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.notify import ChangeNotifier
from skillshelf.serve.schemas import ToolSpec, whole_number
from skillshelf.serve.skill_tools import SKILL_TOOLS, SkillTool, skill_tool
from skillshelf.serve.stdio import run_stdio
from skillshelf.serve.tools import UNTRUSTED_NOTE
from skillshelf.skills.model import Skill
from skillshelf.skills.walk import ScanLimits

__all__ = [
    "SERVER_TOOLS",
    "ServeOptions",
    "SkillServer",
    "build_server",
    "parse_skill_uri",
    "run_stdio",
    "skill_uri",
]

log = logging.getLogger(__name__)

RESOURCE_NOT_FOUND = -32002
SERVER_TOOLS: tuple[SkillTool, ...] = SKILL_TOOLS
URI_TEMPLATE = "skill://{name}/{+path}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeOptions:
    """How the server behaves; the defaults suit a local client."""

    name: str = "skillshelf"
    watch: bool = True
    prebuild_index: bool = True
    debounce_ms: int = 400
    resource_page: int = 500
    prompt_page: int = 500
    scan_limits: ScanLimits = field(default_factory=ScanLimits)
    """The limits the watcher walks the roots within: discovery's (``limits_from_environ(env.environ,
    ScanLimits())``, so a root whose limits ``SKILLSHELF_SCAN_MAX_*`` raised is watched as deep)."""
    client: Client = "generic"
    """The shape of the instructions (:mod:`.instructions`): ``claude`` fits Claude Code's cap and
    leaves out the skills it lists itself, as seen from ``env``."""
    env: Env | None = None


def skill_uri(name: str, path: str) -> str:
    """``skill://NAME/PATH`` with each part percent-encoded."""
    return f"skill://{quote(name, safe='')}/{quote(path, safe='/')}"


def parse_skill_uri(uri: str) -> tuple[str, str]:
    """(name, path) from a ``skill://`` URI; MCPError(INVALID_PARAMS) when it is not one."""
    prefix = "skill://"
    rest = uri[len(prefix) :] if uri.startswith(prefix) else ""
    name, sep, path = rest.partition("/")
    if not name or not sep or not path:
        raise MCPError(types.INVALID_PARAMS, f"not a skill file URI: {uri!r} (expected skill://NAME/PATH)")
    return unquote(name), unquote(path)


def _meta(skill: Skill) -> dict[str, Any]:
    return {"skillshelf/scope": skill.scope.value, "skillshelf/trusted": skill.trusted}


def _mcp_tool(spec: ToolSpec) -> types.Tool:
    title = spec.name.replace("_", " ").capitalize()
    return types.Tool(
        name=spec.name,
        title=title,
        description=spec.description,
        input_schema=spec.schema(),
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )


def _page(cursor: str | None, total: int, size: int) -> tuple[int, int, str | None]:
    if cursor in (None, ""):
        start = 0
    elif (number := whole_number(cursor)) is not None and number <= total:
        start = number
    else:
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor {cursor!r}")
    end = min(start + size, total)
    return start, end, (str(end) if end < total else None)


def _mcp_error(exc: SkillshelfError) -> MCPError:
    code = RESOURCE_NOT_FOUND if isinstance(exc, NotFoundError) else types.INVALID_PARAMS
    text = exc.one_line()
    return MCPError(code, text, data=exc.to_dict())


class _Handlers:
    """The request handlers, bound to one library."""

    def __init__(self, library: SkillLibrary, options: ServeOptions) -> None:
        self.library = library
        self.options = options
        self.tools = [_mcp_tool(spec) for spec in SERVER_TOOLS]

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = skill_tool(params.name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}")
        tools = self.library.tools
        result = await anyio.to_thread.run_sync(tools.dispatch, params.name, params.arguments or {})
        # Clients such as Claude Code show the model structuredContent instead of the text when
        # both are present; the text is what a model should read for loads and files, while the
        # listings read as well (and are easier for programs) as JSON.
        structured = tool.structured and not result.is_error
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)],
            structured_content=dict(result.data) if structured else None,
            is_error=result.is_error,
        )

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        files = await anyio.to_thread.run_sync(self.library.all_files)
        start, end, next_cursor = _page(
            params.cursor if params else None, len(files), self.options.resource_page
        )
        resources = [self._resource(skill, rel) for skill, rel in files[start:end]]
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    @staticmethod
    def _resource(skill: Skill, rel: str) -> types.Resource:
        import mimetypes

        mime = mimetypes.guess_type(rel)[0] or ("text/markdown" if rel.endswith(".md") else None)
        description = None
        if rel == "SKILL.md":
            description = skill.description if skill.trusted else f"[untrusted project] {skill.description}"
        return types.Resource(
            uri=skill_uri(skill.name, rel),
            name=f"{skill.name}/{rel}",
            mime_type=mime,
            description=description,
            _meta=_meta(skill),
        )

    async def list_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=URI_TEMPLATE,
            name="skill-file",
            description="A file bundled with a skill: NAME is the skill, PATH is relative to its folder.",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        name, path = parse_skill_uri(str(params.uri))
        tools = self.library.tools
        try:
            skill = tools.get(name)
            file = await anyio.to_thread.run_sync(tools.read_file, skill, path)
        except SkillshelfError as exc:
            raise _mcp_error(exc) from None
        uri = str(params.uri)
        meta = _meta(skill)
        content: types.TextResourceContents | types.BlobResourceContents
        if file.is_binary:
            content = types.BlobResourceContents(
                uri=uri, mime_type=file.mime_type, blob=file.base64 or "", _meta=meta
            )
        else:
            content = types.TextResourceContents(
                uri=uri, mime_type=file.mime_type, text=file.text or "", _meta=meta
            )
        return types.ReadResourceResult(contents=[content])

    def _prompt_skills(self) -> list[Skill]:
        tools = self.library.tools
        return [tools.get(n) for n in tools.names() if tools.get(n).claude.user_invocable]

    async def list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        skills = self._prompt_skills()
        start, end, next_cursor = _page(
            params.cursor if params else None, len(skills), self.options.prompt_page
        )
        prompts = [
            types.Prompt(
                name=s.name,
                description=(s.short_description or s.description)
                + ("" if s.trusted else " [untrusted project]"),
                arguments=[
                    types.PromptArgument(
                        name="arguments", description=s.claude.argument_hint or "What to do", required=False
                    )
                ],
                _meta=_meta(s),
            )
            for s in skills[start:end]
        ]
        return types.ListPromptsResult(prompts=prompts, next_cursor=next_cursor)

    async def get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        tools = self.library.tools
        try:
            skill = tools.get(params.name)
            if not skill.claude.user_invocable:
                raise NotFoundError(
                    f"skill {skill.name!r} is not user-invocable",
                    code="SV404",
                    hint="only skills with user-invocable: true are prompts",
                )
            loaded = await anyio.to_thread.run_sync(tools.load_skill, skill.name)
        except SkillshelfError as exc:
            raise _mcp_error(exc) from None
        text = loaded.text
        request = (params.arguments or {}).get("arguments", "").strip()
        text += (
            f"\n\nUse the skill {skill.name} for this request: {request}"
            if request
            else (f"\n\nUse the skill {skill.name} for the task at hand.")
        )
        if not skill.trusted and UNTRUSTED_NOTE not in text:
            text = UNTRUSTED_NOTE + "\n\n" + text
        message = types.PromptMessage(role="user", content=types.TextContent(text=text))
        return types.GetPromptResult(description=skill.description, messages=[message])


def _instructions(library: SkillLibrary, options: ServeOptions) -> str:
    return server_instructions(library.tools, client=options.client, env=options.env)


async def prebuild_index(library: SkillLibrary, *, delay: float = 0.2) -> None:
    """Build the search index in the background once serving has started, so the first
    search_skills call does not pay for it (a search before then waits for the same build)."""
    await anyio.sleep(delay)
    try:
        await anyio.to_thread.run_sync(library.tools.ensure_index, abandon_on_cancel=True)
    except Exception as exc:  # search reports its own error later; serving goes on
        log.warning("building the search index failed: %s", exc)


async def reload_skills(server: SkillServer, *, prebuild: bool) -> None:
    """Rediscover the served skills; on a change refresh the instructions and notify clients."""
    try:
        change = await anyio.to_thread.run_sync(server.library.reload)
    except Exception as exc:  # a broken reload (bad config, missing required skill) keeps the old snapshot
        log.warning("reloading skills failed: %s", exc)
        return
    if change.any:
        server.instructions = _instructions(server.library, server.options)
        await server.notifier.publish(prompts=change.prompts or change.skills, resources=change.resources)
    if prebuild:
        await prebuild_index(server.library, delay=0)


def build_server(library: SkillLibrary | Sequence[Skill], options: ServeOptions | None = None) -> SkillServer:
    """The MCP server over ``library`` (a :class:`SkillLibrary`, or a fixed list of skills)."""
    options = options or ServeOptions()
    if not isinstance(library, SkillLibrary):
        library = SkillLibrary.from_skills(library)
    lib = library
    notifier = ChangeNotifier()
    handlers = _Handlers(lib, options)

    @asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as group:
            if options.watch:
                from skillshelf.serve.watch import watch_folders

                async def reload() -> None:
                    await reload_skills(server, prebuild=options.prebuild_index)

                watching = partial(
                    watch_folders, lib, reload, options.debounce_ms, limits=options.scan_limits
                )
                group.start_soon(watching)
            if options.prebuild_index:
                group.start_soon(prebuild_index, lib)
            yield {"library": lib}
            group.cancel_scope.cancel()

    server = SkillServer(
        options.name,
        version=_version(),
        instructions=_instructions(lib, options),
        lifespan=lifespan,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_list_resource_templates=handlers.list_templates,
        on_read_resource=handlers.read_resource,
        on_list_prompts=handlers.list_prompts,
        on_get_prompt=handlers.get_prompt,
        on_subscriptions_listen=ListenHandler(notifier.bus),
    )
    server.middleware.append(notifier)
    server.library = lib
    server.notifier = notifier
    server.options = options
    return server


class SkillServer(Server[Any]):
    """The SDK server, announcing list_changed for prompts and resources on every transport."""

    library: SkillLibrary
    notifier: ChangeNotifier
    options: ServeOptions

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        notification_options = notification_options or NotificationOptions(
            prompts_changed=True, resources_changed=True
        )
        return super().create_initialization_options(
            notification_options, experimental_capabilities, extensions
        )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("skillshelf")
    except PackageNotFoundError:
        return "0"
