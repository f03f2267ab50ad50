"""Opening the library a server serves: config layers, discovery (with its cache), skill modes, trust.

The same steps as ``skillshelf context``: the config decides extra roots, built-ins, per-skill
modes (disabled skills are not served at all, ``manual`` ones are loadable but not listed,
``name-only`` ones are listed without description) and the catalog budget. When the project is
not trusted, its skills are served marked ``trusted=False``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from skillshelf.env import Env
from skillshelf.serve.library import SkillLibrary
from skillshelf.serve.tools import SkillTools
from skillshelf.skills.load import mark_untrusted
from skillshelf.skills.model import Discovery

__all__ = ["open_library"]


def open_library(
    env: Env,
    *,
    roots: Sequence[Path] = (),
    include_builtin: bool = True,
    use_cache: bool = True,
    index_cache_dir: Path | None = None,
    semantic: bool = False,
) -> SkillLibrary:
    """The library for ``env``: reloadable, with the search index built on first use (and the
    installed embedding models' vectors when ``semantic`` is set)."""
    from skillshelf.config import apply_skill_modes, load_config
    from skillshelf.skills.catalog import default_budget
    from skillshelf.skills.discover import DiscoveryOptions, discover_skills

    extra = tuple(p.expanduser().absolute() for p in roots)

    def load() -> tuple[Discovery | None, SkillTools]:
        config = load_config(env)
        options = DiscoveryOptions(
            extra_roots=extra + config.extra_roots,
            include_builtin=include_builtin and config.include_builtin,
            include_claude=config.include_claude,
            use_cache=use_cache,
        )
        discovery = discover_skills(env, options)
        moded = apply_skill_modes(discovery.skills, config.skill_rules)
        moded.check_required(discovery.diagnostics)
        served = {s.path: s for s in mark_untrusted(moded.loadable, trusted_project=config.trusted)}
        listed = [dataclasses.replace(s, trusted=served[s.path].trusted) for s in moded.catalog_skills()]
        budget = default_budget(config.context_window, max_context_tokens=config.skills_max_context_tokens)
        tools = SkillTools(
            tuple(served.values()),
            listed=listed,
            budget=budget,
            index_cache_dir=index_cache_dir,
            semantic=semantic,
        )
        return discovery, tools

    return SkillLibrary(load, watch_paths=extra)
