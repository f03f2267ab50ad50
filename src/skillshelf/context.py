"""The main job: everything the model would get for a task in a folder, part by part.

:func:`build_context` opens the folder as a :class:`~skillshelf.workspace.Workspace` (config,
skills with their modes, budgets) and composes the parts in the order they go into the model's
context, stable parts first so a prompt-prefix cache keeps working across turns:

1. ``instructions``: the AGENTS.md (or CLAUDE.md) layers;
2. ``catalog``: the budgeted skills catalog (Codex's algorithm), shaped by per-skill modes;
3. ``pinned``: the bodies of skills configured as ``pinned``;
4. ``memory``: the capped memory summary of this project;
5. ``suggestions``: the per-turn list of skills ranked against the task (changes every turn);
6. ``mentioned``: the skills the task names (``$name``, ``[$name](path)``, ``/name``), loaded.

Each part carries its token count (Codex's 4-bytes-per-token estimate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.skills.model import Discovery, Skill
from skillshelf.tokens import approx_tokens

if TYPE_CHECKING:
    from skillshelf.config import Config
    from skillshelf.context_parts import ContextSkills
    from skillshelf.workspace import Workspace, WorkspaceOptions

__all__ = [
    "ContextOptions",
    "ContextPart",
    "ContextResult",
    "PreparedContext",
    "build_context",
    "prepare_context",
    "turn_parts",
]

PartName = Literal["instructions", "catalog", "pinned", "memory", "suggestions", "mentioned"]
DEFAULT_SUGGESTION_TOKENS = 1500
DEFAULT_MEMORY_TOKENS = 2500


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextOptions:
    """What to include and under which budgets. ``None`` means: from config, else Codex's default."""

    extra_roots: tuple[Path, ...] = ()
    include_builtin: bool = True
    use_cache: bool = True
    profile: Literal["codex", "claude"] | None = None
    catalog_format: Literal["codex", "xml", "markdown"] = "codex"
    context_window: int | None = None
    budget_tokens: int | None = None
    budget_chars: int | None = None
    config_overrides: tuple[str, ...] = ()
    instructions: bool = True
    suggestions: bool = True
    suggestion_tokens: int = DEFAULT_SUGGESTION_TOKENS
    memory: bool = True
    memory_tokens: int = DEFAULT_MEMORY_TOKENS

    def workspace_options(self) -> WorkspaceOptions:
        """What to open the folder with (``memory`` also decides the memory-written skill roots)."""
        from skillshelf.workspace import WorkspaceOptions

        return WorkspaceOptions(
            extra_roots=self.extra_roots,
            include_builtin=self.include_builtin,
            use_cache=self.use_cache,
            config_overrides=self.config_overrides,
            memory=self.memory,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextPart:
    """One block of the model's context, with where it came from."""

    name: PartName
    title: str
    text: str
    sources: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return approx_tokens(self.text)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "title": self.title,
            "tokens": self.tokens,
            "sources": list(self.sources),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextResult:
    """The assembled context for one task, plus what the user should know about it."""

    task: str
    cwd: Path
    parts: tuple[ContextPart, ...]
    skills_total: int
    mentioned: tuple[Skill, ...] = ()
    catalog_report: dict[str, object] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def text(self) -> str:
        """The parts joined as the model would read them."""
        return "\n\n".join(part.text for part in self.parts if part.text)

    @property
    def tokens(self) -> int:
        return sum(part.tokens for part in self.parts)

    def part(self, name: PartName) -> ContextPart | None:
        return next((p for p in self.parts if p.name == name), None)

    def to_dict(self) -> dict[str, object]:
        return {
            "task": self.task,
            "cwd": str(self.cwd),
            "tokens": self.tokens,
            "skills_total": self.skills_total,
            "mentioned": [s.name for s in self.mentioned],
            "catalog_report": self.catalog_report,
            "warnings": list(self.warnings),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "parts": [p.to_dict() for p in self.parts],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedContext:
    """The parts that stay the same across turns, and what the per-turn parts need."""

    workspace: Workspace
    options: ContextOptions
    stable: tuple[ContextPart, ...]
    catalog_report: dict[str, object]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def config(self) -> Config:
        return self.workspace.config

    @property
    def discovery(self) -> Discovery:
        return self.workspace.discovery

    @property
    def skills(self) -> ContextSkills:
        return self.workspace.skills


def prepare_context(env: Env, options: ContextOptions = ContextOptions()) -> PreparedContext:
    """Open the folder (:meth:`Workspace.open <skillshelf.workspace.Workspace.open>`) and build
    the stable parts, in context order: instructions, catalog, pinned skills, memory.

    Raises:
        RequiredSkillError: a skill configured as ``required`` is missing or invalid.
    """
    from skillshelf.context_parts import catalog_part, instructions_part, memory_part, pinned_part
    from skillshelf.workspace import Workspace

    workspace = Workspace.open(env, options.workspace_options()).check_required()
    parts: list[ContextPart] = []
    found: list[Diagnostic] = []
    if options.instructions:
        parts += instructions_part(env, options, workspace.config, diagnostics=found)
    catalog, report = catalog_part(workspace, options)
    parts.append(catalog)
    parts += pinned_part(workspace.skills)
    if options.memory:
        parts += memory_part(env, options)
    return PreparedContext(
        workspace=workspace,
        options=options,
        stable=tuple(p for p in parts if p.text),
        catalog_report=report,
        diagnostics=workspace.diagnostics + tuple(found),
    )


def turn_parts(prepared: PreparedContext, task: str) -> tuple[tuple[ContextPart, ...], tuple[Skill, ...]]:
    """The per-turn parts for ``task`` (suggestions, then the mentioned skills loaded), and the
    skills it mentions."""
    from skillshelf.context_parts import mentioned_part, suggestions_part

    mentioned = _mentioned_skills(prepared.skills.loadable, task)
    parts: list[ContextPart] = []
    if prepared.options.suggestions and task.strip():
        parts += suggestions_part(
            prepared.skills, task, mentioned, prepared.options, cache_dir=prepared.workspace.index_cache_dir
        )
    parts += mentioned_part(mentioned)
    return tuple(p for p in parts if p.text), mentioned


def build_context(env: Env, task: str, options: ContextOptions = ContextOptions()) -> ContextResult:
    """Assemble what the model would get for ``task`` in ``env.cwd``.

    Raises:
        RequiredSkillError: a skill configured as ``required`` is missing or invalid.
    """
    prepared = prepare_context(env, options)
    per_turn, mentioned = turn_parts(prepared, task)
    warning = prepared.catalog_report.get("warning")
    unloaded = _disabled_mentions(prepared, task, mentioned)
    return ContextResult(
        task=task,
        cwd=env.cwd,
        parts=prepared.stable + per_turn,
        skills_total=len(prepared.discovery.skills),
        mentioned=mentioned,
        catalog_report=prepared.catalog_report,
        warnings=((str(warning),) if warning else ()) + unloaded,
        diagnostics=prepared.diagnostics,
    )


def _mentioned_skills(skills: Sequence[Skill], task: str) -> tuple[Skill, ...]:
    if "$" not in task and not task.lstrip().startswith("/"):
        return ()  # no sigil, no mention (as select_mentioned says): skip importing it
    from skillshelf.skills.mentions import select_mentioned

    return select_mentioned(skills, [task])


def _disabled_mentions(prepared: PreparedContext, task: str, loaded: Sequence[Skill]) -> tuple[str, ...]:
    """A warning for each skill the task mentions that config disables (it is not loaded)."""
    if not prepared.workspace.modes.disabled or ("$" not in task and not task.lstrip().startswith("/")):
        return ()
    from skillshelf.skills.mentions import extract_mentions

    names = {skill.name for skill in loaded}
    why = prepared.workspace.modes.disabled_error
    errors = [(name, why(name)) for name in extract_mentions(task).names if name not in names]
    return tuple(f"the task mentions ${n}, but {e.message}; {e.hint}" for n, e in errors if e is not None)
