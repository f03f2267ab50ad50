"""Opening the library a server serves: a :class:`~skillshelf.workspace.Workspace`, plus trust.

The same workspace as ``skillshelf context``: the config decides extra roots, built-ins, per-skill
modes (disabled skills are not served at all, ``manual`` ones are loadable but not listed,
``name-only`` ones are listed without description), the catalog budget and whether the model gets
a skills list at all (``skills.include_instructions``, :mod:`.unlisted`); the skill folders the
memory pipeline wrote are served too. When the project is not trusted, its skills come out of
the workspace marked ``trusted=False`` (as for every other command).
"""

from __future__ import annotations

from skillshelf.env import Env
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.tools import SkillTools
from skillshelf.serve.unlisted import withheld_reason
from skillshelf.skills.model import Discovery
from skillshelf.workspace import Workspace, WorkspaceOptions

__all__ = ["open_library", "workspace_tools"]


def workspace_tools(workspace: Workspace, *, semantic: bool = False) -> SkillTools:
    """The tools a server or a program offers over ``workspace`` (``skillshelf.workspace_tools``,
    the way to build :class:`SkillTools` for a model): every loadable skill (a project's marked
    untrusted by the workspace unless the project is trusted; disabled ones left out, and
    explained when asked for), the catalog's skills listed, the config's budget, catalog format
    (else markdown) and ``[select]`` threshold (search_skills suggests what ``context`` would);
    no skills list when the config switches it off."""
    from skillshelf.select.ranking import RankingSettings

    return SkillTools(
        workspace.skills.loadable,
        listed=workspace.skills.catalog,
        budget=workspace.budget(),
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
    is set)."""
    options = options or WorkspaceOptions()

    def load() -> tuple[Discovery | None, SkillTools]:
        workspace = Workspace.open(env, options).check_required()
        return workspace.discovery, workspace_tools(workspace, semantic=semantic)

    return SkillLibrary(load, watch_paths=tuple(p.expanduser().absolute() for p in options.extra_roots))
