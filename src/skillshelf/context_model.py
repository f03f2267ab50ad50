"""The values of :mod:`skillshelf.context`: what to include (:class:`ContextOptions`), one
block of the model's context (:class:`ContextPart`), the per-turn parts with the skills a task
mentions read once (:class:`TurnParts`, :class:`MentionedSkill`) and the assembled result
(:class:`ContextResult`).

They sit below :mod:`skillshelf.context` and :mod:`skillshelf.context_parts`, which both use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from skillshelf.diagnostics import Diagnostic
from skillshelf.errors import UsageError
from skillshelf.skills.model import Skill
from skillshelf.tokens import approx_tokens
from skillshelf.workspace import WorkspaceOptions

__all__ = [
    "DEFAULT_MEMORY_TOKENS",
    "DEFAULT_SUGGESTION_TOKENS",
    "ContextOptions",
    "ContextPart",
    "ContextResult",
    "MentionedSkill",
    "PartName",
    "TurnParts",
]

PartName = Literal["instructions", "catalog", "pinned", "memory", "suggestions", "mentioned"]
DEFAULT_SUGGESTION_TOKENS = 1500
#: The memory summary's cap without ``memory.summary_token_cap``: the memory settings' default
#: (``memory.settings.DEFAULT_SUMMARY_TOKEN_CAP``, not imported here to keep this module light).
DEFAULT_MEMORY_TOKENS = 2500


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextOptions:
    """What to include and under which budgets. ``None`` means: from config, else Codex's default."""

    extra_roots: tuple[Path, ...] = ()
    include_builtin: bool = True
    use_cache: bool = True
    profile: Literal["codex", "claude"] | None = None
    catalog_format: str | None = None  # a name in skills.catalog's registry
    context_window: int | None = None
    budget_tokens: int | None = None
    budget_chars: int | None = None
    config_overrides: tuple[str, ...] = ()
    instructions: bool = True
    suggestions: bool = True
    suggestion_tokens: int = DEFAULT_SUGGESTION_TOKENS
    # rank the suggestions with every installed embedding model (None) or without any (False)
    semantic: bool | None = None
    # suggest the skills Claude Code lists by name, for its Skill tool (None: when the profile,
    # else the config's instructions.profile, is claude)
    skill_tool: bool | None = False
    memory: bool = True
    memory_tokens: int | None = None  # the summary's cap (None: memory.summary_token_cap, else 2,500)

    def __post_init__(self) -> None:
        if self.semantic is not None and self.semantic is not False:
            raise UsageError(
                f"semantic must be None or False (got {self.semantic!r})",
                hint="leave semantic=None to rank with the installed models, or give False to rank without",
            )
        if self.profile not in (None, "codex", "claude"):
            raise UsageError(
                f"unknown profile {self.profile!r}",
                hint="give profile='codex' or profile='claude', or None to follow instructions.profile",
            )
        for name in ("suggestion_tokens", "memory_tokens"):
            value = getattr(self, name)
            if value is None and name == "memory_tokens":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UsageError(
                    f"{name} must be a whole number of tokens, 0 or more (got {value!r})",
                    hint=f"give {name} as an int; 0 leaves the part out",
                )

    @classmethod
    def over(cls, workspace: WorkspaceOptions, **values: object) -> ContextOptions:
        """Options that open the folder as ``workspace`` says, with ``values`` for the rest (the
        inverse of :meth:`workspace_options`, for a caller that keeps a workspace open)."""
        return cls(
            extra_roots=workspace.extra_roots,
            include_builtin=workspace.include_builtin,
            use_cache=workspace.use_cache,
            config_overrides=workspace.config_overrides,
            memory=workspace.memory,
            **values,  # type: ignore[arg-type]
        )

    def workspace_options(self) -> WorkspaceOptions:
        """What to open the folder with (``memory`` also decides the memory-written skill roots)."""
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


@dataclass(frozen=True, slots=True)
class MentionedSkill:
    """A skill the task mentions and its ``<skill>`` fragment, read once for the turn: the
    ``mentioned`` part, a hook's answer and the reference agent's messages all use this text."""

    skill: Skill
    fragment: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnParts:
    """The per-turn parts for one task (``suggestions``, then ``mentioned``; empty ones left
    out) and the skills it mentions: ``loaded`` (read for this turn) and ``in_context`` (whole
    in the stable parts already, as pinned skills are: nothing more is loaded for them)."""

    parts: tuple[ContextPart, ...] = ()
    loaded: tuple[MentionedSkill, ...] = ()
    in_context: tuple[Skill, ...] = ()

    @property
    def mentioned(self) -> tuple[Skill, ...]:
        return (*(item.skill for item in self.loaded), *self.in_context)

    def part(self, name: PartName) -> ContextPart | None:
        return next((p for p in self.parts if p.name == name), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextResult:
    """The assembled context for one task, plus what the user should know about it."""

    task: str
    cwd: Path
    parts: tuple[ContextPart, ...]
    skills_total: int
    mentioned: tuple[Skill, ...] = ()
    catalog_report: dict[str, object] = field(default_factory=dict, hash=False)
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
