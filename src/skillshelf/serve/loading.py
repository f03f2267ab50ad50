"""Opening the library a server serves: a :class:`~skillshelf.workspace.Workspace`, plus trust.

The same workspace as ``skillshelf context``: the config decides extra roots, built-ins, per-skill
modes (disabled skills are not served at all, ``manual`` ones are loadable but not listed,
``name-only`` ones are listed without description), the catalog budget and whether the model gets
a skills list at all (``skills.include_instructions``, :mod:`.unlisted`); the skill folders the
memory pipeline wrote are served too. When the project is not trusted, its skills come out of
the workspace marked ``trusted=False`` (as for every other command).

A server does not know its client's model, so the catalog in its instructions is held to the
budget Codex gives an unknown window, 8,000 characters (:func:`served_budget`), or to the
config's when that is smaller. Codex 0.171.0 (measured with model-standin) puts a server's
instructions whole, uncut, into the description of the server's tool namespace in every model
request, beside its own skills list.
"""

from __future__ import annotations

from skillshelf.env import Env
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.unlisted import withheld_reason
from skillshelf.skills.catalog.budget import DEFAULT_CHAR_BUDGET, Budget, CharBudget, TokenBudget
from skillshelf.skills.model import Discovery
from skillshelf.tokens import BYTES_PER_TOKEN
from skillshelf.workspace import Workspace, WorkspaceOptions

__all__ = ["open_library", "served_budget", "workspace_tools"]


def workspace_tools(workspace: Workspace, *, semantic: bool = False) -> SkillTools:
    """The tools a server or a program offers over ``workspace`` (``skillshelf.workspace_tools``,
    the way to build :class:`SkillTools` for a model): every loadable skill (a project's marked
    untrusted by the workspace unless the project is trusted; disabled ones left out, and
    explained when asked for), the catalog's skills listed, the config's budget, catalog format
    (else markdown) and ``[select]`` settings (search_skills marks as ``suggested`` what ``context``
    would suggest for the query, as ``skillshelf search`` marks it);
    no skills list when the config switches it off."""
    return _tools(workspace, workspace.budget(), semantic=semantic)


def served_budget(budget: Budget) -> Budget:
    """``budget``, held to :data:`DEFAULT_CHAR_BUDGET` characters (a token budget stays while its
    bytes fit in them: a character is at least one byte)."""
    if isinstance(budget, TokenBudget):
        return (
            budget
            if budget.tokens * BYTES_PER_TOKEN <= DEFAULT_CHAR_BUDGET
            else CharBudget(DEFAULT_CHAR_BUDGET)
        )
    return CharBudget(min(budget.chars, DEFAULT_CHAR_BUDGET))


def _tools(workspace: Workspace, budget: Budget, *, semantic: bool) -> SkillTools:
    from skillshelf.select.ranking import RankingSettings

    return SkillTools(
        workspace.skills.loadable,
        listed=workspace.skills.catalog,
        budget=budget,
        catalog_format=workspace.config.catalog_format or "markdown",
        index_cache_dir=workspace.index_cache_dir,
        semantic=semantic,
        ranking=RankingSettings.from_config(workspace.config.get),
        why_unavailable=workspace.modes.disabled_error,
        withheld=withheld_reason(workspace.config),
    )


def open_library(
    env: Env, options: WorkspaceOptions | None = None, *, semantic: bool = False
) -> SkillLibrary:
    """The library for ``env``: reloadable (each load opens the :class:`Workspace` again), with the
    search index built on first use (and the installed embedding models' vectors when ``semantic``
    is set); its catalog within :func:`served_budget` of the workspace's."""
    options = options or WorkspaceOptions()

    def load() -> tuple[Discovery | None, SkillTools]:
        workspace = Workspace.open(env, options).check_required()
        return workspace.discovery, _tools(workspace, served_budget(workspace.budget()), semantic=semantic)

    return SkillLibrary(load, watch_paths=tuple(p.expanduser().absolute() for p in options.extra_roots))
