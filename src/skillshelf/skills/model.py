"""The values of the skills engine. All frozen; nothing here touches the disk.

A :class:`Skill` is what one ``SKILL.md`` says about itself once parsed (name, descriptions,
Codex's ``agents/openai.yaml`` metadata, Claude Code's extra fields) plus where it was found
(:class:`SkillRoot`). The body is not kept: it is read when the skill is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from skillshelf.diagnostics import Diagnostic

__all__ = [
    "MAX_SKILL_BYTES",
    "ClaudeFields",
    "Discovery",
    "RootOrigin",
    "RootScan",
    "Scope",
    "Skill",
    "SkillInterface",
    "SkillPolicy",
    "SkillRoot",
    "ToolDependency",
]


#: The size cap for one ``SKILL.md`` (bigger files are not parsed). Kept here, in a module free
#: of YAML, so that discovery can use it without importing the parser.
MAX_SKILL_BYTES = 1024 * 1024

_LOAD_RANK = {"repo": 0, "user": 1, "system": 2, "admin": 3}
_RENDER_RANK = {"system": 0, "admin": 1, "repo": 2, "user": 3}


class Scope(StrEnum):
    """Codex's four skill scopes."""

    REPO = "repo"
    USER = "user"
    SYSTEM = "system"
    ADMIN = "admin"

    @property
    def load_rank(self) -> int:
        """Order of the loaded list (Codex: repo < user < system < admin)."""
        return _LOAD_RANK[self._value_]

    @property
    def render_rank(self) -> int:
        """Order of the rendered catalog (Codex: system < admin < repo < user)."""
        return _RENDER_RANK[self._value_]


class RootOrigin(StrEnum):
    """Which convention a root comes from; says why a folder was scanned."""

    CODEX_PROJECT = "codex-project"  # <dir>/.codex/skills, project root .. cwd
    CODEX_USER = "codex-user"  # $CODEX_HOME/skills
    AGENTS_USER = "agents-user"  # ~/.agents/skills
    CODEX_SYSTEM = "codex-system"  # $CODEX_HOME/skills/.system
    CODEX_ADMIN = "codex-admin"  # /etc/codex/skills
    CODEX_PLUGIN = "codex-plugin"  # an enabled plugin's skill folders in $CODEX_HOME/plugins/cache
    AGENTS_REPO = "agents-repo"  # <dir>/.agents/skills, project root .. cwd
    CLAUDE_PROJECT = "claude-project"  # <dir>/.claude/skills, project root .. cwd
    CLAUDE_USER = "claude-user"  # ~/.claude/skills
    CLAUDE_PLUGIN = "claude-plugin"  # an enabled Claude Code plugin's skill folders
    CLAUDE_MANAGED = "claude-managed"  # /etc/claude-code/.claude/skills (managed policy)
    EXTRA = "extra"  # --root DIR / config
    BUILTIN = "builtin"  # skillshelf's own skills
    INSTALLED = "installed"  # skills installed by `skillshelf install`
    MEMORY = "memory"  # skills written by the memory pipeline

    @property
    def is_codex(self) -> bool:
        """Roots Codex itself scans (used by the `codex` profile and differential tests)."""
        return self in _CODEX_ORIGINS

    @property
    def is_claude(self) -> bool:
        """Roots Claude Code itself scans (one level down; the folder names the skill)."""
        return self in _CLAUDE_ORIGINS


_CODEX_ORIGINS = frozenset(
    {
        RootOrigin.CODEX_PROJECT,
        RootOrigin.CODEX_USER,
        RootOrigin.AGENTS_USER,
        RootOrigin.CODEX_SYSTEM,
        RootOrigin.CODEX_ADMIN,
        RootOrigin.CODEX_PLUGIN,
        RootOrigin.AGENTS_REPO,
    }
)
_CLAUDE_ORIGINS = frozenset(
    {RootOrigin.CLAUDE_PROJECT, RootOrigin.CLAUDE_USER, RootOrigin.CLAUDE_MANAGED, RootOrigin.CLAUDE_PLUGIN}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillRoot:
    """A folder that is scanned for ``SKILL.md`` files. ``scope`` and ``origin`` may be given
    as their values (``"repo"``, ``"agents-repo"``); anything else is a
    :class:`~skillshelf.errors.UsageError` naming the values there are."""

    path: Path
    scope: Scope
    origin: RootOrigin
    follow_symlinks: bool = True
    trusted: bool = True
    namespace: str | None = None  # the ``NAME:`` of a Claude Code plugin's skills

    def __post_init__(self) -> None:
        if type(self.scope) is not Scope:
            object.__setattr__(self, "scope", _member(Scope, self.scope, "scope"))
        if type(self.origin) is not RootOrigin:
            object.__setattr__(self, "origin", _member(RootOrigin, self.origin, "origin"))


_E = TypeVar("_E", bound=StrEnum)


def _member(kind: type[_E], value: object, field_name: str) -> _E:
    """``kind(value)``, or a UsageError listing the values ``kind`` has."""
    try:
        return kind(value)  # type: ignore[arg-type]  # any value may come in; a wrong one raises
    except ValueError:
        from skillshelf.errors import UsageError

        names = ", ".join(repr(m.value) for m in kind)
        raise UsageError(
            f"SkillRoot {field_name} {value!r} is not a {kind.__name__}",
            hint=f"pass skillshelf.{kind.__name__} or one of its values: {names}",
        ) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillInterface:
    """``interface`` of ``agents/openai.yaml`` (each field dropped when invalid)."""

    display_name: str | None = None
    short_description: str | None = None
    icon_small: Path | None = None
    icon_large: Path | None = None
    brand_color: str | None = None
    default_prompt: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDependency:
    """One entry of ``dependencies.tools`` in ``agents/openai.yaml`` (MCP servers...)."""

    type: str
    value: str
    description: str | None = None
    transport: str | None = None
    command: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillPolicy:
    """``policy`` of ``agents/openai.yaml``."""

    allow_implicit_invocation: bool = True
    products: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaudeFields:
    """Claude Code's frontmatter fields, typed. Absent fields keep Claude Code's defaults."""

    allowed_tools: tuple[str, ...] = ()
    disable_model_invocation: bool = False
    user_invocable: bool = True
    argument_hint: str | None = None
    model: str | None = None
    context: str | None = None
    paths: tuple[str, ...] = ()
    when_to_use: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """One parsed skill.

    ``path`` is its ``SKILL.md`` as walked below the root (the root itself resolved through
    symlinks, as Codex 0.171.0 shows it; duplicates are removed by the resolved path); ``root`` is the
    root that produced it. ``frontmatter`` keeps the parsed mapping as read, for validation.
    ``real_path`` is the ``SKILL.md`` with every symlink resolved when a symlink below the root
    led to it (else ``None``): Codex orders skills of one name by it.
    """

    name: str
    description: str
    path: Path
    root: Path
    scope: Scope
    origin: RootOrigin
    short_description: str | None = None
    interface: SkillInterface | None = None
    policy: SkillPolicy = SkillPolicy()
    dependencies: tuple[ToolDependency, ...] = ()
    claude: ClaudeFields = ClaudeFields()
    frontmatter: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    trusted: bool = True
    real_path: Path | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def order_path(self) -> Path:
        """The path skills of one name are ordered by (Codex: the resolved one)."""
        return self.real_path or self.path

    @property
    def model_visible(self) -> bool:
        """Listed in the catalog: implicit invocation allowed and model invocation not disabled."""
        return self.policy.allow_implicit_invocation and not self.claude.disable_model_invocation

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "description": self.description,
            "short_description": self.short_description,
            "path": str(self.path),
            "folder": str(self.folder),
            "root": str(self.root),
            "scope": self.scope.value,
            "origin": self.origin.value,
            "model_visible": self.model_visible,
            "user_invocable": self.claude.user_invocable,
            "trusted": self.trusted,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RootScan:
    """What the walk of one root found and where it stopped.

    ``truncated`` is never silent: ``limit`` names the limit that was hit and
    ``unvisited_dirs`` how many folders were left in the queue or not entered.
    """

    root: SkillRoot
    exists: bool
    skill_files: int = 0
    dirs_visited: int = 0
    entries_seen: int = 0
    truncated: bool = False
    limit: str | None = None
    unvisited_dirs: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Discovery:
    """The result of discovering skills: skills in load order, roots, what went wrong."""

    skills: tuple[Skill, ...]
    roots: tuple[SkillRoot, ...]
    scans: tuple[RootScan, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    def named(self, name: str) -> tuple[Skill, ...]:
        return tuple(s for s in self.skills if s.name == name)

    @property
    def truncated_scans(self) -> tuple[RootScan, ...]:
        return tuple(s for s in self.scans if s.truncated)
