"""The one way in: a folder opened once, with what every entry point needs to work on it.

:meth:`Workspace.open` is the pipeline ``context``, ``serve``, the agent and every CLI command
that looks at skills share, in this order:

1. the config layers for ``env.cwd`` (system, Codex, user, project, ``-c`` overrides);
2. the built-in skills installed (or refreshed) into the user data folder, when the options
   and the config want them (discovery itself only reads);
3. discovery over Codex's and Claude Code's roots, the extra roots (options, then config) and
   the ``skills/`` folders the memory pipeline wrote for this project;
4. an untrusted project's own skills marked ``trusted=False`` (shown with a note or tag by
   every output, :mod:`skillshelf.skills.load`);
5. the per-skill modes of ``[[skills.config]]`` applied (:meth:`Workspace.check_required`
   raises when a ``required`` skill is missing: ``context``, ``serve``, the prompt hook and the
   agent call it).

While the system config layer is there but cannot be read or parsed (``Config.skills_withheld``,
``CF118``), the administrator's requirements cannot be applied: discovery does not run, the
workspace holds no skill (so nothing lists, suggests, serves or indexes one) and
:meth:`Workspace.check_required` raises that finding as a :class:`~skillshelf.errors.ConfigError`.

The result is a frozen value. :meth:`Workspace.budget` sizes the catalog (explicit values,
else config, else Codex's config and model, never above ``requirements.max_catalog_tokens``)
and :meth:`Workspace.budget_choice` also says where the budget came from;
:attr:`Workspace.index` is the search index over the loadable skills, built on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from skillshelf.diagnostics import Diagnostic
from skillshelf.env import Env
from skillshelf.skills.model import Discovery, Skill

if TYPE_CHECKING:
    from skillshelf.config import Config, ModedSkills
    from skillshelf.select.index import SkillIndex
    from skillshelf.skills.catalog import Budget
    from skillshelf.skills.catalog.window import BudgetChoice

__all__ = ["IndexHandle", "Workspace", "WorkspaceOptions", "WorkspaceSkills"]


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceOptions:
    """What to open: extra roots, built-in skills, caches, ``-c`` overrides, memory's skills."""

    extra_roots: tuple[Path, ...] = ()
    include_builtin: bool = True  # and the config's ``skills.builtin`` allows them
    use_cache: bool = True  # the parsed-skill cache and the search-index cache
    config_overrides: tuple[str, ...] = ()
    memory: bool = True  # the skill folders the memory pipeline wrote are roots


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkspaceSkills:
    """The discovered skills sorted by what the per-skill modes let each one do."""

    listed: tuple[Skill, ...]  # in the catalog with their description
    name_only: tuple[Skill, ...]  # in the catalog, name and path only
    pinned: tuple[Skill, ...]  # body always in context
    loadable: tuple[Skill, ...]  # everything not disabled (mentions, load, suggestions)
    manual: tuple[Skill, ...]  # never listed or suggested; loadable by mention
    catalog: tuple[Skill, ...] = ()  # listed and name-only ones in discovery order, the latter blanked

    @classmethod
    def of(cls, moded: ModedSkills) -> WorkspaceSkills:
        return cls(
            listed=tuple(moded.visible),
            name_only=tuple(moded.name_only),
            pinned=tuple(moded.pinned),
            loadable=tuple(moded.loadable),
            manual=tuple(moded.manual),
            catalog=moded.catalog_skills(),
        )


class IndexHandle:
    """The search index over some skills, built (or read from ``cache_dir``) on first :meth:`get`;
    threads that ask at once wait for the one build."""

    __slots__ = ("_building", "_index", "cache_dir", "skills")

    def __init__(self, skills: tuple[Skill, ...], cache_dir: Path | None) -> None:
        self.skills = skills
        self.cache_dir = cache_dir
        self._index: SkillIndex | None = None
        self._building = threading.Lock()

    def get(self) -> SkillIndex:
        if self._index is not None:
            return self._index
        with self._building:
            if self._index is None:
                from skillshelf.select.index import SkillIndex

                self._index = SkillIndex.build(self.skills, cache_dir=self.cache_dir)
            return self._index


@dataclass(frozen=True, slots=True, kw_only=True)
class Workspace:
    """A folder opened for skillshelf: config, skills with their modes, roots, index, budgets."""

    env: Env
    options: WorkspaceOptions
    config: Config
    discovery: Discovery
    modes: ModedSkills  # every skill's mode, and the ``required`` rules no skill matched
    skills: WorkspaceSkills
    memory_roots: tuple[Path, ...]  # the memory pipeline's skill folders among the roots
    index_cache_dir: Path | None  # where search indexes are cached (None: not cached)
    index: IndexHandle  # over ``skills.loadable``

    @classmethod
    def open(cls, env: Env, options: WorkspaceOptions = WorkspaceOptions()) -> Workspace:
        """Run the pipeline of the module docstring for ``env``."""
        from skillshelf.config import apply_skill_modes, load_config
        from skillshelf.skills.discover import DiscoveryOptions, discover_skills
        from skillshelf.skills.load import mark_untrusted

        config = load_config(env, overrides=options.config_overrides)
        if config.skills_withheld is not None:
            return cls._without_skills(env, options, config)
        builtin = options.include_builtin and config.include_builtin
        memory_roots = _memory_roots(env, config) if options.memory else ()
        discovery = discover_skills(
            env,
            DiscoveryOptions(
                extra_roots=options.extra_roots + config.extra_roots + memory_roots,
                include_builtin=builtin,
                builtin_dir=_installed_builtin(env) if builtin else None,
                include_claude=config.include_claude,
                use_cache=options.use_cache,
                bundled=config.bundled_skills.on,
                project_root_markers=config.project_root_markers,
            ),
        )
        marked = mark_untrusted(discovery.skills, trusted_project=config.trusted)
        discovery = replace(discovery, skills=marked)
        moded = apply_skill_modes(discovery.skills, config.skill_rules)
        if moded.diagnostics:  # path entries a requirement overrules: found once skills are known
            config = replace(config, diagnostics=(*config.diagnostics, *moded.diagnostics))
        skills = WorkspaceSkills.of(moded)
        cache_dir = env.dirs.cache / "index" if options.use_cache else None
        return cls(
            env=env,
            options=options,
            config=config,
            discovery=discovery,
            modes=moded,
            skills=skills,
            memory_roots=memory_roots,
            index_cache_dir=cache_dir,
            index=IndexHandle(skills.loadable, cache_dir),
        )

    @classmethod
    def _without_skills(cls, env: Env, options: WorkspaceOptions, config: Config) -> Workspace:
        """The workspace while skills are withheld (``config.skills_withheld``): no skill at all."""
        from skillshelf.config import apply_skill_modes

        moded = apply_skill_modes((), ())
        cache_dir = env.dirs.cache / "index" if options.use_cache else None
        return cls(
            env=env,
            options=options,
            config=config,
            discovery=Discovery(skills=(), roots=()),
            modes=moded,
            skills=WorkspaceSkills.of(moded),
            memory_roots=(),
            index_cache_dir=cache_dir,
            index=IndexHandle((), cache_dir),
        )

    def check_withheld(self) -> Workspace:
        """This workspace, unless its skills are withheld.

        Raises:
            ConfigError: the system config cannot be read, so no skill may be shown (``CF118``).
        """
        withheld = self.config.skills_withheld
        if withheld is not None:
            from skillshelf.errors import ConfigError

            raise ConfigError(withheld.message, hint=withheld.fix or "", code=withheld.code)
        return self

    def check_required(self) -> Workspace:
        """This workspace, once skills may be shown (:meth:`check_withheld`) and every
        ``required`` skill is there.

        Raises:
            ConfigError: skills are withheld: the system config cannot be read (``CF118``).
            RequiredSkillError: a skill configured as ``required`` is missing or invalid.
        """
        self.check_withheld().modes.check_required(self.discovery.diagnostics)
        return self

    @property
    def roots(self) -> tuple[Path, ...]:
        """Every root that was scanned and exists, in precedence order."""
        return tuple(root.path for root in self.discovery.roots)

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The config's findings, then discovery's."""
        return tuple(self.config.diagnostics) + self.discovery.diagnostics

    def budget(
        self,
        *,
        context_window: int | None = None,
        budget_tokens: int | None = None,
        budget_chars: int | None = None,
    ) -> Budget:
        """The catalog budget (see :meth:`budget_choice`)."""
        return self.budget_choice(
            context_window=context_window, budget_tokens=budget_tokens, budget_chars=budget_chars
        ).budget

    def budget_choice(
        self,
        *,
        context_window: int | None = None,
        budget_tokens: int | None = None,
        budget_chars: int | None = None,
    ) -> BudgetChoice:
        """The catalog budget and where it came from: explicit values, else config, else Codex's
        (:func:`~skillshelf.skills.codex_config.catalog_budget`: its config and model); never
        above ``requirements.max_catalog_tokens``."""
        from skillshelf.skills.catalog import CharBudget, TokenBudget
        from skillshelf.skills.codex_config import catalog_budget

        config = self.config
        chars = None if budget_chars is None else (budget_chars, "--budget-chars")
        tokens = None if budget_tokens is None else (budget_tokens, "--budget-tokens")
        if tokens is None and config.skills_max_context_tokens is not None:
            tokens = (config.skills_max_context_tokens, _tokens_source(config))
        window = None if context_window is None else (context_window, "--context-window")
        if window is None and config.context_window is not None:
            window = (config.context_window, _config_source(config, "catalog.context_window"))
        choice = catalog_budget(self.env, chars=chars, tokens=tokens, window=window)
        cap, budget = config.max_catalog_tokens, choice.budget
        if cap is not None and isinstance(budget, TokenBudget) and budget.tokens > cap:
            budget = TokenBudget(tokens=cap)
        elif cap is not None and isinstance(budget, CharBudget) and budget.chars > cap * 4:
            budget = CharBudget(chars=cap * 4)
        else:
            return choice
        return replace(
            choice, budget=budget, source=f"{choice.source}, cut to requirements.max_catalog_tokens"
        )


def _tokens_source(config: Config) -> str:
    """Where the config's token budget comes from: the requirement when it caps the budget
    (or is the only one set), else the key that set it."""
    own = config.get("catalog.budget_tokens", config.get("skills.max_context_tokens"))
    cap = config.max_catalog_tokens
    if cap is not None and (not isinstance(own, int) or own > cap):
        return _config_source(config, "requirements.max_catalog_tokens")
    return _config_source(config, "catalog.budget_tokens", "skills.max_context_tokens")


def _config_source(config: Config, *keys: str) -> str:
    """Which skillshelf config key (and file) set a value, for a budget's source."""
    for key in keys:
        prov = config.provenance.get(key)
        if prov is not None:
            return f"{key} in {prov.file}" if prov.file else f"{key} ({prov.layer})"
    return keys[0]


def _installed_builtin(env: Env) -> Path:
    """The built-in skills, installed or refreshed in the user data folder first."""
    from skillshelf.skills.builtin import ensure_builtin_skills

    return ensure_builtin_skills(env.dirs.data)


def _memory_roots(env: Env, config: Config) -> tuple[Path, ...]:
    """The ``skills/`` folders the memory pipeline wrote for this project, of the scope
    ``memory.scope`` writes (this project's, or the global one)."""
    from skillshelf.memory.read import memory_skill_roots, scope_setting

    return memory_skill_roots(env, setting=scope_setting(config))
