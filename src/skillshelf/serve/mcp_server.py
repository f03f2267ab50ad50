"""The MCP server: a fixed, small tool set over any number of skills, on the official SDK.

- tools: ``search_skills``, ``load_skill``, ``read_skill_file``, ``list_skills`` (always four,
  whatever the number of skills, so ``tools/list`` stays a few kilobytes);
- instructions: the budgeted catalog, so clients that hand them to the model give it the
  first layer without a call (none with ``skills.include_instructions = false``: :mod:`.unlisted`;
  shaped for Claude Code's cap: :mod:`.instructions`);
- resources: every file of every skill the catalog lists as ``skill://NAME/PATH`` (paged list;
  a ``manual`` skill's files are read by URI, not listed) + a template (:mod:`.resources`);
- prompts: one per user-invocable skill, so ``/name`` works in clients with prompt support,
  shaped for how the client hands on the typed request (:mod:`.prompts`);
- ``list_changed`` notifications when skills change on disk (watchfiles, background task).

Reads go through :mod:`skillshelf.skills.bundled`, confined to each skill's folder. Skills from
untrusted projects carry a note in what the model reads and ``trusted: false`` in ``_meta``.
Requests run in daemon threads (:func:`in_daemon_thread`), abandoned when cancelled, so a long
call never holds the process once serving ends; a ``search_skills`` query is capped at
:data:`MAX_QUERY_CHARS`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError

from skillshelf.env import Env
from skillshelf.errors import NotFoundError, SkillshelfError, UsageError
from skillshelf.serve.instructions import Client, server_instructions
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.notify import ChangeNotifier
from skillshelf.serve.prompts import passes_words_by_position, prompt, prompt_text
from skillshelf.serve.resources import URI_TEMPLATE, parse_skill_uri, resource, resource_contents, skill_uri
from skillshelf.serve.schemas import ToolResult, ToolSpec, error_result, whole_number
from skillshelf.serve.skill_tools import MAX_QUERY_CHARS, SKILL_TOOLS, SkillTool, skill_tool
from skillshelf.serve.stdio import run_stdio
from skillshelf.skills.model import Skill
from skillshelf.skills.walk import ScanLimits

__all__ = [
    "MAX_QUERY_CHARS",
    "SERVER_TOOLS",
    "ServeOptions",
    "SkillServer",
    "build_server",
    "in_daemon_thread",
    "parse_skill_uri",
    "run_stdio",
    "skill_uri",
]

log = logging.getLogger(__name__)

RESOURCE_NOT_FOUND = -32002
WATCH_GAVE_UP = (
    "SV210: skillshelf stopped following changes in the skill folders: skills added, changed or "
    "removed from now on are not seen (fix: restart the skillshelf MCP server, e.g. reconnect it in "
    "the client; the server's stderr has the cause)"
)
"""The warning every client is sent when the folder watch gave up (its restarts failed)."""
_T = TypeVar("_T")
SERVER_TOOLS: tuple[SkillTool, ...] = SKILL_TOOLS


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
        arguments = params.arguments or {}
        result = _oversized(params.name, arguments)
        if result is None:
            result = await in_daemon_thread(tools.dispatch, params.name, arguments)
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
        files = await in_daemon_thread(self.library.all_files)
        start, end, next_cursor = _page(
            params.cursor if params else None, len(files), self.options.resource_page
        )
        resources = [self._resource(skill, rel) for skill, rel in files[start:end]]
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    def _resource(self, skill: Skill, rel: str) -> types.Resource:
        """The listed resource of ``rel``; ``SKILL.md``'s says how many files the list leaves out."""
        more, at_least = self.library.unlisted_of(skill) if rel == "SKILL.md" else (0, False)
        return resource(skill, rel, _meta(skill), more_files=more, more_at_least=at_least)

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
            file = await in_daemon_thread(tools.read_file, skill, path)
        except SkillshelfError as exc:
            raise _mcp_error(exc) from None
        content = resource_contents(skill, file, str(params.uri), _meta(skill))
        return types.ReadResourceResult(contents=[content])

    def _positional(self, ctx: ServerRequestContext[Any]) -> bool:
        """Whether the client pairs a command's typed words with prompt arguments by position."""
        client = ctx.session.client_params
        name = client.client_info.name if client is not None else None
        return passes_words_by_position(name, shaped_for_claude=self.options.client == "claude")

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
        positional = self._positional(ctx)
        prompts = [prompt(s, _meta(s), positional=positional) for s in skills[start:end]]
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
            loaded = await in_daemon_thread(tools.load_skill, skill.name)
        except SkillshelfError as exc:
            raise _mcp_error(exc) from None
        text = prompt_text(skill, loaded.text, params.arguments, positional=self._positional(ctx))
        message = types.PromptMessage(role="user", content=types.TextContent(text=text))
        return types.GetPromptResult(description=skill.description, messages=[message])


def _oversized(tool: str, arguments: Mapping[str, Any]) -> ToolResult | None:
    """The error for a ``search_skills`` query longer than :data:`MAX_QUERY_CHARS`, else None."""
    query = arguments.get("query") if tool == "search_skills" else None
    if not isinstance(query, str) or len(query) <= MAX_QUERY_CHARS:
        return None
    return error_result(
        UsageError(
            f"the search query is {len(query):,} characters long, over the {MAX_QUERY_CHARS:,}-character cap",
            hint="describe the task in a few sentences",
            code="SV413",
        )
    )


async def in_daemon_thread(func: Callable[..., _T], *args: Any) -> _T:
    """``func(*args)`` in a daemon thread (at most as many at once as anyio's worker threads),
    abandoned when the awaiting request is cancelled: a call cut off by a client's cancel or by
    the end of serving runs on unawaited, and a daemon thread never keeps the process alive after
    serving ends (anyio's own worker threads would: the interpreter waits for them at exit)."""
    token = anyio.lowlevel.current_token()
    done = anyio.Event()
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, func(*args)))
        except BaseException as exc:  # handed to the awaiting task, raised there
            outcome.append((False, exc))
        try:
            anyio.from_thread.run_sync(done.set, token=token)
        except RuntimeError:  # the event loop has ended: nobody waits for this answer
            pass

    async with anyio.to_thread.current_default_thread_limiter():
        threading.Thread(target=run, name="skillshelf request", daemon=True).start()
        await done.wait()
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def _instructions(library: SkillLibrary, options: ServeOptions) -> str:
    return server_instructions(library.tools, client=options.client, env=options.env)


async def prebuild_index(library: SkillLibrary, *, delay: float = 0.2) -> None:
    """Build the search index in the background once serving has started, so the first
    search_skills call does not pay for it (a search before then waits for the same build), and
    start the embedding models' warm-up: a search before they are warm waits at most
    :data:`~skillshelf.serve.warming.MODELS_WAIT_SECONDS` for them, then answers with the base
    ranking and says so."""
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

                async def watching() -> None:
                    gave_up = await watch_folders(
                        lib, reload, options.debounce_ms, limits=options.scan_limits, since_ns=lib.scanned_ns
                    )
                    if gave_up:
                        await notifier.warn(WATCH_GAVE_UP)

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
