"""The skill library as tools: one dispatcher for MCP, the OpenAI API and the Anthropic API.

:class:`SkillTools` wraps a set of discovered skills and offers the four calls a model needs
(``load_skill``, ``search_skills``, ``read_skill_file``, ``list_skills``), their definitions in
each API's tool format, the system-prompt text with the budgeted catalog, and
:meth:`SkillTools.dispatch`, which runs a call and turns every failure into an error text the
model can act on (never an exception; a bug in a tool is logged and answered as ``SV500``)::

    tools = workspace_tools(Workspace.open(Env.from_os()))   # serve/loading.py: trust and config applied
    response = client.responses.create(model=..., instructions=tools.system_prompt(),
                                       tools=tools.openai_tools(), input=...)
    for call in calls:
        result = tools.dispatch(call.name, call.arguments)   # ToolResult(text, is_error)

``SkillTools(skills)`` over skills from ``discover_skills`` takes every skill as trusted and
applies no config (no per-skill modes, no disabled skills, no budget): that is for skills the
caller vouches for. The search index is built on the first search, not at start-up; the
embedding models' vectors are built beside it in a thread (:mod:`.warming`: a search waits for
them a bounded time, then answers with the base ranking and says so). Descriptions are shown as
:mod:`.shown` says, in the catalog and in the tools' rows alike.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from skillshelf.errors import SkillNotFoundError, SkillshelfError, UsageError
from skillshelf.serve.arguments import check_arguments
from skillshelf.serve.pieces import next_offset, piece_note, read_piece
from skillshelf.serve.schemas import (
    AnthropicTool,
    ChatTool,
    OpenAIFormat,
    ResponsesTool,
    ToolResult,
    ToolSpec,
    clipped,
    error_result,
    parse_arguments,
    parse_cursor,
    to_anthropic,
    to_openai,
    with_name_enum,
)
from skillshelf.serve.shown import catalog_skills
from skillshelf.serve.skill_tools import (
    SKILL_TOOLS,
    SkillTool,
    load_answer,
    model_tools,
    row_line,
    search_answer,
    skill_summary,
)
from skillshelf.serve.unlisted import UNLISTED_NOTE, unlisted_error
from skillshelf.serve.warming import MODELS_WAIT_SECONDS, WARMING_NOTE, ModelVectors, installed_models
from skillshelf.skills.bundled import DEFAULT_MAX_FILE_BYTES, SkillFile, check_text
from skillshelf.skills.load import UNTRUSTED_NOTE, first_by_name
from skillshelf.skills.model import Skill
from skillshelf.skills.skipped import skipped_error

if TYPE_CHECKING:
    from skillshelf.diagnostics import Diagnostic
    from skillshelf.select.index import SkillIndex
    from skillshelf.select.ranking import RankingSettings
    from skillshelf.select.semantic import SemanticIndex
    from skillshelf.skills.catalog import Budget

log = logging.getLogger(__name__)

__all__ = ["UNTRUSTED_NOTE", "SkillPage", "SkillTools", "ToolResult", "skill_summary"]

DEFAULT_PREAMBLE = (
    "You can use skills: folders of instructions, scripts and references for specific tasks. "
    "The catalog below lists them. When a task matches a skill, call load_skill with its name "
    "before starting and follow what it says; use read_skill_file for the files it lists. If no "
    "skill in the catalog fits but one might exist, call search_skills."
)
MAX_TOP_K = 50
QUERY_ECHO_CHARS = 120  # a query quoted back in a "no match" answer, at most
MAX_PAGE = 200
LISTED_DESCRIPTION_CHARS = 200
MAX_ENUM_NAMES = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillPage:
    """One page of :meth:`SkillTools.list_skills`."""

    skills: tuple[Skill, ...]
    total: int
    next_cursor: str | None


class SkillTools:
    """The library dispatcher over one set of skills (see the module docstring).

    ``skills`` are the skills that can be loaded, as they are: their ``trusted`` flags decide the
    notes (:func:`~skillshelf.serve.loading.workspace_tools` builds one from a workspace, with
    trust and config applied). ``listed``: those the catalog shows and search and list_skills
    offer, the model-visible ones among them (default: ``skills``; pass the catalog of the
    config's skill modes to honour them: a ``manual`` skill then loads by name but is never
    offered). A name is looked up as sent, then in Unicode's composed form (NFC) on both sides.
    ``why_unavailable(name)`` may explain a name that is not among ``skills`` (a skill the
    config disables: :meth:`skillshelf.config.ModedSkills.disabled_error`). ``tools`` are the
    tools offered and dispatched (default: the registry, :data:`.skill_tools.SKILL_TOOLS`).
    ``withheld``: why the model gets no skills list (:mod:`.unlisted`), None when it gets one.
    ``skipped``: discovery's diagnostics, which explain a name whose skill was skipped
    (:func:`~skillshelf.skills.skipped.skipped_error`, ``SK407``). ``models_wait``: how long a
    search waits for the models' vectors (:data:`MODELS_WAIT_SECONDS`); ``build_models`` builds
    them for an index (default: the installed models, :func:`~skillshelf.select.service.semantic_for`).
    """

    def __init__(
        self,
        skills: Sequence[Skill],
        *,
        listed: Sequence[Skill] | None = None,
        budget: Budget | None = None,
        catalog_format: str = "markdown",
        index_cache_dir: Path | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        semantic: bool = True,
        ranking: RankingSettings | None = None,
        why_unavailable: Callable[[str], SkillNotFoundError | None] | None = None,
        tools: Sequence[SkillTool] = SKILL_TOOLS,
        withheld: str | None = None,
        skipped: Sequence[Diagnostic] = (),
        models_wait: float = MODELS_WAIT_SECONDS,
        build_models: Callable[[SkillIndex], SemanticIndex | None] | None = None,
    ) -> None:
        self.registry: dict[str, SkillTool] = {tool.name: tool for tool in tools}
        self.skills: tuple[Skill, ...] = tuple(skills)
        self.why_unavailable = why_unavailable
        self.withheld = withheld
        self.listed: tuple[Skill, ...] = tuple(
            s for s in (skills if listed is None else listed) if s.model_visible
        )
        self.budget = budget
        from skillshelf.skills.catalog import CATALOG_FORMATS

        self.catalog_format = CATALOG_FORMATS.get(catalog_format).name  # else a UsageError listing them
        self.index_cache_dir = index_cache_dir
        self.max_file_bytes = max_file_bytes
        self._by_name = first_by_name(self.skills)
        # reversed: the first skill of a composed name is written last, so it wins
        self._by_nfc = {unicodedata.normalize("NFC", k): v for k, v in reversed(self._by_name.items())}
        self._offered = first_by_name(self.listed)  # the listed skills by name, each name once
        # rank with the installed embedding models (WordLlama; MiniLM with skillshelf[semantic])
        self.semantic = semantic
        self.ranking = ranking  # the threshold and count of suggestions (config [select]); None: defaults
        self._index: SkillIndex | None = None
        self._index_lock = threading.Lock()
        self.skipped: tuple[Diagnostic, ...] = tuple(skipped)
        self.models_wait = models_wait
        self._waited_out = False  # a search waited its whole models_wait: later ones do not wait
        self._vectors = ModelVectors(build_models or installed_models(index_cache_dir))
        self._catalog: str | None = None

    # -- lookups ---------------------------------------------------------------------------
    def names(self) -> tuple[str, ...]:
        """Skill names in load order, each once."""
        return tuple(self._by_name)

    def get(self, name: str) -> Skill:
        """The skill called ``name`` (the first in load order); SkillNotFoundError with close matches."""
        if not isinstance(name, str) or not name.strip():
            raise UsageError("the skill name is empty", hint="pass a name from the catalog", code="SV400")
        check_text(name, what="skill name")
        bare = name.strip().lstrip("$/")
        skill = self._by_name.get(name) or self._by_name.get(bare)
        skill = skill or self._by_nfc.get(unicodedata.normalize("NFC", bare)) or self._by_path(name)
        if skill is None:
            from skillshelf.skills.load import close_matches

            known = self.why_unavailable(name) if self.why_unavailable is not None else None
            known = known or skipped_error(name, self.skipped)
            close = close_matches(name, tuple(self._by_name), limit=3)
            raise known or SkillNotFoundError(
                name, available=tuple(self._by_name), close=close, where_listed="call `list_skills`"
            )
        return skill

    def _by_path(self, name: str) -> Skill | None:
        """The loadable skill whose SKILL.md or folder ``name`` is (search's ``load`` for a skill
        whose name loads another one)."""
        from skillshelf.skills.load import answers_to_path

        return next((s for s in self.skills if answers_to_path(s, name)), None) if name.strip() else None

    def _key(self, skill: Skill) -> str:
        """What load_skill and read_skill_file take for exactly ``skill``: its name, or its path
        when the name loads another skill."""
        return skill.name if self._by_name.get(skill.name) is skill else str(skill.path)

    # -- the four calls --------------------------------------------------------------------
    def load_skill(self, name: str) -> ToolResult:
        """The skill's injection fragment plus the list of its bundled files."""
        from skillshelf.skills.load import load_skill

        skill = self.get(name)
        key = self._key(skill)
        return load_answer(load_skill(self.skills, key, max_bytes=self.max_file_bytes), key)

    def search_skills(self, query: str, top_k: int = 5) -> ToolResult:
        """The best ``top_k`` skills for ``query``, ranked by the select package (the one
        ranking, threshold included), the suggestions marked (:func:`.skill_tools.search_answer`)."""
        if not isinstance(query, str) or not query.strip():
            raise UsageError(
                "the search query is empty", hint="describe the task in a few words", code="SV400"
            )
        check_text(query, what="search query")
        top_k = max(1, min(int(top_k), MAX_TOP_K))
        started = time.monotonic()
        index = self.ensure_index()
        wait = 0.0 if self._waited_out else self.models_wait  # one search waits, not each of them
        warm = self.models_ready(max(0.0, wait - (time.monotonic() - started)))
        self._waited_out = self._waited_out or not warm
        semantic = self._vectors.semantic if warm else None
        from skillshelf.select.ranking import Ranker, RankingSettings

        settings = self.ranking or RankingSettings()
        depth = max(top_k, settings.max_suggestions) * 2
        ranking = Ranker(index, semantic=semantic, settings=settings).rank(query, top_k=depth)
        answer = search_answer(
            ranking, settings, top_k=top_k, loads=lambda skill: self._by_name.get(skill.name)
        )
        models = {"models": list(semantic.models) if semantic is not None else [], "models_warming": not warm}
        text = answer.text if warm else f"{answer.text}\n\n{WARMING_NOTE}"
        return ToolResult(text=text, data=dict(answer.data) | models)

    def models_ready(self, timeout: float | None = None) -> bool:
        """Whether the models' vectors are built (or will not be: none installed, ``semantic``
        off, a build that failed), waiting at most ``timeout`` seconds for them (None: until
        they are); False before the first search or :meth:`ensure_index` started the build."""
        return self._vectors.ready(timeout)

    def read_skill_file(self, name: str, path: str, offset: int = 0) -> ToolResult:
        """One bundled file: text as is, binary as base64; reads stay inside the skill folder.
        A text longer than ``max_file_bytes`` comes in pieces: this one from byte ``offset``,
        with a note that says where it was cut and how to read on (:mod:`.pieces`)."""
        skill = self.get(name)
        file, start, shown = read_piece(skill, path, offset=max(0, offset), max_bytes=self.max_file_bytes)
        data = file.to_dict() | {"offset": start, "next_offset": next_offset(file, offset=start, shown=shown)}
        if file.is_binary:
            text = f"{file.path} ({file.mime_type}, {file.size} bytes, base64):\n{file.base64}"
        else:
            text = file.text or ""
            if file.truncated:
                text += "\n\n" + piece_note(file, name=self._key(skill), offset=start, shown=shown)
        if not skill.trusted:
            text = UNTRUSTED_NOTE + "\n\n" + text
        return ToolResult(text=text, data=data)

    def read_file(self, skill: Skill, path: str) -> SkillFile:
        """The confined read behind MCP resources, beneath the folder discovery found (a symlink
        swapped in since: ``SS403``): a text cut at ``max_file_bytes`` ends with the note that
        says so and how ``read_skill_file`` reads on (:func:`.pieces.piece_note`)."""
        file, _, shown = read_piece(skill, path, offset=0, max_bytes=self.max_file_bytes)
        if not file.truncated or file.text is None:
            return file
        note = piece_note(file, name=self._key(skill), offset=0, shown=shown)
        return dataclasses.replace(file, text=f"{file.text}\n\n{note}")

    def list_page(self, cursor: str | None = None, limit: int = 50) -> SkillPage:
        """One page of the listed skills in load order; ``cursor``: the ``next_cursor`` of the last page."""
        start = parse_cursor(cursor, len(self._offered))
        limit = max(1, min(int(limit), MAX_PAGE))
        unique = list(self._offered.values())
        page = tuple(unique[start : start + limit])
        end = start + len(page)
        return SkillPage(skills=page, total=len(unique), next_cursor=str(end) if end < len(unique) else None)

    def list_skills(self, cursor: str | None = None, limit: int = 50) -> ToolResult:
        """:meth:`list_page` as a tool result (SV406 while the skills list is switched off)."""
        if self.withheld:
            return error_result(unlisted_error(self.withheld))
        page = self.list_page(cursor, limit)
        rows = [skill_summary(s, max_description=LISTED_DESCRIPTION_CHARS) for s in page.skills]
        lines = [row_line("- ", r) for r in rows]
        text = f"{len(rows)} of {page.total} skills:\n" + "\n".join(lines)
        if page.next_cursor:
            text += f"\n(more: call list_skills with cursor={page.next_cursor!r})"
        return ToolResult(
            text=text, data={"skills": rows, "total": page.total, "next_cursor": page.next_cursor}
        )

    # -- definitions and prompt ------------------------------------------------------------
    def tool_specs(self, *, include_listing: bool = False, name_enum: bool = False) -> tuple[ToolSpec, ...]:
        """The tool specs; ``name_enum`` constrains skill names to the loadable ones (small libraries)."""
        registered = tuple(self.registry.values())
        specs: tuple[ToolSpec, ...] = registered if include_listing else model_tools(registered)
        if name_enum:
            if len(self._by_name) > MAX_ENUM_NAMES:
                raise UsageError(
                    f"{len(self._by_name)} skills are too many to list in the tool schema",
                    hint=f"use name_enum only with up to {MAX_ENUM_NAMES} skills",
                    code="SV400",
                )
            specs = tuple(with_name_enum(spec, self.names()) for spec in specs)
        return specs

    @overload
    def openai_tools(
        self, api: Literal["responses"] = ..., *, strict: bool = ..., name_enum: bool = ...
    ) -> list[ResponsesTool]: ...
    @overload
    def openai_tools(
        self, api: Literal["chat"], *, strict: bool = ..., name_enum: bool = ...
    ) -> list[ChatTool]: ...
    def openai_tools(
        self, api: OpenAIFormat = "responses", *, strict: bool = False, name_enum: bool = False
    ) -> list[ResponsesTool] | list[ChatTool]:
        """Tool definitions for the OpenAI Responses API (default) or Chat Completions (``api="chat"``),
        typed as the SDK's ``FunctionToolParam`` / ``ChatCompletionToolParam`` (:mod:`.schemas`).

        ``name_enum=True`` lists the skill names in the schema, so the model cannot ask for one
        that does not exist (fine for a few dozen skills; tools/list grows with it).
        """
        return to_openai(self.tool_specs(name_enum=name_enum), api=api, strict=strict)

    def anthropic_tools(self, *, name_enum: bool = False) -> list[AnthropicTool]:
        """Tool definitions for the Anthropic Messages API (``name_enum`` as in :meth:`openai_tools`)."""
        return to_anthropic(self.tool_specs(name_enum=name_enum))

    def catalog(self) -> str:
        """The budgeted catalog of the listed skills (skills/catalog's renderer; none if withheld), cached."""
        if self._catalog is None:
            from skillshelf.skills.catalog import default_budget, render_catalog

            budget = self.budget or default_budget(None)
            shown = self.listed and not self.withheld
            listed = catalog_skills(self.listed, self.catalog_format)
            self._catalog = render_catalog(listed, budget, self.catalog_format).text if shown else ""
        return self._catalog

    def system_prompt(self, preamble: str = DEFAULT_PREAMBLE) -> str:
        """The system-prompt text: how to use the skill tools, then the catalog."""
        catalog = self.catalog()
        if self.withheld and self.skills:
            return f"{preamble}\n\n{UNLISTED_NOTE}"
        if not catalog:
            if not self.skills:
                return preamble + "\n\n(No skills are installed here.)"
            return preamble + "\n\n(No skills are listed here; `load_skill` loads one by its name.)"
        return f"{preamble}\n\n{catalog}"

    # -- dispatch --------------------------------------------------------------------------
    def dispatch(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> ToolResult:
        """Run one tool call; failures come back as ``ToolResult(is_error=True)`` with a fix line.
        Arguments that do not fit the tool's schema are an SV400 result (``check_arguments``)."""
        try:
            args = parse_arguments(arguments)
            tool = self.registry.get(name)
            if tool is None:  # the tools every surface offers (MCP adds list_skills)
                known = ", ".join(t.name for t in model_tools(tuple(self.registry.values())))
                raise UsageError(f"unknown tool {name!r}", hint=f"the skill tools are: {known}", code="SV400")
            return tool.handler(self, check_arguments(tool.name, tool.parameters, args))
        except SkillshelfError as exc:
            return error_result(exc)
        except Exception as exc:  # a bug in a tool: logged and answered, never raised into the loop
            log.exception("the skill tool %r failed", name)
            internal = f"internal error in {clipped(ascii(name), QUERY_ECHO_CHARS)}: {type(exc).__name__}"
            hint = "try other arguments, or go on without this tool (the server's log has the details)"
            return error_result(SkillshelfError(internal, hint=hint, code="SV500"))

    @property
    def models(self) -> tuple[str, ...]:
        """The embedding models search_skills ranks with (known once the index is built)."""
        semantic = self._vectors.semantic
        return () if semantic is None else tuple(semantic.models)

    def ensure_index(self) -> SkillIndex:
        """The index of the listed skills not hidden from implicit use (the others never weigh on
        the scores and the confidence, as in the per-turn suggestions), built (or read from
        ``index_cache_dir``) on first use, with the models' vectors if ``semantic``; thread-safe."""
        with self._index_lock:
            if self._index is None:
                from skillshelf.select.index import SkillIndex

                findable = [skill for skill in self.listed if skill.model_visible]
                index = SkillIndex.build(findable, cache_dir=self.index_cache_dir)
                self._index = index
                self._vectors.start(index if self.semantic and len(index) else None)
            return self._index
