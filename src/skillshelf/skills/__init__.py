"""skillshelf.skills: Agent Skills (``SKILL.md`` folders) found, parsed, listed and loaded.

- :mod:`.model`: ``Skill``, ``SkillRoot``, ``Discovery``; :mod:`.parse`: ``parse_skill_text``;
- :mod:`.roots`, :mod:`.discover`: where Codex and Claude Code look, and the scan;
- :mod:`.validate`: the spec's rules (``validate_paths``); :mod:`.catalog`: the budgeted catalog;
- :mod:`.mentions`, :mod:`.load`, :mod:`.implicit`: ``$name`` mentions, loading, implicit use;
- :mod:`.builtin`: skillshelf's own skills. Nothing is imported here.
"""

__all__ = [
    "builtin",
    "catalog",
    "discover",
    "implicit",
    "load",
    "mentions",
    "model",
    "parse",
    "roots",
    "validate",
]
