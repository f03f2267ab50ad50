"""skillshelf.config: layered TOML configuration, project trust, requirements, per-skill modes.

:func:`load_config` reads the system, Codex, user, project and ``-c`` layers, keeps project
layers off until the project is trusted, merges them (later wins; ``[requirements]`` can only
get stricter) and returns a :class:`Config` with provenance, diagnostics and skill rules.
:func:`apply_skill_modes` sorts discovered skills by the mode their rules give them.

An example user or project ``config.toml``::

    [skills]
    builtin = false                 # leave skillshelf's own skills out
    roots = ["team-skills"]         # relative to this file's folder

    [[skills.config]]
    name = "deploy"
    mode = "manual"                 # enabled | disabled | name-only | manual | pinned | required

    [catalog]
    budget_tokens = 4000

    [requirements]                  # later layers may tighten these, never loosen them
    required_skills = ["security-review"]
    max_catalog_tokens = 8000
"""

from __future__ import annotations

from skillshelf.config.layers import ConfigLayer, LayerKind
from skillshelf.config.loader import Config, load_config
from skillshelf.config.merge import Provenance
from skillshelf.config.modes import ModedSkills, SkillMode, SkillRule, apply_skill_modes
from skillshelf.config.trust import TrustDecision

__all__ = [
    "Config",
    "ConfigLayer",
    "LayerKind",
    "ModedSkills",
    "Provenance",
    "SkillMode",
    "SkillRule",
    "TrustDecision",
    "apply_skill_modes",
    "load_config",
]
